"""Artifacts of a unit-commitment package, all derived from the verified record.

The task text says which figure holds which panel, states the rules in words and the output
contract; every demand, cost, output range and time limit is read from the figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.protocol import DerivedArtifacts, VerifiedRecord
from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.generator import (
    formulation_size,
    simple_plan_costs,
)
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.model import (
    has_min_up_down,
    has_ramping,
    units_periods,
)
from benchmark.suites.mmopt.subcategories.energy_dispatch_unit_commitment.renderer import panel_files

PANEL_WORDS = {
    "table": (
        "the generator economics table (per generator: marginal cost per unit of output, startup cost{extra})"
    ),
    "demand": "the demand timeline (the exact system demand of every period, periods in time order)",
    "bands": "the output ranges (per generator, a bar from its minimum to its maximum output when on)",
}
RULES = (
    "Rules: in every period each generator is either on or off. A generator that is on produces "
    "between its minimum and maximum output (both inclusive); one that is off produces nothing. "
    "Total generation in every period must equal that period's demand exactly. A generator that is "
    "on in a period and was off in the period before pays its startup cost once."
)
ALL_OFF = "Every generator is off before the first period."
INITIAL = (
    'The "initially" column gives each generator\'s state before the first period and "initial '
    'output" its output then; a generator that is on at the first period after being on before it '
    "does not pay a startup."
)
MIN_UP_DOWN = (
    "Minimum up and down times: a generator that starts up in a period must stay on for at least "
    'its "min up" number of periods counted from that period, and one that switches off must stay '
    'off for at least its "min down" number of periods counted from the period it is first off '
    "(both cut at the end of the horizon; the state before the horizon carries no such obligation)."
)
RAMPING = (
    "Ramp limit: between two consecutive periods in which a generator is on (the period before the "
    "horizon included, with its initial output), its output may rise or fall by at most its ramp "
    "limit; starting up or switching off is not limited by it."
)
TASK = (
    "Task: decide which generators are on in each period and how much each produces so that the "
    "total cost (marginal cost times output, summed over generators and periods, plus startup "
    "costs) is minimal. There are no reserves, network limits, shutdown costs or load shedding. All "
    "data must be read from the figures."
)
CONTRACT = output_contract(
    """\
- "status": "optimal" when an optimal plan is found;
- "objective_value": the minimum total cost, as a number;
- "generation": {generator: {period: output}}, names as in the figures
  (for example {"G1": {"t1": <number>, ...}, ...});
- "commitment": {generator: {period: one if the generator is on, zero if it is off}};
- "startup": {generator: {period: one if the generator starts up in that period, else zero}}.
"""
)


def _where(instance: Mapping[str, Any]) -> str:
    extra = ""
    if has_min_up_down(instance):
        extra += ", minimum up and down times"
    if has_ramping(instance):
        extra += ", ramp limit"
    if any(instance["initial_status"].values()):
        extra += ", state and output before the first period"
    words = {k: v.format(extra=extra) if k == "table" else v for k, v in PANEL_WORDS.items()}
    files = panel_files(instance)
    if len(files) == 1:
        return (
            "The figure visual_0.png holds, from top to bottom, "
            + "; ".join(words[p] for p in files[0])
            + "."
        )
    parts = [
        f"visual_{i}.png holds " + " and, below it, ".join(words[p] for p in panels)
        for i, panels in enumerate(files)
    ]
    return "The figures: " + "; ".join(parts) + "."


def task_input(instance: Mapping[str, Any]) -> str:
    paragraphs = [
        _where(instance),
        RULES + " " + (INITIAL if any(instance["initial_status"].values()) else ALL_OFF),
    ]
    if has_min_up_down(instance):
        paragraphs.append(MIN_UP_DOWN)
    if has_ramping(instance):
        paragraphs.append(RAMPING)
    title = "Energy dispatch and unit commitment (multi-period and system planning)"
    return task_text(title, *paragraphs, TASK, contract=CONTRACT)


def canonical_specification(record: VerifiedRecord) -> str:
    instance = record.instance
    units, periods = units_periods(instance)
    fields = ["cost", "startup_cost", "pmin", "pmax"]
    if has_min_up_down(instance):
        fields += ["min_up", "min_down"]
    if has_ramping(instance):
        fields += ["ramp_up", "ramp_down", "initial_output"]
    fields.append("initial_status")
    lines = "\n".join(f"- {g}: " + ", ".join(f"{f}={instance[f][g]}" for f in fields) for g in units)
    demand = ", ".join(f"{t}={instance['demand'][t]}" for t in periods)
    meta = "\n".join(f"- {k}={v}" for k, v in instance["meta_parameters"].items())
    figures = "; ".join(f"visual_{i}.png: {', '.join(p)}" for i, p in enumerate(panel_files(instance)))
    constraints = [
        "- Power balance: total generation equals demand in every period.",
        "- Output within [pmin, pmax] when on, zero when off.",
        "- Startup in t when on in t and off in t-1 (initial status before t1); startup cost paid.",
    ]
    if has_min_up_down(instance):
        constraints.append("- Minimum up/down times from a start/stop, cut at the horizon end.")
    if has_ramping(instance):
        constraints.append("- Ramp limits between consecutive online periods (initial output before t1).")
    return (
        "This is a unit commitment and economic dispatch problem.\n\n"
        f"Instance ID: {record.instance_id}\nVariant: {instance['variant']}\n"
        f"Difficulty: {record.difficulty}\n\n"
        f"Generators:\n{lines}\n\nDemand: {demand}\n\n"
        "Objective:\n- Minimize marginal generation cost plus startup cost.\n\n"
        "Constraints:\n" + "\n".join(constraints) + "\n\n"
        f"Metadata:\n{meta}\n\nVisual interpretation:\n- {figures}.\n\n"
        "Output contract:\n- solve() returns status, objective_value, generation, commitment and startup.\n"
    )


def math_model(record: VerifiedRecord) -> str:
    instance = record.instance
    solution = record.reference.solution
    units, periods = units_periods(instance)
    plans = ", ".join(
        f"{name.replace('_', ' ')} {'infeasible' if c is None else f'{c:g}'}"
        for name, c in simple_plan_costs(instance).items()
    )
    binding = ", ".join(
        f"{g}: {' '.join(ts)}" for g, ts in solution["binding_capacity_periods"].items() if ts
    )
    extra = ""
    if has_min_up_down(instance):
        extra += (
            "- Minimum up: $u_{g\\tau} \\ge u_{gt} - u_{g,t-1}$ for $\\tau = t+1, \\dots, "
            "\\min(T, t + UT_g - 1)$\n"
            "- Minimum down: $u_{g\\tau} \\le 1 - u_{g,t-1} + u_{gt}$ for $\\tau = t+1, \\dots, "
            "\\min(T, t + DT_g - 1)$\n"
        )
    if has_ramping(instance):
        extra += (
            "- Ramping: $p_{gt} - p_{g,t-1} \\le R_g + \\bar P_g (1 - u_{g,t-1})$ and "
            "$p_{g,t-1} - p_{gt} \\le R_g + \\bar P_g (1 - u_{gt})$ ($p_{g0}$, $u_{g0}$ the initial state)\n"
        )
    times = ", $UT_g$ / $DT_g$ minimum up / down time" if has_min_up_down(instance) else ""
    ramps = ", $R_g$ ramp limit, $p_{g0}$ initial output" if has_ramping(instance) else ""
    return f"""# Unit commitment and economic dispatch — {record.instance_id}

