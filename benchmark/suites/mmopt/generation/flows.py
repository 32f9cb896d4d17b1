"""Reading and checking arc flows returned by generated code (network-family validators).

Models write arc keys in many ways; a validator that only accepted ``"u_v"`` would score correct
models as infeasible for a formatting choice the task text cannot fully pin down. Accepted forms of
the ``flows`` value:

* a dict keyed ``"u_v"``, ``"(u, v)"`` / ``"('u', 'v')"``, ``"u->v"``, ``"u→v"``, ``"u,v"`` or
  ``"u-v"`` (node labels without those separators), with numeric values;
* a dict of dicts ``{u: {v: flow}}``;
* a list of records ``{"from"|"u"|"source"|"tail"|"i": u, "to"|"v"|"target"|"head"|"j": v,
  "flow"|"value"|"amount"|"x": flow}``, or of ``[u, v, flow]`` triples.

Arcs that are not mentioned carry zero flow. A key that names no arc of the instance is only a
problem when its flow is nonzero.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from benchmark.suites.mmopt.generation.decisions import first_present, number

TOLERANCE = 1e-6

_KEY = re.compile(
    r"""^\s*[\(\[]?\s*['"]?(?P<u>[^\s_,()\[\]'"\->→]+)['"]?\s*(?:_|->|→|,|-)\s*['"]?(?P<v>[^\s_,()\[\]'"\->→]+)['"]?\s*[\)\]]?\s*$"""
)
_FROM_KEYS = ("from", "u", "source", "tail", "i", "start")
_TO_KEYS = ("to", "v", "target", "head", "j", "end")
_FLOW_KEYS = ("flow", "value", "amount", "x", "quantity")
OBJECTIVE_KEYS = ("objective_value", "objective", "objective_exact", "total_cost", "cost", "value")


def fmt(value: float) -> str:
    """Numbers in problem strings: integers without a decimal point, others to 6 significant digits."""
    if math.isfinite(value) and abs(value - round(value)) < 1e-9:
        return str(round(value))
    return f"{value:.6g}"


def _entries(raw: Any) -> tuple[list[tuple[str, str, Any, str]], list[str]]:
    """(tail, head, raw flow, how it was written) for every entry, plus unreadable-entry problems."""
    entries: list[tuple[str, str, Any, str]] = []
    problems: list[str] = []
    if isinstance(raw, Mapping):
        for key, value in raw.items():
            if isinstance(value, Mapping):
                for head, inner in value.items():
                    entries.append((str(key), str(head), inner, f"{key}->{head}"))
                continue
            if isinstance(key, tuple) and len(key) == 2:
                entries.append((str(key[0]), str(key[1]), value, str(key)))
                continue
            match = _KEY.match(str(key))
            if match is None:
                if number(value) not in (None, 0.0):
                    problems.append(f"unreadable flow key {str(key)[:40]!r}")
                continue
            entries.append((match["u"], match["v"], value, str(key)))
    elif isinstance(raw, list | tuple):
        for item in raw:
            if isinstance(item, Mapping):
                u, v = first_present(item, _FROM_KEYS), first_present(item, _TO_KEYS)
                value = first_present(item, _FLOW_KEYS)
            elif isinstance(item, list | tuple) and len(item) == 3:
                u, v, value = item
            else:
                problems.append(f"unreadable flow record {str(item)[:40]!r}")
                continue
            if u is None or v is None:
                problems.append(f"flow record without endpoints {str(item)[:40]!r}")
                continue
            entries.append((str(u), str(v), value, f"{u}->{v}"))
    else:
        problems.append(f"flows is a {type(raw).__name__}, not a dict or list")
    return entries, problems


def parse_flows(raw: Any, arcs: Sequence[tuple[str, str]]) -> tuple[dict[tuple[str, str], float], list[str]]:
    """Flow per arc (every arc present, unmentioned ones 0) and the problems found while reading.

    ``arcs`` are (tail, head) node labels as strings.
    """
    arc_set = set(arcs)
    flows: dict[tuple[str, str], float] = dict.fromkeys(arcs, 0.0)
    seen: dict[tuple[str, str], float] = {}
    entries, problems = _entries(raw)
    for u, v, value, written in entries:
        amount = number(value)
        if amount is None:
            problems.append(f"arc {u}_{v}: flow {str(value)[:20]!r} is not a number")
            continue
        pair = (u, v)
        if pair not in arc_set:
            if abs(amount) > TOLERANCE:
                problems.append(f"flow {fmt(amount)} on non-existent arc {u}_{v}")
            continue
        if pair in seen and abs(seen[pair] - amount) > TOLERANCE:
            problems.append(f"arc {u}_{v}: given twice with different flows ({written})")
            continue
        seen[pair] = amount
        flows[pair] = amount
    return flows, problems


def bound_problems(
    flows: Mapping[tuple[str, str], float], capacity: Mapping[tuple[str, str], float]
) -> list[str]:
    """0 ≤ flow ≤ capacity on every arc, with :data:`TOLERANCE`."""
    problems = []
    for (u, v), value in flows.items():
        if value < -TOLERANCE:
            problems.append(f"arc {u}_{v}: negative flow {fmt(value)}")
        elif value > capacity[(u, v)] + TOLERANCE:
            problems.append(f"arc {u}_{v}: flow {fmt(value)} exceeds capacity {fmt(capacity[(u, v)])}")
    return problems


def net_outflow(flows: Mapping[tuple[str, str], float], nodes: Sequence[str]) -> dict[str, float]:
    """Outflow minus inflow per node."""
    net = dict.fromkeys(nodes, 0.0)
    for (u, v), value in flows.items():
        net[u] += value
        net[v] -= value
    return net


def inflow_outflow(flows: Mapping[tuple[str, str], float], node: str) -> tuple[float, float]:
    inflow = sum(value for (_, v), value in flows.items() if v == node)
    outflow = sum(value for (u, _), value in flows.items() if u == node)
    return inflow, outflow


def close(a: float, b: float) -> bool:
    """Equality up to the absolute tolerance, loosened by a relative term for large sums."""
    return abs(a - b) <= TOLERANCE + 1e-9 * max(abs(a), abs(b))


def reported_objective(solution: Mapping[str, Any]) -> float | None:
    """The objective the code claims, under the official key or its aliases."""
    for key in OBJECTIVE_KEYS:
        if key in solution:
            return number(solution[key])
    return None
