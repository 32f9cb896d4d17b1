"""Where ``--scoring=strict`` and ``--scoring=official`` differ, per subcategory, as data.

One list (:data:`DIFFERENCES`) is the source of ``docs/mmopt-official.md`` (written by
``scripts/mmopt_official_table.py``; a test keeps the page equal to it) and names, per row, the
test that shows the two verdicts on a shipped official package. :func:`differences_for` gives the
rows that apply to one subcategory, so the page lists every subcategory, including those where the
modes differ only in the rules common to all.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchmark.suites.mmopt.official import official_rules
from benchmark.suites.mmopt.subcategories import all_subcategories

ALL = "*"
#: Stands for the subcategories with official rules (``subcategories/<name>/official.py``).
WITH_OFFICIAL_RULES = "__official_rules__"
#: Stands for the subcategories their own validator scores in both modes.
WITH_VALIDATOR = "__validator__"


@dataclass(frozen=True)
class Difference:
    """One rule ``strict`` adds or ``official`` reads otherwise; ``applies_to`` names subcategories
    (:data:`ALL` for every one), ``except_for`` those it skips; ``shown_by`` is the test function
    (in ``tests/test_official_scoring_modes.py`` or ``tests/test_official_answer_kinds.py``)
    that shows it."""

    applies_to: tuple[str, ...]
    strict: str
    official: str
    shown_by: str
    except_for: tuple[str, ...] = ()

    def applies(self, subcategory: str) -> bool:
        wanted = ALL in self.applies_to or subcategory in self.applies_to
        return wanted and subcategory not in self.except_for


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        (ALL,),
        "a failure `status` (infeasible, error …) is wrong",
        "reads `status` only for maximum flow",
        "_failure_status",
        except_for=("maximum_flow",),
    ),
    Difference(
        (ALL,),
        "an objective must be reported, as a number",
        'an absent or unparsable objective (`"n/a"`) counts as absent: the next key of its list, '
        "else the objective recomputed from the decisions",
        "_no_objective",
    ),
    Difference(
        (WITH_VALIDATOR,),
        "the objective is read from the first of `objective_value`, `objective`, `objective_exact`, "
        "`total_cost`, `cost`, `value`, `makespan` … present",
        "the release's keys for the subcategory (`official_objective.py`), after an absent "
        "`objective_value` takes the first alias present; graph colouring needs every key present "
        "to agree, knapsack and set packing read the first key present only",
        "test_official_mode_gives_the_official_verdict",
    ),
    Difference(
        ("workforce_planning_shift_scheduling",),
        "the objective is read from `objective_value`, `objective`, `objective_exact`, `total_cost`",
        "with none of those, `assignment_cost` (shift costs without overtime) is the reported "
        "objective and must equal the full cost",
        "test_official_mode_gives_the_official_verdict",
    ),
    Difference(
        ("workforce_planning_shift_scheduling",),
        "`worker_schedule` and `assignments_by_day` must describe the same roster, and reported "
        "totals (`worker_total_assignments`, `assignment_cost` …) must balance with it",
        "reads `worker_schedule` alone when it is a table and never compares the reported totals",
        "test_official_mode_gives_the_official_verdict",
    ),
    Difference(
        ("parallel_machine_scheduling",),
        "without start times, a completion-time objective is recomputed for the best sequence the "
        "assignment allows",
        "needs a start or finish time for every job under a completion-time objective",
        "test_official_mode_gives_the_official_verdict",
    ),
    Difference(
        (WITH_VALIDATOR,),
        "a decision field of the wrong shape (a string where the reference has a table) is an error",
        "a field it cannot read counts as absent: the same decisions are read from another key, or "
        "the check of that field is skipped",
        "test_official_mode_gives_the_official_verdict",
    ),
    Difference(
        ("inventory_routing_problem",),
        "the routes say which vehicles leave",
        "counts dispatched vehicles from `dispatch_by_vehicle_period`, else from a per-period table "
        "for the first vehicle only, and needs as many dispatched as routed in every period (a "
        "fleet's plan without per-vehicle flags is wrong there)",
        "test_an_irp_fleet_plan_without_per_vehicle_dispatch_flags_is_wrong_officially",
    ),
    Difference(
        (WITH_OFFICIAL_RULES,),
        "keys are read from the top level and a nested `solution` dict alike",
        "a nested `solution` dict, when present, replaces the top level",
        "test_strict_reads_top_level_keys_beside_a_nested_solution",
    ),
    Difference(
        ("minimum_cost_flow",),
        "a flow keyed by no arc of the instance is an error",
        "drops it",
        "_unknown_arc",
    ),
    Difference(
        ("capacitated_network_design",),
        "flow on an arc the answer marks as not installed is infeasible",
        "installs the arc silently",
        "_flow_on_uninstalled_arc",
    ),
    Difference(
        ("resource_constrained_shortest_path",),
        "the selected arcs form one source-sink path, and a node path agrees with them",
        "also takes a path plus a detached cycle",
        "_disagreeing_path",
    ),
    Difference(
        ("resource_constrained_shortest_path",),
        "every bound of a dual-resource instance (`resource_bounds`) holds",
        "checks only `resource_bound`, which those instances lack",
        "_path_over_one_bound",
    ),
    Difference(
        ("time-expanded_multi-period_network_flow",),
        "inventory is non-negative and held only at storage nodes",
        "checks neither",
        "_inventory_off_storage",
    ),
    Difference(
        ("facility_location",),
        "a `structural_extension` budget caps the opening cost",
        "does not check it",
        "_budget_lowered",
    ),
    Difference(
        ("facility_location",),
        "an assignment naming a customer the instance lacks is infeasible",
        "ignores it",
        "_unknown_customer",
    ),
    Difference(
        ("generalized_assignment_problem",),
        "an assignment naming a task the instance lacks is infeasible",
        "ignores it",
        "_unknown_task",
    ),
    Difference(
        ("p_median_center",),
        "an assignment naming a demand point the instance lacks is infeasible",
        "ignores it",
        "_unknown_demand_point",
    ),
    Difference(
        ("p_median_center",),
        "an open-site list naming a site twice or one the instance lacks is infeasible",
        "counts the distinct names against p",
        "_open_site_listed_twice",
    ),
)


def differences_for(subcategory: str) -> list[Difference]:
    """The rows of :data:`DIFFERENCES` that apply to ``subcategory``."""
    has_rules = official_rules(subcategory) is not None
    rows = []
    for row in DIFFERENCES:
        if WITH_OFFICIAL_RULES in row.applies_to:
            if has_rules:
                rows.append(row)
        elif WITH_VALIDATOR in row.applies_to:
            if not has_rules:
                rows.append(row)
        elif row.applies(subcategory):
            rows.append(row)
    return rows


def markdown() -> str:
    """``docs/mmopt-official.md``: per subcategory where the two modes differ, and the test."""
    lines = [
        "# MM-OptBench: `--scoring=strict` versus `--scoring=official`",
        "",
        "Generated by `.venv/bin/python scripts/mmopt_official_table.py > docs/mmopt-official.md` "
        "from `benchmark/suites/mmopt/official_differences.py`; `tests/test_official_differences.py` "
        "keeps this page equal to it. `official` gives the release scorer's verdict "
        "(`evaluation/scoring.py` of ZhongLIFR/MM-OptBench); `strict` (the default) applies the same "
        "checks and the rules below. Each row names the test that shows both verdicts on a shipped "
        "official package (`tests/test_official_scoring_modes.py`, "
        "`tests/test_official_answer_kinds.py`).",
        "",
        "| subcategory | scored by | strict | official | shown by |",
        "|---|---|---|---|---|",
    ]
    for name in sorted(all_subcategories()):
        scored_by = "official rules" if official_rules(name) is not None else "its validator"
        for row in differences_for(name):
            lines.append(f"| {name} | {scored_by} | {row.strict} | {row.official} | `{row.shown_by}` |")
    lines += [
        "",
        "Beside the tests named, the parity test (`tests/test_official_answer_kinds.py`) scores "
        "every answer kind on every shipped official package and expects the verdict "
        "the release's own scorer gave the same answer: `scripts/official_verdicts.py` ran it once "
        "on a copy of the release and its verdicts are kept as data "
        "(`tests/data/official_mmopt/official_verdicts.json`). Inventory routing, unit commitment, "
        "parallel machines, flexible flow shop, vehicle routing and logical models read decisions "
        "in both modes from the release's other keys when the first is missing or unreadable "
        "(routes from `active_arcs` or arcs per period, the commitment from "
        "`online_units_by_period`, machines from schedule records, starts from completion times, "
        "truth values from `true_variables`).",
        "",
    ]
    return "\n".join(lines)
