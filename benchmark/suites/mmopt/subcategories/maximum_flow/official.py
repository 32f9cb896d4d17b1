"""Maximum flow under the official rules: a flow value, a flow on each arc and a certifying cut.

Official instance: ``nodes``, ``source``, ``sink``, ``arcs: [{from, to, capacity}]``. The answer
must give the flow value (every flow-value alias present must agree), arc flows within capacity
that balance at every node, and a partition (S, T) of all nodes, source in S, sink in T, whose
capacity equals the flow value. This is the only subcategory whose official check reads
``status``: an answer that says "infeasible" is rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt import official_answers as read
from benchmark.suites.mmopt.official import infeasible
from benchmark.suites.mmopt.subcategories.base import OfficialCheck

REFERENCE_KEYS: tuple[str, ...] = ("max_flow_value", "objective_value")
FLOW_VALUE_KEYS: tuple[str, ...] = (
    "max_flow",
    "maximum_flow",
    "maximum_flow_value",
    "max_flow_value",
    "flow_value",
    "objective_exact",
    "objective_value",
    "minimum_cut_value",
    "cut_value",
)
#: Every key that, when present, must equal the flow value.
AGREEING_KEYS: tuple[str, ...] = ("min_cut_value", *FLOW_VALUE_KEYS)
ARC_FLOW_KEYS: tuple[str, ...] = (
    "arc_flows",
    "arc_flow",
    "flow_on_arc",
    "flow_on_arcs",
    "optimal_flow",
    "optimal_flows",
    "optimal_arc_flows",
    "optimal_flow_on_arcs",
    "flows",
    "flow",
    "flow_dict",
)
CUT_KEYS: tuple[str, ...] = (
    "min_cut",
    "minimum_cut",
    "minimum_cut_partition",
    "min_cut_partition",
    "min_cut_set",
)
SIDE_NAMES: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("S", "source_side", "source_partition"),
    ("T", "sink_side", "sink_partition"),
)
FLAT_SIDES: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("min_cut_S", "minimum_cut_S", "cut_S", "min_cut_set_S", "source_side"),
    ("min_cut_T", "minimum_cut_T", "cut_T", "min_cut_set_T", "sink_side"),
)
OPTIONAL_KEYS: frozenset[str] = frozenset()


def reads(instance: Mapping[str, Any]) -> bool:
    arcs = instance.get("arcs")
    return (
        isinstance(arcs, list)
        and "source" in instance
        and all(isinstance(a, Mapping) and "from" in a and "capacity" in a for a in arcs)
    )


def _arc_flows(answer: Mapping[str, Any], problems: list[str]) -> dict[tuple[int, int], float]:
    flows: dict[tuple[int, int], float] = {}

    def add(endpoints: Any, raw_value: Any) -> None:
        value, pair = read.number(raw_value), read.int_pair(endpoints)
        if value is None or pair is None:
            problems.append(f"invalid arc-flow entry {endpoints}:{raw_value}")
            return
        if pair in flows:
            problems.append(f"duplicate arc-flow entry {pair}")
        flows[pair] = value

    for key in ARC_FLOW_KEYS:
        raw = answer.get(key)
        if key not in answer or raw is None or raw == {} or raw == []:
            continue
        if isinstance(raw, list):
            for item in raw:
                if isinstance(item, Mapping):
                    add(
                        (item.get("from"), item.get("to")),
                        item["flow"] if "flow" in item else item.get("value"),
                    )
                else:
                    problems.append(f"invalid arc-flow record {item}")
        elif isinstance(raw, Mapping) and any(isinstance(v, Mapping) for v in raw.values()):
            for tail, row in raw.items():
                if not isinstance(row, Mapping):
                    problems.append(f"invalid arc-flow row {tail}")
                    continue
                for head, value in row.items():
                    add((tail, head), value)
        elif isinstance(raw, Mapping):
            for endpoints, value in raw.items():
                add(endpoints, value)
        else:
            problems.append(f"invalid arc-flow mapping {key}")
        return flows
    return flows


def _side(value: Any) -> list[str]:
    if not isinstance(value, list | tuple | set):
        return []
    names = []
    for item in value:
        n = read.number(item)
        names.append(
            str(int(n)) if n is not None and n.is_integer() else str(n) if n is not None else str(item)
        )
    return names


def _first(raw: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    return next((raw.get(name) for name in names if name in raw), None)


def cut_partition(answer: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(S, T) from a cut record, a pair of lists, or flat ``min_cut_S``/``min_cut_T`` keys."""
    every_side_name = SIDE_NAMES[0] + SIDE_NAMES[1]
    for key in CUT_KEYS:
        raw = answer.get(key)
        if isinstance(raw, Mapping) and not any(name in raw for name in every_side_name):
            raw = raw.get("partition", raw)
        if (
            isinstance(raw, list | tuple)
            and len(raw) == 2
            and all(isinstance(s, list | tuple | set) for s in raw)
        ):
            return _side(raw[0]), _side(raw[1])
        if isinstance(raw, Mapping):
            source, sink = _side(_first(raw, SIDE_NAMES[0])), _side(_first(raw, SIDE_NAMES[1]))
            if source or sink:
                return source, sink
    return _side(_first(answer, FLAT_SIDES[0])), _side(_first(answer, FLAT_SIDES[1]))


