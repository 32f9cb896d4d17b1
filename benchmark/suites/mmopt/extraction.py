"""Comparing a Stage-2 extraction with the public instance record (MM-OptBench §3.4, App. F.3).

A reading mismatch is a claim about the model ("it misread the figure"), so the comparison must not
call a correct reading wrong for a formatting choice the prompt could not pin down. What counts as
the same reading:

- **numbers** within a relative and absolute tolerance of 1e-6; a number written as a string
  (``"12"``) is that number;
- **labels** after normalization: case, surrounding space and a short alphabetic prefix before a
  number are ignored, so ``N3``, ``n3``, ``node 3``, ``"3"`` and ``3`` are one label;
- **lists of records** (arcs, jobs, customers) match record by record on an identity (endpoint
  pairs such as from/to, else an id/name field, else a unique string field), in any order; a list
  of records without an identity is compared by position;
- **lists of scalars** that the record stores sorted and without repeats are sets and match in
  any order; any other list of scalars (a time series, a route) is compared by position;
- **dicts**: every key of the record must be read; keys the extraction adds are ignored.

Every difference is named in words a reader can check against the figure, e.g.
``arc (3,5) capacity: 12 read as 17``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

REL_TOLERANCE = 1e-6
ABS_TOLERANCE = 1e-6
#: At most this many differences are listed; the rest are counted.
MAX_LISTED = 25

#: Pairs of fields that identify a record by its endpoints, tried in this order.
ENDPOINT_PAIRS: tuple[tuple[str, str], ...] = (
    ("from", "to"),
    ("tail", "head"),
    ("source", "target"),
    ("origin", "destination"),
    ("u", "v"),
    ("i", "j"),
    ("start", "end"),
)
#: Single fields that identify a record, tried in this order after the endpoint pairs.
ID_FIELDS: tuple[str, ...] = ("id", "name", "label", "key", "code")

_LABEL_PREFIX = re.compile(r"^[a-z]{1,8}[\s_.#-]?(\d+)$")
_LABEL_KEY = re.compile(r"^[A-Za-z]{0,4}[_-]?\d+$")


@dataclass(frozen=True)
class ExtractionComparison:
    """The fields that differ (empty when the extraction matches), the first :data:`MAX_LISTED`
    of them listed and the rest counted in the last entry."""

    differences: tuple[str, ...]

    @property
    def matched(self) -> bool:
        return not self.differences


def is_label_mapping(value: Mapping[Any, Any]) -> bool:
    """A dict whose keys are data (node or entity labels such as ``"1"`` or ``"J3"``), not field names."""
    return bool(value) and all(_LABEL_KEY.match(str(key)) for key in value)


def as_number(value: Any) -> float | None:
    """The number a value stands for (ints, floats, numeric strings), or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def show(value: Any) -> str:
    """A value as a difference message writes it: integers without a decimal point, short text."""
    number = as_number(value) if not isinstance(value, str) else None
    if number is not None:
        return str(round(number)) if number == round(number) else f"{number:.6g}"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def canonical_label(value: Any) -> str:
    """One spelling per label: ``N3``, ``node 3``, ``"03"``, ``3`` and ``3.0`` all become ``"3"``."""
    number = as_number(value)
    if number is not None:
        return str(round(number)) if number == round(number) else f"{number:.9g}"
    text = " ".join(str(value).strip().casefold().split())
    match = _LABEL_PREFIX.match(text)
    return str(int(match.group(1))) if match else text


def same_scalar(truth: Any, read: Any) -> bool:
    if isinstance(truth, bool) or isinstance(read, bool):
        return canonical_label(truth) == canonical_label(read)
    if truth is None or read is None:
        return truth is None and read is None
    expected, got = as_number(truth), as_number(read)
    if expected is not None and got is not None:
        return math.isclose(expected, got, rel_tol=REL_TOLERANCE, abs_tol=ABS_TOLERANCE)
    return canonical_label(truth) == canonical_label(read)


def compare_extraction(truth: Mapping[str, Any], extracted: Any) -> ExtractionComparison:
    """Compare a structured instance read by the model with the public instance record."""
    differences = _compare(truth, extracted, "", top=True)
    if len(differences) > MAX_LISTED:
        hidden = len(differences) - MAX_LISTED
        differences = [*differences[:MAX_LISTED], f"... and {hidden} more differences"]
    return ExtractionComparison(tuple(differences))


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _where(path: str) -> str:
    return path or "the structured instance"


def _compare(truth: Any, read: Any, path: str, *, top: bool = False) -> list[str]:
    if isinstance(truth, Mapping):
        return _compare_dict(truth, read, path, top=top)
    if isinstance(truth, list | tuple):
        return _compare_list(truth, read, path)
    if not _is_scalar(read):
        return [f"{_where(path)}: {show(truth)} read as a {type(read).__name__}"]
    return [] if same_scalar(truth, read) else [f"{_where(path)}: {show(truth)} read as {show(read)}"]


