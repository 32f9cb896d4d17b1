"""EF1 on meaning (issue 25 item 6): a candidate's entities matched to the gold model's by the role
they play, read from glpsol's translation of each model on the shown data (``--wlp``, CPLEX LP),
not from how many declarations each model has.

* a **set** or **parameter** matches the gold one its values map to (``heldout.map_entities``: the
  same members; the same values key by key, computed parameters included);
* a **variable** family matches the gold family with the same kind (continuous, integer, binary)
  and the same index tuples (among several: the same objective coefficients, then the closest name);
* a **constraint** family matches the gold family with the same rows once each row is put in one
  form (``>=`` turned into ``<=``, scaled so its first coefficient is ±1, variables renamed by the
  variable match). A family of single-variable rows is a bound, and a variable's bounds (other than
  ``>= 0`` and a binary's ``<= 1``) are families of their own, one per variable family and side, so
  ``var x >= 0, <= cap`` and ``s.t. c: x <= cap`` are the same entity;
* an **objective** matches when its sense and coefficients are the gold's.

The F1 is the paper's over these matches: TP = number of matched pairs (one to one), P = TP over
the candidate's entities, R = TP over the gold's.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchmark.suites.nldata.mathprog import DATA_FILE, MODEL_FILE, prepare

Column = tuple[str, tuple[str, ...]]
Row = tuple[str, tuple[tuple[Column, float], ...], float]
#: A bound as a constraint entry: ("bound", side, variable family, index, value).
Bound = tuple[str, str, str, tuple[str, ...], float]
#: An objective: its sense and its sorted ((family, index), coefficient) terms.
Objective = tuple[str, tuple[tuple[Column, float], ...]]

_SECTION = re.compile(
    r"^(Maximize|Minimize|Subject To|Bounds|Generals|Binaries|End)\s*$", re.MULTILINE | re.IGNORECASE
)
_TERM = re.compile(r"([+-])\s*(\d[\d.eE+-]*)?\s*([A-Za-z_][^\s:+-]*)")
_COLUMN = re.compile(r"^([^(]+)(?:\((.*)\))?$")


@dataclass
class Listing:
    """One model's LP translation: objective, rows, bounds, integer columns."""

    sense: str = "min"
    objective: dict[str, float] = field(default_factory=dict)
    rows: list[tuple[str, dict[str, float], str, float]] = field(default_factory=list)
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    integer: set[str] = field(default_factory=set)
    binary: set[str] = field(default_factory=set)


