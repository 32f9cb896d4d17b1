"""Evidence, not claims: a task's scored numbers recomputed from the artifact's decisions.

A self-consistent artifact can still be made up (a tour of one repeated stop with a claimed length
of 1 km). So a task of ours may ship ``tests/evidence.py``, a grader script with one function::

    def recompute(artifact: dict, data: pathlib.Path) -> dict[str, float]

which reads the *decisions* the artifact carries (the tour, the open sites, the schedule, the
fitted parameters) together with the attachments under ``data`` (the task's ``environment/data``)
and returns, per scored JSON path, the value those decisions really have. It raises
:class:`ValueError` (or any exception) when the decisions are unusable (a tour that skips a
customer, a site the instance lacks, a staffing level that misses the stated service target):
that is the artifact's failure, reported with the message, never the harness's.

The gate's ``recompute`` form (``feasibility.py``) compares each claim with its recomputation
within a declared tolerance; claims that agree are *verified*, and only verified values may earn
credit past an anchor (``scoring.py``) or meet a pass rule's optimum (``pass_rule.py``). The
script is part of the grader, like ``score_config.json``: it is imported here, in the harness, and
never shown to the agent.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmark.suites.tbmath.tasks import DATA_DIR
from benchmark.verdict import DatasetError

EVIDENCE_FILE = "tests/evidence.py"

_LOADED: dict[tuple[Path, str], ModuleType] = {}


@dataclass(frozen=True)
class Recomputation:
    """What the decisions of one artifact really give: path → value, or why nothing could be."""

    values: Mapping[str, float]
    error: str | None = None


def _module(script: Path) -> ModuleType:
    """The evidence script as a module, loaded once per content (a regenerated task reloads)."""
    try:
        source = script.read_bytes()
    except OSError as exc:
        raise DatasetError(script, f"cannot read the evidence script ({exc.strerror or exc})") from None
    key = (script.resolve(), hashlib.sha256(source).hexdigest())
    if key not in _LOADED:
        spec = importlib.util.spec_from_file_location(f"tbmath_evidence_{key[1][:16]}", script)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            raise DatasetError(script, f"the evidence script does not load ({exc!r})") from None
        if not callable(getattr(module, "recompute", None)):
            raise DatasetError(script, "the evidence script defines no recompute(artifact, data)")
        _LOADED[key] = module
    return _LOADED[key]


def recompute(root: Path, script: str, artifact: Any) -> Recomputation:
    """Run ``root/script``'s ``recompute`` on ``artifact`` and the task's data folder."""
    function: Callable[[Any, Path], Any] = _module(root / script).recompute
    try:
        raw = function(artifact, root / DATA_DIR)
    except RecursionError:
        return Recomputation({}, "the decisions are nested too deeply to evaluate")
    except Exception as exc:  # the artifact's decisions are unusable: its failure, with the reason
        return Recomputation({}, f"{type(exc).__name__}: {exc}")
    if not isinstance(raw, Mapping):
        raise DatasetError(root / script, f"recompute() must return a dict of path → number, got {raw!r}")
    values: dict[str, float] = {}
    for path, value in raw.items():
        try:
            number = float(value)
        except (TypeError, ValueError):
            problem = f"recompute() returned {value!r} for {path}, not a number"
            raise DatasetError(root / script, problem) from None
        if not math.isfinite(number):
            return Recomputation({}, f"the decisions give a non-finite {path} ({number!r})")
        values[str(path)] = number
    return Recomputation(values)
