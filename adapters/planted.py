"""Known-cause test adapters: the oracle, except where a plan plants a failure (``planted:PLAN.json``).

Attribution is only trustworthy if it recovers causes that are known. A planted adapter answers
every request with the suite's reference answer (like ``oracle``) and then damages it as the plan
says for that instance, so a test knows exactly which failures a run must report and why.

The plan is JSON: ``{"plants": {"<instance key>": ENTRY, ...}}`` where the instance key is a case
key without its interaction and sample (``mmopt/network_optimization/maximum_flow/easy/mf_e_001``).
Requests are told apart by the interaction segment of their case key
(``<instance key>/<interaction>/s<N>``): ``stage1``, ``stage2``, and the payload interactions
(``oracle_reading``, ``verified_extraction``). An ENTRY may hold:

- ``"stage1_code"``: Python code replacing the answer's PYTHON_CODE in Stage-1 answers;
- ``"downstream_code"``: the same for payload answers (absent: the reference code, as when a
  misread value cannot be misread because the payload supplies it);
- ``"code_fault"``: damage to the code of every Stage-1-contract answer, one of :data:`CODE_FAULTS`;
- ``"structured_instance"``: replaces ``extracted_data.structured_instance`` in Stage-2 answers;
- ``"stage2_fault"``: damage to the Stage-2 JSON, one of :data:`STAGE2_FAULTS`;
- anything else (``"cause"``, ``"expected"``) is for the reader and ignored here.

Which concrete code or extraction plants a cause in which subcategory is the suite's business
(:mod:`benchmark.suites.mmopt.planting` for MM-OptBench); this adapter only applies the plan.

It is test support: only the harness's tests make ``planted:`` an alias (``-p tests.planted_adapter``
registers it), so no production run can select it.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from adapters.base import AdapterError, Completion, CompletionRequest, Usage

__all__ = ["CODE_FAULTS", "STAGE2_FAULTS", "PlanError", "PlantedAdapter", "damage_code", "damage_stage2"]

#: Code damages that fail the same way in every subcategory.
CODE_FAULTS: tuple[str, ...] = ("syntax", "missing_package", "infinite_loop", "omit_solve")
#: Stage-2 damages, one per unresolved parse-failure subtype.
STAGE2_FAULTS: tuple[str, ...] = (
    "incomplete_json",
    "other_malformed_json",
    "python_literal",
    "unquoted_numeric_keys",
    "empty_response",
)
_ENTRY_FIELDS = frozenset(
    {"stage1_code", "downstream_code", "code_fault", "structured_instance", "stage2_fault"}
    | {"cause", "expected"}
)
_CODE_HEADING = re.compile(r"^PYTHON_CODE\s*$", re.M)
_SOLVE_DEF = re.compile(r"^def solve\(", re.M)
_QUOTED_NUMERIC_KEY = re.compile(r'"(-?\d+)"(\s*:)')
MISSING_PACKAGE = "optbench_planted_missing_solver"


class PlanError(ValueError):
    """The plan file is missing, malformed, or asks for something that cannot be planted."""


def damage_code(code: str, fault: str) -> str:
    """``code`` with a fault that fails in a known way whatever the code does."""
    if fault == "syntax":
        return code.rstrip("\n") + "\n\nresult = (  # the parenthesis is never closed\n"
    if fault == "missing_package":
        return code.rstrip("\n") + f"\n\nimport {MISSING_PACKAGE}  # noqa: E402\n"
    if fault == "infinite_loop":
        return code.rstrip("\n") + "\n\n\ndef solve():\n    while True:\n        pass\n"
    if fault == "omit_solve":
        if not _SOLVE_DEF.search(code):
            raise PlanError("omit_solve: the reference code has no top-level 'def solve('")
        return _SOLVE_DEF.sub("def build_and_solve_model(", code)
    raise PlanError(f"unknown code fault {fault!r}; known: {', '.join(CODE_FAULTS)}")


def damage_stage2(text: str, fault: str) -> str:
    """A Stage-2 JSON answer damaged so that it parses as exactly the named subtype."""
    if fault == "empty_response":
        return ""
    if fault == "incomplete_json":
        return text[: len(text) // 2]
    if fault == "other_malformed_json":
        return text.replace('": ', '" = ', 1)
    if fault == "python_literal":
        return repr(json.loads(text))
    if fault == "unquoted_numeric_keys":
        damaged = _QUOTED_NUMERIC_KEY.sub(r"\1\2", text)
        if damaged == text:
            raise PlanError("unquoted_numeric_keys: the extraction has no numeric object keys to unquote")
        return damaged
    raise PlanError(f"unknown Stage-2 fault {fault!r}; known: {', '.join(STAGE2_FAULTS)}")


def _replace_code(answer: str, code: str) -> str:
    matches = list(_CODE_HEADING.finditer(answer))
    if not matches:
        raise PlanError("the reference answer has no PYTHON_CODE section to plant code in")
    return answer[: matches[-1].end()] + "\n" + code.strip("\n") + "\n"


def _code_of(answer: str) -> str:
    matches = list(_CODE_HEADING.finditer(answer))
    if not matches:
        raise PlanError("the reference answer has no PYTHON_CODE section to plant a fault in")
    return answer[matches[-1].end() :]


def _load_plan(path: Path) -> dict[str, dict[str, Any]]:
    try:
        plan = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise PlanError(f"cannot read plan {path}: {exc}") from exc
    plants = plan.get("plants") if isinstance(plan, dict) else None
    if not isinstance(plants, dict):
        raise PlanError(f"{path}: expected an object with a 'plants' object")
    for key, entry in plants.items():
        if not isinstance(entry, dict):
            raise PlanError(f"{path}: plant {key} is not an object")
        unknown = sorted(set(entry) - _ENTRY_FIELDS)
        if unknown:
            raise PlanError(f"{path}: plant {key} has unknown field(s) {', '.join(unknown)}")
        if entry.get("code_fault") not in (None, *CODE_FAULTS):
            raise PlanError(f"{path}: plant {key}: unknown code_fault {entry['code_fault']!r}")
        if entry.get("stage2_fault") not in (None, *STAGE2_FAULTS):
            raise PlanError(f"{path}: plant {key}: unknown stage2_fault {entry['stage2_fault']!r}")
    return plants


class PlantedAdapter:
    """The oracle with the plan's damage applied per instance and interaction."""

    def __init__(self, plan_path: Path, name: str | None = None) -> None:
        self.plan_path = plan_path
        self.name = name if name is not None else f"planted:{plan_path}"
        self.plants = _load_plan(plan_path)

    @classmethod
    def from_alias(cls, alias: str) -> PlantedAdapter:
        return cls(Path(alias.removeprefix("planted:")), name=alias)

    def describe(self) -> dict[str, object]:
        return {
            "adapter": "planted",
            "alias": self.name,
            "model_id": "planted",
            "endpoint": None,
            "plan": str(self.plan_path),
            "plants": len(self.plants),
        }

    def complete(self, request: CompletionRequest) -> Completion:
        if request.reference is None:
            raise AdapterError(f"planted: case {request.case_key} carries no reference answer")
        start = time.perf_counter()
        answer = request.reference()
        parts = request.case_key.rsplit("/", 2)
        instance, interaction = (parts[0], parts[1]) if len(parts) == 3 else (request.case_key, "")
        entry = self.plants.get(instance)
        if entry is not None:
            answer = self._damage(answer, entry, interaction)
        return Completion(
            text=answer,
            model_id="planted",
            finish_reason="stop",
            usage=Usage(),
            latency_s=time.perf_counter() - start,
        )

    @staticmethod
    def _damage(answer: str, entry: dict[str, Any], interaction: str) -> str:
        if interaction == "stage2":
            if "structured_instance" in entry:
                value = json.loads(answer)
                value["extracted_data"]["structured_instance"] = entry["structured_instance"]
                answer = json.dumps(value, indent=2)
            fault = entry.get("stage2_fault")
            return damage_stage2(answer, fault) if fault else answer
        code = entry.get("stage1_code") if interaction == "stage1" else entry.get("downstream_code")
        if code is not None:
            answer = _replace_code(answer, code)
        fault = entry.get("code_fault")
        if fault:
            answer = _replace_code(answer, damage_code(_code_of(answer), fault))
        return answer
