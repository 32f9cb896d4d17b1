"""Extracting the model and data files from a reply (the contract in ``prompts.py``).

Accepted, in this order: blocks fenced as ```mod and ```dat (``ampl-mod``/``ampl-dat``, ``model``/
``data`` too); else exactly two fenced blocks, model first; else one block holding a ``data;``
section, split there. Anything else is a response-contract violation, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_.+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_MODEL_TAGS = ("mod", "ampl-mod", "model", "ampl_model")
_DATA_TAGS = ("dat", "ampl-dat", "data", "ampl_data")
_DATA_SECTION = re.compile(r"^\s*data\s*;", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class Extracted:
    model: str | None
    data: str | None
    violation: str = ""


def extract(reply: str) -> Extracted:
    blocks = [(tag.lower(), body) for tag, body in _FENCE.findall(reply)]
    models = [body for tag, body in blocks if tag in _MODEL_TAGS]
    datas = [body for tag, body in blocks if tag in _DATA_TAGS]
    if models and datas:
        return Extracted(models[-1], datas[-1])
    if len(blocks) == 2:
        return Extracted(blocks[0][1], blocks[1][1])
    if len(blocks) == 1 and (split := _DATA_SECTION.search(blocks[0][1])):
        body = blocks[0][1]
        return Extracted(body[: split.start()], body[split.start() :])
    if not blocks:
        return Extracted(None, None, "the reply has no fenced code block (expected ```mod and ```dat)")
    return Extracted(
        None,
        None,
        f"the reply has {len(blocks)} fenced blocks but no ```mod and ```dat pair to tell model from data",
    )
