"""Scoring-time check of a returned multi-period flow plan (transport per period plus stock)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from benchmark.suites.mmopt.generation.flows import (
    TOLERANCE,
    close,
    fmt,
    inflow_outflow,
    parse_flows,
    reported_objective,
)
from benchmark.suites.mmopt.subcategories.base import SolutionCheck

STORAGE_KEYS = ("storage", "stock", "inventory", "holding", "hold", "storage_flows")
_PERIOD = re.compile(r"^\s*(?:period|t|p)?[\s_]*(\d+)\s*$", re.IGNORECASE)
_FLAT_FLOW = re.compile(
    r"^\s*[\(\[]?\s*['\"]?(\w+?)['\"]?\s*[_,]\s*['\"]?(\w+?)['\"]?\s*[_,@]\s*['\"]?(\d+)['\"]?\s*[\)\]]?\s*$"
)
_FLAT_STOCK = re.compile(r"^\s*[\(\[]?\s*['\"]?(\w+?)['\"]?\s*[_,@]\s*['\"]?(\d+)['\"]?\s*[\)\]]?\s*$")


def _period(key: Any) -> int | None:
    match = _PERIOD.match(str(key))
    return int(match.group(1)) if match else None


def _by_period(raw: Any, periods: int, name: str, flat: re.Pattern[str]) -> tuple[dict[int, Any], list[str]]:
    """Split a per-period decision into ``{period: inner value}``.

    Accepted: a dict keyed by period (``1``, ``"1"``, ``"t1"``, ``"period_1"``) whose values are the
    period's decisions; a list with one entry per period (the first is period 1); or a flat dict
    keyed ``"u_v_t"`` (flows) / ``"i_t"`` (stock), where ``t`` is the period.
    """
    if isinstance(raw, list | tuple):
        if len(raw) not in (periods, periods - 1) or (name == "flows" and len(raw) != periods):
            return {}, [f"{name}: a list needs one entry per period"]
        return {t + 1: value for t, value in enumerate(raw)}, []
    if not isinstance(raw, Mapping):
        return {}, [f"{name} is a {type(raw).__name__}, not a dict keyed by period"]
    if all(isinstance(value, Mapping | list) for value in raw.values()):
        split: dict[int, Any] = {}
        for key, value in raw.items():
            period = _period(key)
            if period is None:
                return {}, [f"{name}: unreadable period key {str(key)[:30]!r}"]
            split[period] = value
        return split, []
    grouped: dict[int, dict[str, Any]] = {}
    for key, value in raw.items():
        match = flat.match(str(key))
        if match is None:
            return {}, [f"{name}: unreadable key {str(key)[:30]!r}"]
        *parts, period = match.groups()
        grouped.setdefault(int(period), {})["_".join(parts)] = value
    return dict(grouped), []


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _stock(raw: Any, nodes: list[str], name: str) -> tuple[dict[str, float], list[str]]:
    if isinstance(raw, list | tuple) and len(raw) == len(nodes):
        raw = dict(zip(nodes, raw, strict=True))
    if not isinstance(raw, Mapping):
        return {}, [f"{name}: not a dict keyed by node"]
    stock = dict.fromkeys(nodes, 0.0)
    problems = []
    for key, value in raw.items():
        node, number = str(key).strip(), _number(value)
        if number is None:
            problems.append(f"{name}: node {node} value {str(value)[:20]!r} is not a number")
        elif node not in stock:
            if abs(number) > TOLERANCE:
                problems.append(f"{name}: unknown node {node}")
        else:
            stock[node] = number
    return stock, problems


def check_solution(instance: Mapping[str, Any], solution: Mapping[str, Any]) -> SolutionCheck:
    """Feasibility of the returned plan and its cost recomputed from it.

    ``flows`` gives each period's transport, keyed by period (1 = first): ``{"1": {"u_v": x}, …}``;
    the inner dicts take every form :mod:`~benchmark.suites.mmopt.generation.flows` reads, and a
    list of per-period dicts or a flat dict keyed ``"u_v_t"`` is accepted too. ``storage``
    (aliases: ``stock``, ``inventory``, ``holding``, ``hold``, ``storage_flows``) gives the stock
    each node carries from period t into t + 1, ``{"1": {"i": s}, …}`` (or flat ``"i_t"``); missing
    entries are 0, and stock after the last period must be 0. Checks: 0 ≤ flow ≤ the period's
    capacity, 0 ≤ stock ≤ storage capacity, and at every node and period, net supply plus inflow
    plus stock brought in equals outflow plus stock carried on. The cost is transport unit cost ×
    flow per period plus holding cost × stock.
    """
    periods = int(instance["periods"])
    nodes = [str(n) for n in instance["nodes"]]
    pairs = [(str(a["from"]), str(a["to"])) for a in instance["arcs"]]
    by_pair = dict(zip(pairs, instance["arcs"], strict=True))
    raw_flows = solution.get("flows")
    if raw_flows is None:
        return SolutionCheck(feasible=False, objective=None, problems=("no flows returned",))
    flow_split, problems = _by_period(raw_flows, periods, "flows", _FLAT_FLOW)
    raw_stock = next((solution[key] for key in STORAGE_KEYS if solution.get(key) is not None), {})
    stock_split, stock_problems = _by_period(raw_stock, periods, "storage", _FLAT_STOCK)
    problems += stock_problems
    if problems:
        return SolutionCheck(feasible=False, objective=None, problems=tuple(problems))
    for t in sorted(set(flow_split) - set(range(1, periods + 1))):
        problems.append(f"flows: no period {t}")
    flows: dict[int, dict[tuple[str, str], float]] = {}
    for t in range(1, periods + 1):
        flows[t], found = parse_flows(flow_split.get(t, {}), pairs)
        problems += [f"period {t}: {problem}" for problem in found]
    stock: dict[int, dict[str, float]] = {0: dict.fromkeys(nodes, 0.0)}
    for t in range(1, periods + 1):
        stock[t], found = _stock(stock_split.get(t, {}), nodes, f"storage period {t}")
        problems += found
    for t in sorted(set(stock_split) - set(range(1, periods + 1))):
        if any(abs(v) > TOLERANCE for v in _stock(stock_split[t], nodes, "storage")[0].values()):
            problems.append(f"storage: no period {t}")

    total = 0.0
    for t in range(1, periods + 1):
        for pair, value in flows[t].items():
            capacity = by_pair[pair]["capacity"][t - 1]
            if value < -TOLERANCE:
                problems.append(f"period {t}: arc {pair[0]}_{pair[1]} negative flow {fmt(value)}")
            elif value > capacity + TOLERANCE:
                problems.append(
                    f"period {t}: arc {pair[0]}_{pair[1]} flow {fmt(value)} exceeds capacity {capacity}"
                )
            total += by_pair[pair]["cost"][t - 1] * value
        for node in nodes:
            held = stock[t][node]
            if held < -TOLERANCE:
                problems.append(f"period {t}: node {node} negative stock {fmt(held)}")
            elif t == periods and held > TOLERANCE:
                problems.append(f"node {node}: stock {fmt(held)} left after the last period")
            elif held > instance["storage_capacity"][node] + TOLERANCE:
                limit = instance["storage_capacity"][node]
                problems.append(f"period {t}: node {node} stock {fmt(held)} exceeds storage {limit}")
            total += instance["holding_cost"][node] * held if t < periods else 0.0
            inflow, outflow = inflow_outflow(flows[t], node)
            available = instance["supply"][node][t - 1] + inflow + stock[t - 1][node]
            if not close(available, outflow + held):
                problems.append(
                    f"period {t}: node {node} balance off by {fmt(available - outflow - held)} "
                    "(supply + inflow + stock in != outflow + stock out)"
                )
    reported = reported_objective(solution)
    if reported is not None and not close(reported, total):
        problems.append(f"reported objective {fmt(reported)} != recomputed cost {fmt(total)}")
    return SolutionCheck(feasible=not problems, objective=total, problems=tuple(problems))
