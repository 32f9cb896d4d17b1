"""Reading a returned answer the way the official MM-OptBench scorer reads it.

The official scorer (``evaluation/scoring.py`` of the release) accepts many key names and shapes
for the same decision; these helpers implement those reading rules once, so every subcategory's
official check (``subcategories/<name>/official.py``) reads answers alike. They never raise on a
malformed answer: what cannot be read is simply absent, and the check reports it as a problem.

Rules (from the release, restated): numbers may be ints, floats or numeric strings (booleans are
ints); a nested ``solution`` dict, when present, *replaces* the top level; the objective is the
first readable of a subcategory-specific key list; an arc may be named by its id, by ``"u_v"``,
``"u->v"``, ``"u,v"``, ``"(u, v)"`` or ``[u, v]``, with prefixes such as ``flow_`` or ``x_``; an
assignment may map sources to targets, targets to lists of sources, or sources to nested records
(``{"assigned_site": "F3", ...}``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

#: Prefixes the official scorer strips from arc keys (``flow_1_2`` names arc ``1_2``).
ARC_KEY_PREFIXES: tuple[str, ...] = (
    "flow_",
    "flows_",
    "flowvalues_",
    "flow_values_",
    "arcflow_",
    "arc_flow_",
    "arcflows_",
    "arc_flows_",
    "optimalflow_",
    "optimal_flow_",
    "flowsolution_",
    "flow_solution_",
    "shipment_",
    "shipments_",
    "x_",
    "f_",
    "arc_",
    "edge_",
)
#: Keys under which an assignment may be returned, in the official order.
ASSIGNMENT_KEYS: tuple[str, ...] = (
    "assignments",
    "assignment",
    "matching",
    "customer_assignments",
    "task_assignments",
    "demand_assignments",
    "assignment_map",
)
#: Keys of a nested assignment record that name the target (``{"assigned_site": "F3"}``).
TARGET_KEYS: tuple[str, ...] = (
    "assigned_site",
    "assigned_facility",
    "assigned_agent",
    "assigned_route",
    "assigned_to",
    "site",
    "facility",
    "agent",
    "route",
    "target",
)


def number(value: Any) -> float | None:
    """A finite float from an int, float or numeric string; None otherwise."""
    if isinstance(value, int | float | str):
        try:
            result = float(value)
        except (ValueError, OverflowError):
            return None
        return result if math.isfinite(result) else None
    return None


def has_nonfinite(value: Any) -> bool:
    """Whether any number anywhere in ``value`` is NaN or infinite (the official scorer rejects it)."""
    if isinstance(value, Mapping):
        return any(has_nonfinite(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(has_nonfinite(item) for item in value)
    if isinstance(value, int | float | str):
        try:
            return not math.isfinite(float(value))
        except ValueError:
            return False
        except OverflowError:
            return True
    return False


def payload(output: Any) -> Mapping[str, Any] | None:
    """The dict the official scorer reads: the nested ``solution`` dict if any, else the output."""
    if not isinstance(output, Mapping):
        return None
    inner = output.get("solution")
    return inner if isinstance(inner, Mapping) else output


def status(answer: Mapping[str, Any]) -> str | None:
    """The reported status, lower-cased; anything mentioning "infeasible" reads as infeasible."""
    raw = answer.get("status")
    if raw is None:
        return None
    text = str(raw).strip().lower()
    return "infeasible" if "infeasible" in text else text


def reported_objective(answer: Mapping[str, Any], keys: Sequence[str]) -> float | None:
    """The first of ``keys`` that holds a number (a present but unreadable key is skipped)."""
    for key in keys:
        if key in answer:
            value = number(answer.get(key))
            if value is not None:
                return value
    return None


def split_key(key: Any, arity: int = 2) -> tuple[Any, ...] | None:
    """``"1_2"``, ``"1->2"``, ``"(1, 2)"``, ``[1, 2]`` → ``(1, 2)`` (ints where they parse)."""
    if isinstance(key, tuple | list):
        return tuple(key) if len(key) == arity else None
    text = str(key).strip().strip("()[]").replace(" ", "")
    if not text:
        return None
    for separator in ("->", "@", "_", ","):
        parts = text.split(separator)
        if len(parts) != arity or any(part == "" for part in parts):
            continue
        parsed: list[Any] = []
        for part in parts:
            try:
                parsed.append(int(part))
            except ValueError:
                parsed.append(part)
        return tuple(parsed)
    return None


def int_pair(key: Any) -> tuple[int, int] | None:
    """An arc as a pair of integer node ids, or None."""
    parts = split_key(key)
    if parts is None:
        return None
    numbers = [number(part) for part in parts]
    if any(n is None or not float(n).is_integer() for n in numbers):
        return None
    return int(numbers[0]), int(numbers[1])  # type: ignore[arg-type]


def arc_id(key: Any, arc_ids: set[str], endpoint_to_id: Mapping[tuple[int, int], str]) -> str | None:
    """The instance arc a returned key names (by id, endpoints, or a prefixed form), or None."""
    text = str(key).strip().replace(" ", "")
    candidates = [text, text.strip("()[]{}")]
    seen: set[str] = set()
    while candidates:
        candidate = candidates.pop(0)
        if not candidate or candidate in seen:
            continue
        seen.add(candidate)
        if candidate in arc_ids:
            return candidate
        lowered = candidate.lower()
        candidates.extend(candidate[len(p) :] for p in ARC_KEY_PREFIXES if lowered.startswith(p))
    pair = int_pair(key)
    return endpoint_to_id.get(pair) if pair is not None else None


def arc_values(
    answer: Mapping[str, Any],
    keys: Sequence[str],
    arc_ids: set[str],
    endpoint_to_id: Mapping[tuple[int, int], str],
) -> tuple[dict[str, float], list[str]]:
    """Per-arc values from the first of ``keys`` that yields any: a dict keyed by arc, or a list of
    ``{"id"|"from","to", "flow"|"value"|"quantity"}`` records. Returns (values, unread keys):
    the official scorer silently drops keys naming no instance arc; the second list keeps them."""
    for key in keys:
        raw = answer.get(key)
        values: dict[str, float] = {}
        unread: list[str] = []
        if isinstance(raw, Mapping):
            for raw_key, raw_value in raw.items():
                value = number(raw_value)
                if value is None:
                    continue
                name = arc_id(raw_key, arc_ids, endpoint_to_id)
                if name is None:
                    unread.append(str(raw_key))
                else:
                    values[name] = value
        elif isinstance(raw, list):
            for item in raw:
                if not isinstance(item, Mapping):
                    continue
                value = number(item.get("flow") or item.get("value") or item.get("quantity"))
                if value is None:
                    continue
                name = None
                if item.get("id") is not None and (not arc_ids or str(item["id"]) in arc_ids):
                    name = str(item["id"])
                if name is None:
                    pair = int_pair((item.get("from"), item.get("to")))
                    name = endpoint_to_id.get(pair) if pair is not None else None
                if name is None:
                    unread.append(str(item))
                else:
                    values[name] = value
        if values:
            return values, unread
    return {}, []


def selection(answer: Mapping[str, Any], keys: Sequence[str]) -> list[str]:
    """Chosen names from the first of ``keys`` holding a list, or a dict whose truthy entries count."""
    for key in keys:
        value = answer.get(key)
        if isinstance(value, list):
            return [str(item) for item in value]
        if isinstance(value, Mapping):
            picked = [str(name) for name, flag in value.items() if flag]
            if picked:
                return picked
    return []


def _target(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return next((str(value[key]) for key in TARGET_KEYS if key in value), None)
    if isinstance(value, list | tuple) and len(value) == 1:
        return str(value[0])
    if isinstance(value, str | int | float):
        return str(value)
    return None


def assignment(answer: Mapping[str, Any], sources: Sequence[str], targets: Sequence[str]) -> dict[str, str]:
    """source → target from the first assignment key holding a dict; a dict keyed mostly by
    targets is read as target → source(s) and inverted."""
    source_set, target_set = {str(s) for s in sources}, {str(t) for t in targets}
    for key in ASSIGNMENT_KEYS:
        raw = answer.get(key)
        if not isinstance(raw, Mapping):
            continue
        direct = sum(1 for name in raw if str(name) in source_set)
        inverse = sum(1 for name in raw if str(name) in target_set)
        if direct >= inverse:
            mapping = {str(src): t for src, value in raw.items() if (t := _target(value)) is not None}
            if mapping:
                return mapping
        inverted: dict[str, str] = {}
        for target, value in raw.items():
            if isinstance(value, list):
                inverted.update({str(src): str(target) for src in value})
            elif isinstance(value, Mapping):
                inverted.update({str(src): str(target) for src, flag in value.items() if flag})
            elif (src := _target(value)) is not None:
                inverted[src] = str(target)
        if inverted:
            return inverted
    return {}


def named_list(instance: Mapping[str, Any], key: str) -> list[Any]:
    """``instance[key]`` or ``instance["sets"][key]`` when a list, else []."""
    value = instance.get(key)
    if isinstance(value, list):
        return value
    sets = instance.get("sets")
    if isinstance(sets, Mapping) and isinstance(sets.get(key), list):
        return list(sets[key])
    return []
