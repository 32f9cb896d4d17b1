"""The score configurations of the public TB-MathModel release, in both of its formats.

``tests/score_config.json`` comes in two shapes (the release moved from one to the other):

* **legacy** (``tb-mathmodeling-v2-legacy-baseline-panel``): per metric ``path``,
  ``oracle_value``, ``rel_scale``, ``abs_scale``, ``weight`` and no direction. The official
  verifier scores each value two-sided, ``1 / (1 + |a − O| / band)``.
* **endpoint** (``tb-mathmodeling-v4-endpoint-target-minmax``): the same plus ``outstanding_value``,
  ``baseline_value``, ``normalization_mode`` (``baseline_to_outstanding_target_minmax``,
  ``constant_endpoint``, ``missing_baseline``), ``score_weight`` (0 for the last two) and
  ``direction``. Here ``direction`` does not say what the quantity means: it says on which side
  of the baseline the outstanding endpoint lies (``higher_is_better``: outstanding > baseline), and
  ``unscored_missing_baseline`` marks a metric with no baseline at all.

Our own tasks write ``direction``/``semantic_direction`` as the metric's meaning (one of
:data:`~benchmark.suites.tbmath.scoring.DIRECTIONS`). This module reads all three into one
:class:`ReleaseMetric` per entry, keeping every field the release declares, so that the default
(paper) scoring can take each metric's orientation from the config and say where it had to infer
one, and the summary can show the weight-0 and unscored metrics as such. Every number must be
finite: ``NaN`` and ``Infinity`` (which Python's JSON reader accepts) are refused with the file
and the field named.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from benchmark.suites.tbmath.scoring import DIRECTIONS
from benchmark.verdict import DatasetError

ENDPOINT_MODE = "baseline_to_outstanding_target_minmax"
ORIENTATIONS: tuple[str, ...] = ("higher_is_better", "lower_is_better")
UNSCORED_DIRECTION = "unscored_missing_baseline"
#: What the default scoring assumes for a metric whose config gives no orientation.
INFERRED_DIRECTION = "target_value"


@dataclass(frozen=True)
class ReleaseMetric:
    """One ``metrics[i]`` entry as declared, plus how the default scoring reads its orientation."""

    path: str
    oracle_value: float
    weight: float  # ``score_weight`` when present, else ``weight`` (as the official scorer reads it)
    configured_weight: float
    rel_scale: float
    abs_scale: float
    direction: str  # the meaning the default (paper) scoring uses
    direction_source: str  # "config" or "inferred: <why>"
    normalization_mode: str | None = None
    baseline_value: float | None = None
    outstanding_value: float | None = None
    declared_direction: str | None = None  # the raw ``direction`` of the file
    direction_basis: str | None = None
    unscored: str | None = None  # why the release itself gives this metric no weight

    def as_record(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "oracle_value": self.oracle_value,
            "weight": self.weight,
            "direction": self.direction,
            "direction_source": self.direction_source,
            "normalization_mode": self.normalization_mode,
            "baseline_value": self.baseline_value,
            "outstanding_value": self.outstanding_value,
            "declared_direction": self.declared_direction,
            "unscored": self.unscored,
        }


@dataclass(frozen=True)
class Check:
    """One entry of ``tests/string_checks.json`` (``expected`` text) or ``tests/numeric_checks.json``
    (``expected`` number within ``rel_tol``/``abs_tol``): what the release's checks files declare."""

    path: str
    expected: str | float
    rel_tol: float | None = None
    abs_tol: float | None = None


def read_checks(raw: Any, where: str, numeric: bool) -> tuple[Check, ...]:
    """The entries of a checks file, every number finite; ``where`` names the file."""
    if not isinstance(raw, list):
        raise DatasetError(where, "must be a list of checks")
    out = []
    for number, item in enumerate(raw):
        here = f"{where}: [{number}]"
        if not isinstance(item, dict) or not isinstance(item.get("path"), str) or "expected" not in item:
            raise DatasetError(here, "each check needs a string 'path' and an 'expected' value")
        if numeric:
            out.append(
                Check(
                    item["path"],
                    finite(item["expected"], f"{here}.expected"),
                    finite(item.get("rel_tol"), f"{here}.rel_tol", 0.0),
                    finite(item.get("abs_tol"), f"{here}.abs_tol", 0.0),
                )
            )
        else:
            out.append(Check(item["path"], str(item["expected"])))
    return tuple(out)


@dataclass(frozen=True)
class Endpoints:
    """The panel-level endpoints the official reward is normalised between."""

    baseline: float
    outstanding: float