def check(output: Any, instance: Mapping[str, Any], tolerance: float) -> OfficialCheck:
    answer = read.payload(output)
    if answer is None:
        return infeasible("the returned value is not a dict")
    if read.has_nonfinite(output):
        return infeasible("the answer holds a non-finite number")
    capacities: dict[tuple[int, int], float | None] = {}
    for arc in instance["arcs"]:
        pair = read.int_pair((arc.get("from"), arc.get("to")))
        if pair is not None:
            capacities[pair] = read.number(arc.get("capacity"))
    source_n, sink_n = read.number(instance.get("source")), read.number(instance.get("sink"))
    if source_n is None or sink_n is None or not source_n.is_integer() or not sink_n.is_integer():
        return infeasible("the instance has no integer source or sink")
    source, sink = int(source_n), int(sink_n)
    problems: list[str] = []
    value = read.reported_objective(answer, FLOW_VALUE_KEYS)
    flows = _arc_flows(answer, problems)
    nodes = {int(n["id"] if isinstance(n, Mapping) else n) for n in instance.get("nodes", [])}
    nodes |= {u for u, _ in capacities} | {v for _, v in capacities} | {source, sink}
    if value is None or value < -tolerance:
        problems.append("missing or invalid maximum-flow value")
    if not flows:
        problems.append("an arc-flow map is required")
    unknown = sorted(
        a for a, f in flows.items() if a not in capacities and (abs(f) > tolerance or not set(a) <= nodes)
    )
    if unknown:
        problems.append(f"unknown arcs in the flow map: {unknown}")
    for arc, capacity in capacities.items():
        flow = flows.get(arc, 0.0)
        if capacity is None or flow - capacity > tolerance:
            problems.append(f"arc {arc[0]}_{arc[1]}: flow {flow:g} exceeds capacity {capacity}")
        if flow < -tolerance:
            problems.append(f"arc {arc[0]}_{arc[1]}: negative flow {flow:g}")
    net_out_of_source = 0.0
    for node in sorted(nodes):
        inflow = sum(flows.get(a, 0.0) for a in capacities if a[1] == node)
        outflow = sum(flows.get(a, 0.0) for a in capacities if a[0] == node)
        if node == source:
            net_out_of_source = outflow - inflow
        target = value if node == source else -value if node == sink and value is not None else 0.0
        if target is not None and abs(outflow - inflow - target) > tolerance:
            problems.append(f"node {node}: flow balance {outflow - inflow:g}, expected {target:g}")
    source_side, sink_side = cut_partition(answer)
    s_set, t_set = set(source_side), set(sink_side)
    if (
        s_set & t_set
        or s_set | t_set != {str(n) for n in nodes}
        or str(source) not in s_set
        or str(sink) not in t_set
        or len(s_set) != len(source_side)
        or len(t_set) != len(sink_side)
    ):
        problems.append("the cut must partition all nodes, with the source in S and the sink in T")
    cut_capacity = sum(
        c for (u, v), c in capacities.items() if str(u) in s_set and str(v) in t_set and c is not None
    )
    if value is not None and abs(cut_capacity - value) > tolerance:
        problems.append(f"cut capacity {cut_capacity:g} differs from the flow value {value:g}")
    for key in AGREEING_KEYS:
        if answer.get(key) is not None:
            reported = read.number(answer[key])
            if reported is None or value is None or abs(reported - value) > tolerance:
                problems.append(f"reported {key} does not match the flow value {value}")
    if read.status(answer) == "infeasible":
        problems.append("reported infeasible, but a flow certificate was asked for")
    return OfficialCheck(
        feasible=not problems,
        objective=value,
        computed=net_out_of_source if flows else None,
        problems=tuple(problems[:10]),
    )
