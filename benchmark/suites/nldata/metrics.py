"""NLData2Opt's per-case metrics (§4.3, DESIGN §4): execution-based correctness and entity F1."""

from __future__ import annotations

import math
from collections.abc import Mapping

from benchmark.suites.nldata.entities import ENTITY_TYPES

#: A case passes for pytest when EBC is 1 within this relative distance of the verified optimum.
PASS_RELATIVE_TOLERANCE = 1e-6


def ebc(objective: float | None, answer: float) -> float:
    """max(0, 1 − |O − A| / |A|) when A ≠ 0; 1 when O = A = 0; 0 otherwise. ``None`` (the model did
    not execute or has no optimum) and non-finite objectives score 0."""
    if objective is None or not math.isfinite(objective):
        return 0.0
    if answer == 0:
        return 1.0 if objective == 0 else 0.0
    return max(0.0, 1.0 - abs(objective - answer) / abs(answer))


def ebc_passes(objective: float | None, answer: float) -> bool:
    """The pytest pass rule: the objective is within ``PASS_RELATIVE_TOLERANCE`` of the answer."""
    if objective is None or not math.isfinite(objective):
        return False
    if answer == 0:
        return objective == 0
    return abs(objective - answer) <= PASS_RELATIVE_TOLERANCE * abs(answer)


def entity_f1(candidate: Mapping[str, int], gold: Mapping[str, int]) -> float:
    """F1 of entity-type multisets (recorded as ``ef1_types``; ``ef1`` itself matches by role):
    TP = Σ min(count_cand, count_gold), P = TP/|cand|, R = TP/|gold|.

    Two empty models agree perfectly (1.0); an empty model against a non-empty one scores 0.
    """
    tp = sum(min(candidate.get(kind, 0), gold.get(kind, 0)) for kind in ENTITY_TYPES)
    n_cand = sum(candidate.get(kind, 0) for kind in ENTITY_TYPES)
    n_gold = sum(gold.get(kind, 0) for kind in ENTITY_TYPES)
    if n_cand == 0 and n_gold == 0:
        return 1.0
    if tp == 0:
        return 0.0
    precision, recall = tp / n_cand, tp / n_gold
    return 2 * precision * recall / (precision + recall)