## Sets
- $G$: generators ({len(units)}), $T$: periods ({len(periods)}), in order

## Parameters
- $D_t$ demand, $c_g$ marginal cost, $f_g$ startup cost, $\\underline P_g$ / $\\bar P_g$ minimum / maximum
  output, $u_{{g0}}$ initial status{times}{ramps}

## Decision variables
- $p_{{gt}} \\ge 0$ output, $u_{{gt}} \\in \\{{0, 1\\}}$ on/off, $v_{{gt}} \\in \\{{0, 1\\}}$ startup

## Objective
$$\\min \\; \\sum_{{g, t}} \\left(c_g p_{{gt}} + f_g v_{{gt}}\\right)$$

## Constraints
- Balance: $\\sum_g p_{{gt}} = D_t$ for all $t$
- Output range: $\\underline P_g u_{{gt}} \\le p_{{gt}} \\le \\bar P_g u_{{gt}}$
- Startup link: $v_{{gt}} \\ge u_{{gt}} - u_{{g,t-1}}$
{extra}
## Instance notes
- Verified minimum cost: **{solution["objective_value"]}** ({record.reference.method}); cross-checked by
  {record.cross_check_method} (value {record.cross_check_objective:g}).
- Generators at maximum output in the reference plan: {binding or "none"}.
- Simple plans for comparison (cheapest dispatch of a fixed commitment): {plans}.
"""


SOLVER_TEMPLATE = '''\
"""Reference solver for {instance_id} (unit commitment), generated from the verified record.