def _compare_dict(truth: Mapping[str, Any], read: Any, path: str, *, top: bool) -> list[str]:
    if not isinstance(read, Mapping):
        return [f"{_where(path)}: expected an object, read {show(read)}"]
    mapping = is_label_mapping(truth) and not top
    by_label = {canonical_label(key): value for key, value in read.items()}
    differences: list[str] = []
    for key, value in truth.items():
        if mapping:
            where = f"{path}[{key}]"
        elif top:
            where = str(key)
        else:
            where = f"{path} {key}"
        if key in read:
            differences += _compare(value, read[key], where)
        elif canonical_label(key) in by_label:
            differences += _compare(value, by_label[canonical_label(key)], where)
        else:
            differences.append(f"{where}: missing (expected {show(value)})")
    return differences


def _singular(path: str) -> str:
    name = path.rsplit(" ", 1)[-1]
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return f"{name} entry"


def _compare_list(truth: Sequence[Any], read: Any, path: str) -> list[str]:
    if not isinstance(read, list | tuple):
        return [f"{_where(path)}: expected a list, read {show(read)}"]
    if truth and all(isinstance(item, Mapping) for item in truth):
        identity = record_identity(truth)
        if identity is not None:
            return _compare_records(truth, read, path, identity)
    elif truth and all(_is_scalar(item) for item in truth) and _is_set_like(truth):
        return _compare_sets(truth, read, path)
    differences: list[str] = []
    if len(read) != len(truth):
        differences.append(f"{_where(path)}: {len(truth)} entries read as {len(read)}")
    for index, (expected, got) in enumerate(zip(truth, read, strict=False)):
        differences += _compare(expected, got, f"{path}[{index}]")
    return differences


def _sort_key(value: Any) -> tuple[int, float, str]:
    number = as_number(value)
    return (0, number, "") if number is not None else (1, 0.0, canonical_label(value))


def _is_set_like(values: Sequence[Any]) -> bool:
    """Sorted without repeats: how the record writes a set (a time series rarely looks like this)."""
    labels = [canonical_label(v) for v in values]
    return len(set(labels)) == len(labels) and list(values) == sorted(values, key=_sort_key)


def _compare_sets(truth: Sequence[Any], read: Sequence[Any], path: str) -> list[str]:
    if not all(_is_scalar(item) for item in read):
        return [f"{_where(path)}: expected a list of values, read nested entries"]
    expected = {canonical_label(v): v for v in truth}
    got = {canonical_label(v): v for v in read}
    differences = []
    missing = [show(expected[k]) for k in expected if k not in got]
    extra = [show(got[k]) for k in got if k not in expected]
    if missing:
        differences.append(f"{_where(path)}: missing {', '.join(missing)}")
    if extra:
        differences.append(f"{_where(path)}: not in the instance: {', '.join(extra)}")
    return differences


def record_identity(records: Sequence[Mapping[str, Any]]) -> tuple[str, ...] | None:
    """The fields that tell the records of a list apart, or None when none does."""
    common = set(records[0]).intersection(*records[1:])

    def unique(fields: tuple[str, ...]) -> bool:
        keys = [tuple(canonical_label(r[f]) for f in fields) for r in records]
        return len(set(keys)) == len(keys)

    for pair in ENDPOINT_PAIRS:
        if set(pair) <= common and unique(pair):
            return pair
    for name in ID_FIELDS:
        if name in common and unique((name,)):
            return (name,)
    for name in sorted(common):
        if all(isinstance(r[name], str) for r in records) and unique((name,)):
            return (name,)
    return None


def _identity_of(record: Mapping[str, Any], identity: tuple[str, ...]) -> tuple[str, ...] | None:
    by_label = {canonical_label(k): v for k, v in record.items()}
    values = []
    for field in identity:
        if field in record:
            values.append(record[field])
        elif canonical_label(field) in by_label:
            values.append(by_label[canonical_label(field)])
        else:
            return None
    return tuple(canonical_label(v) for v in values)


def _record_name(path: str, identity: tuple[str, ...], record: Mapping[str, Any]) -> str:
    values = [show(record.get(field, "?")).strip("'") for field in identity]
    label = f"({','.join(values)})" if len(values) > 1 else values[0]
    return f"{_singular(path)} {label}"


def _compare_records(
    truth: Sequence[Mapping[str, Any]], read: Sequence[Any], path: str, identity: tuple[str, ...]
) -> list[str]:
    differences: list[str] = []
    read_by_key: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
    for index, record in enumerate(read):
        key = _identity_of(record, identity) if isinstance(record, Mapping) else None
        if key is None:
            fields = "/".join(identity)
            differences.append(f"{_where(path)}: entry {index} of the extraction has no {fields}")
            continue
        read_by_key.setdefault(key, []).append(record)
    truth_keys = set()
    for record in truth:
        key = _identity_of(record, identity)
        assert key is not None  # record_identity chose fields every truth record has
        truth_keys.add(key)
        name = _record_name(path, identity, record)
        found = read_by_key.get(key, [])
        if not found:
            differences.append(f"{name}: missing")
            continue
        if len(found) > 1:
            differences.append(f"{name}: listed {len(found)} times")
        rest = {k: v for k, v in record.items() if k not in identity}
        differences += _compare_dict(rest, found[0], name, top=False)
    for key, records in read_by_key.items():
        if key not in truth_keys:
            differences.append(f"{_record_name(path, identity, records[0])}: not in the instance")
    return differences