def _terms(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for sign, number, name in _TERM.findall(text):
        value = float(number) if number else 1.0
        out[name] = out.get(name, 0.0) + (-value if sign == "-" else value)
    return out


def read_lp(text: str) -> Listing:
    """The parts of glpsol's CPLEX LP file that EF1 compares."""
    listing = Listing()
    text = re.sub(r"\\\*.*?\*\\", "", text, flags=re.DOTALL)
    parts = _SECTION.split(text)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        kind = heading.lower()
        if kind in ("maximize", "minimize"):
            listing.sense = "max" if kind == "maximize" else "min"
            expression = body.split(":", 1)[1] if ":" in body else body
            listing.objective = {k: v for k, v in _terms(expression).items() if v}
        elif kind == "subject to":
            for name, row in re.findall(
                r"^\s*([^\s:]+):(.*?)(?=^\s*[^\s:]+:|\Z)", body, re.MULTILINE | re.DOTALL
            ):
                found = re.search(r"(<=|>=|=)\s*([-+]?[\d.eE+-]+)\s*$", row.strip())
                if found:
                    lhs = row.strip()[: found.start()]
                    listing.rows.append((name, _terms(lhs), found.group(1), float(found.group(2))))
        elif kind == "bounds":
            for line in body.splitlines():
                _bound(listing, line.strip())
        elif kind in ("generals", "binaries"):
            names = set(body.split())
            (listing.integer if kind == "generals" else listing.binary).update(names)
    return listing


def _bound(listing: Listing, line: str) -> None:
    if not line:
        return
    number = r"([-+]?(?:inf(?:inity)?|[\d.eE+-]+))"
    if match := re.fullmatch(rf"{number}\s*<=\s*(\S+)\s*<=\s*{number}", line, re.IGNORECASE):
        listing.bounds[match.group(2)] = (_float(match.group(1)), _float(match.group(3)))
    elif match := re.fullmatch(r"(\S+)\s+free", line, re.IGNORECASE):
        listing.bounds[match.group(1)] = (-math.inf, math.inf)
    elif match := re.fullmatch(rf"(\S+)\s*(<=|>=|=)\s*{number}", line):
        name, sense, value = match.group(1), match.group(2), _float(match.group(3))
        low, high = listing.bounds.get(name, (0.0, math.inf))
        listing.bounds[name] = (
            (low, value) if sense == "<=" else (value, high) if sense == ">=" else (value, value)
        )
    elif match := re.fullmatch(rf"{number}\s*<=\s*(\S+)", line):
        listing.bounds[match.group(2)] = (
            _float(match.group(1)),
            listing.bounds.get(match.group(2), (0, math.inf))[1],
        )


def _float(text: str) -> float:
    return float(text.lower().replace("infinity", "inf"))


def _column(name: str) -> Column:
    match = _COLUMN.match(name)
    if match is None:
        return name, ()
    return match.group(1), tuple(match.group(2).split(",")) if match.group(2) else ()


def _kind(listing: Listing, name: str) -> str:
    low, high = listing.bounds.get(name, (0.0, math.inf))
    if name in listing.binary or (name in listing.integer and (low, high) == (0.0, 1.0)):
        return "binary"
    return "integer" if name in listing.integer else "continuous"


def _columns(listing: Listing) -> set[str]:
    names = set(listing.objective) | set(listing.bounds) | listing.integer | listing.binary
    for _, coefficients, _, _ in listing.rows:
        names |= set(coefficients)
    return names


def _families(
    listing: Listing,
) -> dict[str, tuple[str, frozenset[tuple[str, ...]], dict[tuple[str, ...], float]]]:
    """Variable family → (kind, its index tuples, each index's objective coefficient)."""
    grouped: dict[str, list[str]] = {}
    for name in _columns(listing):
        grouped.setdefault(_column(name)[0], []).append(name)
    return {
        family: (
            _kind(listing, names[0]),
            frozenset(_column(n)[1] for n in names),
            {_column(n)[1]: _round(listing.objective.get(n, 0.0)) for n in names},
        )
        for family, names in grouped.items()
    }


def _round(value: float) -> float:
    return float(f"{value:.9g}")


def _normal(coefficients: dict[str, float], sense: str, rhs: float, rename: dict[str, str]) -> Row:
    terms = {}
    for name, value in coefficients.items():
        family, index = _column(name)
        terms[(rename.get(family, "?" + family), index)] = value
    if sense == ">=":
        terms, rhs, sense = {k: -v for k, v in terms.items()}, -rhs, "<="
    first = min(terms)
    scale = abs(terms[first]) if sense == "<=" else terms[first]
    normal = tuple(sorted((k, _round(v / scale)) for k, v in terms.items()))
    return sense, normal, _round(rhs / scale)


def _constraint_families(listing: Listing, rename: dict[str, str]) -> Counter[frozenset[Row | Bound]]:
    """Row families (as sets of normalized rows) and bound families, as a multiset."""
    # keyed by (kind, name): a model's constraint may itself be called "bound…"
    families: dict[tuple[str, str], set[Row | Bound]] = {}
    for name, coefficients, sense, rhs in listing.rows:
        terms = {k: v for k, v in coefficients.items() if v}
        if not terms:
            continue
        family = _column(name)[0]
        if len(terms) == 1:
            ((column, a),) = terms.items()
            value = rhs / a
            side = {"=": "fix", "<=": "ub" if a > 0 else "lb", ">=": "lb" if a > 0 else "ub"}[sense]
            var, index = _column(column)
            families.setdefault(("bound", family), set()).add(
                ("bound", side, rename.get(var, "?" + var), index, _round(value))
            )
        else:
            families.setdefault(("rows", family), set()).add(_normal(terms, sense, rhs, rename))
    for column, (low, high) in listing.bounds.items():
        var, index = _column(column)
        kind = _kind(listing, column)
        entries = []
        if low != 0.0:
            entries.append(("lb", low))
        if high != math.inf and not (kind == "binary" and high == 1.0):
            entries.append(("ub", high))
        for side, value in entries:
            families.setdefault(("bound", f"{var} {side}"), set()).add(
                ("bound", side, rename.get(var, "?" + var), index, _round(value))
            )
    merged: dict[tuple[object, ...], set[Row | Bound]] = {}
    for (kind, name), rows in families.items():
        if kind == "bound":
            for row in rows:
                merged.setdefault(("bound", row[1], row[2]), set()).add(row)
        else:
            merged[("rows", name)] = rows
    return Counter(frozenset(rows) for rows in merged.values())


def _match_variables(candidate: Listing, gold: Listing) -> tuple[dict[str, str], int, int, int]:
    """(candidate family → gold family, matched, candidate families, gold families). A family matches
    a gold one of the same kind over the same index tuples; among several, the one with the same
    objective coefficients, then the one named most alike."""
    theirs, ours = _families(candidate), _families(gold)
    rename: dict[str, str] = {}
    free = dict(ours)
    for family, (kind, indices, costs) in sorted(theirs.items()):
        options = [g for g, (k, i, _) in sorted(free.items()) if (k, i) == (kind, indices)]
        if not options:
            continue
        chosen = min(
            options,
            key=lambda g: (
                free[g][2] != costs,
                -difflib.SequenceMatcher(None, family.lower(), g.lower()).ratio(),
            ),
        )
        rename[family] = chosen
        del free[chosen]
    return rename, len(rename), len(theirs), len(ours)


def _objective(listing: Listing, rename: dict[str, str]) -> Objective:
    """Sense and coefficients, variables renamed; not rescaled (2x is not x as an objective)."""
    terms = []
    for name, value in listing.objective.items():
        family, index = _column(name)
        terms.append(((rename.get(family, "?" + family), index), _round(value)))
    return listing.sense, tuple(sorted(terms))


@dataclass(frozen=True)
class RoleMatch:
    """Matched and total entities per type, and the F1 over them."""

    matched: dict[str, int]
    candidate: dict[str, int]
    gold: dict[str, int]

    @property
    def f1(self) -> float:
        tp, n_cand, n_gold = (sum(d.values()) for d in (self.matched, self.candidate, self.gold))
        if n_cand == 0 and n_gold == 0:
            return 1.0
        if tp == 0:
            return 0.0
        precision, recall = tp / n_cand, tp / n_gold
        return 2 * precision * recall / (precision + recall)

    def as_record(self) -> dict[str, dict[str, int]]:
        return {"matched": self.matched, "candidate": self.candidate, "gold": self.gold}


def role_match(
    candidate: Listing, gold: Listing, data_entities: tuple[tuple[int, int, int], tuple[int, int, int]]
) -> RoleMatch:
    """``data_entities`` is ((matched sets, candidate sets, gold sets), (the same for parameters)),
    from the mapping of the candidate's values onto the data."""
    rename, var_tp, var_cand, var_gold = _match_variables(candidate, gold)
    identity = {family: family for family in _families(gold)}
    theirs, ours = _constraint_families(candidate, rename), _constraint_families(gold, identity)
    con_tp = sum((theirs & ours).values())
    same = _objective(candidate, rename) == _objective(gold, identity)
    objective_tp = int(bool(candidate.objective) and bool(gold.objective) and same)
    (set_tp, set_cand, set_gold), (par_tp, par_cand, par_gold) = data_entities
    matched = {"set": set_tp, "parameter": par_tp, "variable": var_tp, "constraint": con_tp}
    theirs_count = {"set": set_cand, "parameter": par_cand, "variable": var_cand}
    ours_count = {"set": set_gold, "parameter": par_gold, "variable": var_gold}
    return RoleMatch(
        {**matched, "objective": objective_tp},
        {**theirs_count, "constraint": sum(theirs.values()), "objective": int(bool(candidate.objective))},
        {**ours_count, "constraint": sum(ours.values()), "objective": int(bool(gold.objective))},
    )


@functools.lru_cache(maxsize=256)
def gold_listing(model: str, data: str) -> Listing:
    """The LP translation of a *trusted* pair (the gold files), with the local glpsol."""
    prepared = prepare(model, data)
    exe = shutil.which("glpsol")
    if exe is None:
        raise FileNotFoundError("glpsol not found on PATH (Debian package glpk-utils)")
    with tempfile.TemporaryDirectory(prefix="optbench-nldata-") as tmp:
        work = Path(tmp)
        (work / MODEL_FILE).write_text(prepared.model, encoding="utf-8")
        (work / DATA_FILE).write_text(prepared.data, encoding="utf-8")
        argv = [exe, "--check", "--math", MODEL_FILE, "-d", DATA_FILE, "--wlp", "model.lp"]
        subprocess.run(argv, cwd=work, capture_output=True, check=True, timeout=120)
        return read_lp((work / "model.lp").read_text(encoding="utf-8"))