Self-contained: the instance data is embedded below, nothing is read from disk.
"""

from __future__ import annotations

import json

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

GENERATORS = {units!r}
PERIODS = {periods!r}
DEMAND = {demand!r}
COST = {cost!r}
STARTUP_COST = {startup!r}
PMIN = {pmin!r}
PMAX = {pmax!r}
INITIAL_STATUS = {initial_status!r}
MIN_UP = {min_up!r}  # empty: no minimum up/down times
MIN_DOWN = {min_down!r}
RAMP = {ramp!r}  # empty: no ramp limits
INITIAL_OUTPUT = {initial_output!r}


def solve() -> dict:
    nG, nT = len(GENERATORS), len(PERIODS)
    block = nG * nT
    p = lambda g, t: g * nT + t  # noqa: E731  (output, then on/off, then startup blocks)
    u = lambda g, t: block + g * nT + t  # noqa: E731
    v = lambda g, t: 2 * block + g * nT + t  # noqa: E731
    n = 3 * block
    cost, lower, upper = np.zeros(n), np.zeros(n), np.ones(n)
    rows, lo, hi = [], [], []

    def add(row, low, high):
        rows.append(row)
        lo.append(low)
        hi.append(high)

    for t in range(nT):
        add({{p(g, t): 1.0 for g in range(nG)}}, DEMAND[t], DEMAND[t])
    for g, G in enumerate(GENERATORS):
        u0 = INITIAL_STATUS[G]
        for t in range(nT):
            cost[p(g, t)], cost[v(g, t)] = COST[G], STARTUP_COST[G]
            upper[p(g, t)] = PMAX[G]
            add({{p(g, t): 1.0, u(g, t): -PMAX[G]}}, -np.inf, 0.0)
            add({{p(g, t): 1.0, u(g, t): -PMIN[G]}}, 0.0, np.inf)
            row = {{v(g, t): 1.0, u(g, t): -1.0}}  # v_t >= u_t - u_(t-1)
            if t:
                row[u(g, t - 1)] = 1.0
            add(row, -u0 if t == 0 else 0.0, np.inf)  # startup linking
            if MIN_UP:
                for later in range(t + 1, min(nT, t + MIN_UP[G])):  # a start keeps it on
                    row = {{u(g, later): 1.0, u(g, t): -1.0}}
                    if t:
                        row[u(g, t - 1)] = 1.0
                    add(row, -u0 if t == 0 else 0.0, np.inf)
                for later in range(t + 1, min(nT, t + MIN_DOWN[G])):  # a stop keeps it off
                    row = {{u(g, later): 1.0, u(g, t): -1.0}}
                    if t:
                        row[u(g, t - 1)] = 1.0
                    add(row, -np.inf, 1.0 - (u0 if t == 0 else 0.0))
            if RAMP:
                if t:
                    add({{p(g, t): 1.0, p(g, t - 1): -1.0, u(g, t - 1): PMAX[G]}}, -np.inf, RAMP[G] + PMAX[G])
                    add({{p(g, t - 1): 1.0, p(g, t): -1.0, u(g, t): PMAX[G]}}, -np.inf, RAMP[G] + PMAX[G])
                else:
                    add({{p(g, t): 1.0}}, -np.inf, RAMP[G] + PMAX[G] * (1 - u0) + INITIAL_OUTPUT[G])
                    add({{p(g, t): -1.0, u(g, t): PMAX[G]}}, -np.inf, RAMP[G] + PMAX[G] - INITIAL_OUTPUT[G])
    matrix = np.zeros((len(rows), n))
    for r, row in enumerate(rows):
        for column, value in row.items():
            matrix[r, column] += value
    integrality = np.zeros(n)
    integrality[block:] = 1
    result = milp(cost, constraints=[LinearConstraint(matrix, lo, hi)], integrality=integrality,
                  bounds=Bounds(lower, upper), options={{"mip_rel_gap": 0.0}})
    if result.status != 0:
        return {{"status": "infeasible" if result.status == 2 else "error", "objective_value": None}}
    x = result.x
    generation = {{G: {{T: round(float(x[p(g, t)]), 6) + 0.0 for t, T in enumerate(PERIODS)}}
                  for g, G in enumerate(GENERATORS)}}
    flags = lambda at: {{G: {{T: int(round(x[at(g, t)])) for t, T in enumerate(PERIODS)}}  # noqa: E731
                        for g, G in enumerate(GENERATORS)}}
    commitment, startup = flags(u), flags(v)
    return {{
        "status": "optimal",
        "objective_value": round(float(result.fun), 6),
        "generation": generation,
        "commitment": commitment,
        "startup": startup,
    }}


if __name__ == "__main__":
    print(json.dumps(solve()))
'''


def solver_ref(record: VerifiedRecord) -> str:
    instance = record.instance
    units, periods = units_periods(instance)
    return SOLVER_TEMPLATE.format(
        instance_id=record.instance_id,
        units=units,
        periods=periods,
        demand=[instance["demand"][t] for t in periods],
        cost=dict(instance["cost"]),
        startup=dict(instance["startup_cost"]),
        pmin=dict(instance["pmin"]),
        pmax=dict(instance["pmax"]),
        initial_status=dict(instance["initial_status"]),
        min_up=dict(instance.get("min_up", {})),
        min_down=dict(instance.get("min_down", {})),
        ramp=dict(instance.get("ramp_up", {})),
        initial_output=dict(instance.get("initial_output", {})),
    )


def derive(record: VerifiedRecord) -> DerivedArtifacts:
    instance = record.instance
    meta = instance["meta_parameters"]
    tags = [
        meta["demand_pattern"],
        meta["capacity_regime"],
        "min_up_down" if meta["minimum_up_down_flag"] else "no_min_up_down",
        "ramping" if meta["ramping_flag"] else "no_ramping",
        f"figures_{len(panel_files(instance))}",
        f"units_{meta['number_units']}",
        f"periods_{meta['number_periods']}",
    ]
    return DerivedArtifacts(
        task_input=task_input(instance),
        canonical_specification=canonical_specification(record),
        math_model=math_model(record),
        solver_ref=solver_ref(record),
        regime_tags=tuple(tags),
        formulation_size=formulation_size(instance),
    )
