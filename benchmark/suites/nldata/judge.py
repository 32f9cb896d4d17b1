"""LLM-ES (NLData2Opt §4.3): a judge model scores a candidate formulation 0–10 against the gold one.

Our own prompt. The judge sees the gold model and data and the candidate's, and must end its reply
with ``SCORE: <integer 0-10>``. The score is reported beside EBC and EF1, never instead of them, and a
judge that cannot be asked or answers out of format leaves LLM-ES empty for the case, with a reason.
Calls go through the harness's adapters, so they are cached like every model call; their replay key
is ``<case>/judge``.
"""

from __future__ import annotations

import re

from benchmark.messages import Message
from benchmark.resources import text_fragments

_SCORE = re.compile(r"SCORE:\s*(\d+(?:\.\d+)?)", re.IGNORECASE)

_PROMPTS = text_fragments(__name__, "prompts.toml")
_TEMPLATE = _PROMPTS["judge"]


def judge_messages(gold_model: str, gold_data: str, model: str, data: str) -> list[Message]:
    text = _TEMPLATE.format(
        gold_model=gold_model.strip(), gold_data=gold_data.strip(), model=model.strip(), data=data.strip()
    )
    return [Message.text("user", text)]


def parse_score(reply: str) -> float | None:
    """The last ``SCORE: n`` of the reply when 0 ≤ n ≤ 10, else None."""
    found = _SCORE.findall(reply)
    if not found:
        return None
    score = float(found[-1])
    return score if 0 <= score <= 10 else None


def oracle_judgement(gold_model: str, gold_data: str, model: str, data: str) -> str:
    """What the oracle judge answers: 10 for the gold files themselves; anything else it cannot
    judge (it has no opinion), so it answers without a score and LLM-ES stays empty."""
    if (model.strip(), data.strip()) == (gold_model.strip(), gold_data.strip()):
        return "The candidate is the gold formulation.\nSCORE: 10"
    return "The oracle judge can only recognise the gold formulation itself."