def finite(raw: Any, where: str, default: float | None = None) -> float:
    """``raw`` as a finite float, or a :class:`DatasetError` naming ``where`` (file: field)."""
    if raw is None and default is not None:
        return default
    if isinstance(raw, bool):
        raise DatasetError(where, f"expected a number, got {raw!r}")
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise DatasetError(where, f"expected a number, got {raw!r}") from None
    if not math.isfinite(number):
        raise DatasetError(where, f"must be a finite number, got {raw!r}")
    return number


def config_format(config: dict[str, Any]) -> str:
    """``endpoint``, ``legacy`` (the release's two formats) or ``oriented`` (our tasks' own)."""
    metrics = config.get("metrics") or []
    if any(isinstance(m, dict) and m.get("normalization_mode") for m in metrics):
        return "endpoint"
    if any(isinstance(m, dict) and (m.get("direction") or m.get("semantic_direction")) for m in metrics):
        return "oriented"
    return "legacy"


def _orientation(item: dict[str, Any], fmt: str, here: str) -> tuple[str, str, str | None]:
    """(direction for the default scoring, where it came from, why unscored)."""
    semantic = item.get("semantic_direction")
    declared = item.get("direction")
    if semantic is not None:
        if semantic not in DIRECTIONS:
            raise DatasetError(
                f"{here}.semantic_direction", f"unknown direction {semantic!r}; one of {DIRECTIONS}"
            )
        return str(semantic), "config", None
    if fmt == "endpoint":
        if declared == UNSCORED_DIRECTION:
            return INFERRED_DIRECTION, "inferred: the release has no baseline for it", "missing_baseline"
        if declared in ORIENTATIONS:
            return str(declared), "config (orientation of the outstanding endpoint)", None
        if declared == "exact_value":
            return "exact_value", "config", None
        raise DatasetError(f"{here}.direction", f"unknown endpoint direction {declared!r}")
    if declared is None:
        return INFERRED_DIRECTION, "inferred: the legacy config declares no direction (two-sided)", None
    if declared not in DIRECTIONS:
        raise DatasetError(f"{here}.direction", f"unknown direction {declared!r}; one of {DIRECTIONS}")
    return str(declared), "config", None


def read_metric(item: Any, fmt: str, here: str) -> ReleaseMetric:
    """One ``metrics[i]`` entry; ``here`` is ``<file>: metrics[i]``."""
    if not isinstance(item, dict) or not isinstance(item.get("path"), str) or not item["path"]:
        raise DatasetError(here, "each metric needs a string 'path'")
    configured = finite(item.get("weight"), f"{here}.weight", 1.0)
    weight = finite(item.get("score_weight"), f"{here}.score_weight", configured)
    if configured < 0 or weight < 0:
        raise DatasetError(f"{here}.weight", "a weight must be ≥ 0")
    direction, source, unscored = _orientation(item, fmt, here)
    mode = item.get("normalization_mode")
    baseline = outstanding = None
    if "baseline_value" in item:
        baseline = finite(item["baseline_value"], f"{here}.baseline_value")
    if "outstanding_value" in item:
        outstanding = finite(item["outstanding_value"], f"{here}.outstanding_value")
    if mode == ENDPOINT_MODE and (baseline is None or outstanding is None):
        raise DatasetError(here, f"{ENDPOINT_MODE} needs baseline_value and outstanding_value")
    if unscored is None and weight == 0 and mode in ("constant_endpoint", "missing_baseline"):
        unscored = str(mode)
    return ReleaseMetric(
        path=item["path"],
        oracle_value=finite(item.get("oracle_value"), f"{here}.oracle_value"),
        weight=weight,
        configured_weight=configured,
        rel_scale=finite(item.get("rel_scale"), f"{here}.rel_scale", 0.12),
        abs_scale=finite(item.get("abs_scale"), f"{here}.abs_scale", 1e-6),
        direction=direction,
        direction_source=source,
        normalization_mode=None if mode is None else str(mode),
        baseline_value=baseline,
        outstanding_value=outstanding,
        declared_direction=None if item.get("direction") is None else str(item.get("direction")),
        direction_basis=None if item.get("direction_basis") is None else str(item["direction_basis"]),
        unscored=unscored,
    )


def read_endpoints(config: dict[str, Any], where: str) -> Endpoints:
    """The panel endpoints (``normalized_panel_score``, else ``panel_score``; 0 and 1 by default)."""
    values = []
    for key, default in (("baseline_endpoint", 0.0), ("outstanding_endpoint", 1.0)):
        block = config.get(key) or {}
        if not isinstance(block, dict):
            raise DatasetError(f"{where}: {key}", "must be an object")
        field = "normalized_panel_score" if "normalized_panel_score" in block else "panel_score"
        values.append(finite(block.get(field), f"{where}: {key}.{field}", default))
    return Endpoints(values[0], values[1])
