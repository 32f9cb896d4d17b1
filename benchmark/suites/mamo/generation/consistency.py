"""Self-consistency checks for a generated Mamo question, run on the shipped record itself.

A question can be answered correctly by its reference and still be wrong as a question: the text
says two ponds keep their volume while the stated flows do not balance, a continuous optimum is
asked for as a whole number, a number in the text plays no part in the model, or a template slot
rendered empty. Each check reads only the record's fields (``Question``, ``Answer``, ``reference``,
``parameters``, ``distractors``), so the same code runs at generation, where a failure is a
generator bug, and over every shipped case in CI. :func:`problems` lists what is wrong, one line
per finding; an empty list means the record passed every check.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from benchmark.suites.mamo.comparison import answer_decimals, answers_match

#: A number as the question text writes it: not part of a word (``x1``) or of another number.
_NUMBER = re.compile(r"(?<![\w.^])-?\d+(?:\.\d+)?(?![\w.]*[A-Za-z_])")
#: Nouns after which a number names a thing ("pond 2", "month 3") instead of giving data.
LABEL_NOUNS = frozenset(
    [
        "vat",
        "pond",
        "tank",
        "project",
        "lot",
        "store",
        "town",
        "period",
        "month",
        "week",
        "quarter",
        "day",
        "year",
        "site",
        "city",
        "node",
        "plant",
        "job",
        "machine",
        "warehouse",
        "depot",
        "route",
        "truck",
        "field",
        "line",
        "product",
        "shift",
        "crop",
        "client",
        "district",
        "stage",
        "hub",
        "reservoir",
        "zone",
        "factory",
        "centre",
        "dealer",
        "supermarket",
        "mine",
        "customer",
        "bay",
        "room",
        "region",
        "station",
        "junction",
        "batch",
        "team",
        "worker",
        "task",
        "option",
        "process",
        "configuration",
        "location",
        "item",
        "tier",
        "grade",
        "consultant",
        "flatmate",
        "agent",
        "candidate",
    ]
)
#: Units whose singular must follow the number 1 ("after 1 second", not "after 1 seconds").
_PLURAL_UNITS = [
    "seconds",
    "minutes",
    "hours",
    "days",
    "weeks",
    "months",
    "years",
    "units",
    "litres",
    "metres",
    "grams",
    "kilograms",
    "tonnes",
    "people",
    "dollars",
    "trucks",
    "workers",
    "hectares",
    "pounds",
    "feet",
    "inches",
    "pallets",
    "crates",
    "boxes",
    "cars",
    "students",
]
#: An asked-for unit: "..., in cubic metres?" or "How many kg of salt ...?".
_ASKED_UNIT = (
    re.compile(r"\bin ((?:[\w/^%]+ ?){1,8})\?"),
    re.compile(r"\bhow many ((?:[\w/^%]+ ?){1,4}?) (?:are|is|remain|will|does|do|know|have|has|can)\b", re.I),
    re.compile(r"\b(?:number|amount|count) of ((?:[\w/^%]+ ?){1,4}?)\b(?:needed|required|is|that)", re.I),
)


def _numbers_in(value: Any) -> Iterator[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield float(value)
    elif isinstance(value, str):
        yield from (float(m) for m in _NUMBER.findall(value))
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _numbers_in(item)


def text_numbers(question: str) -> list[float]:
    """The data numbers of a question: every number that does not follow a label noun."""
    found = []
    for match in _NUMBER.finditer(question):
        before = question[: match.start()].rstrip().split(" ")[-1].lower().strip("(-")
        if before in LABEL_NOUNS:
            continue
        found.append(abs(float(match.group())))
    return found


def _known(value: float, used: list[float]) -> bool:
    candidates = (value, value / 100)  # a percentage enters the model as a fraction
    return any(math.isclose(c, u, rel_tol=1e-9, abs_tol=1e-12) for c in candidates for u in used)


def check_numbers(item: dict[str, Any]) -> list[str]:
    """Every number in the text is used by the reference or its parameters, or declared a distractor."""
    used = [abs(v) for v in _numbers_in([item.get("reference", ""), item.get("parameters", {})])]
    if item.get("Category") == "optimization":
        used.append(1.0)  # the .lp format leaves a coefficient of 1 unwritten
    distractors = [abs(float(v)) for v in item.get("distractors", [])]
    stated = text_numbers(item["Question"])
    found = [f"distractor {v:g} is also a number the reference uses" for v in distractors if _known(v, used)]
    found += [f"distractor {v:g} does not appear in the text" for v in distractors if not _known(v, stated)]
    unused = sorted({v for v in stated if not _known(v, used + distractors)})
    found += [f"number {v:g} in the text is neither used by the reference nor a distractor" for v in unused]
    return found


def check_rounding(item: dict[str, Any]) -> list[str]:
    """A whole-number answer only where the decision variables are integers."""
    question, decimals = item["Question"].lower(), answer_decimals(item["Answer"])
    found = []
    if ("whole number" in question) != (decimals == 0):
        found.append(f"the precision sentence does not match the answer's {decimals} decimals")
    if decimals == 0:
        reference = item.get("reference", "")
        integer = "\nGenerals\n" in reference or "\nBinaries\n" in reference
        if item.get("Category") != "optimization" or not integer:
            found.append("a whole-number answer is asked for a quantity with continuous variables")
    return found


def asked_unit(question: str) -> str | None:
    """The unit the question asks its answer in, read from the asking sentence."""
    asking = [s for s in re.split(r"(?<=[.?])\s+", question) if s.endswith("?")]
    if not asking:
        return None
    for pattern in _ASKED_UNIT:
        match = pattern.search(asking[-1])
        if match:
            return match.group(1).strip()
    return None


def check_units(item: dict[str, Any]) -> list[str]:
    """The asking sentence names the unit of the answer, and the record declares the same one."""
    unit = asked_unit(item["Question"])
    if unit is None:
        return ["the asking sentence names no unit for the answer"]
    declared = item.get("unit")
    if declared is not None and declared != unit:
        return [f"the record declares unit {declared!r} but the question asks in {unit!r}"]
    return []


def check_conservation(item: dict[str, Any]) -> list[str]:
    """Where the text says a tank keeps its volume, the stated flows into it equal those out of it."""
    parameters = item.get("parameters", {})
    flows = parameters.get("flows")
    if not flows:
        return []
    found = []
    for tank in parameters.get("constant_volume", []):
        inflow = sum(rate for _, to, rate in flows if to == tank)
        outflow = sum(rate for source, _, rate in flows if source == tank)
        if not math.isclose(inflow, outflow, rel_tol=1e-12, abs_tol=1e-12):
            found.append(
                f"{tank} is said to keep its volume but takes in {inflow:g} and sends out {outflow:g}"
            )
    return found


def check_render(item: dict[str, Any]) -> list[str]:
    """Slot-filling slips: empty or doubled slots, '1 seconds', 'Depot A' next to 'Depot a'."""
    text = item["Question"]
    found = []
    for pattern, what in (
        (r"[{}]|\bNone\b|\bnan\b|\[\]", "an unfilled slot"),
        (r"(?<=\S)  +(?=\S)", "a doubled space (an empty slot)"),
        (r" [,.;:?]", "a space before punctuation (an empty slot)"),
        (
            r"\b(?:(?:the|a|an) (?:of|the|a|an|and|to|in|at|for|with)|of (?:of|and|to|in|at|for|with))\b",
            "an empty slot between words",
        ),
        (r"\b([A-Za-z]+) \1\b", "a doubled word"),
    ):
        match = re.search(pattern, text, flags=re.I if what == "a doubled word" else 0)
        if match:
            found.append(f"{what}: {match.group()!r}")
    for unit in _PLURAL_UNITS:
        if re.search(rf"(?<![\d.])1 {unit}\b", text):
            found.append(f"'1 {unit}' should be singular")
    names: dict[str, set[str]] = {}
    for match in re.finditer(r"\b([A-Za-z]+) ([A-Za-z])\b", text):
        noun, letter = match.groups()
        if noun.lower() in LABEL_NOUNS:
            names.setdefault(f"{noun.lower()} {letter.lower()}", set()).add(f"{noun} {letter}")
    for spellings in names.values():
        if any(s[-1].isupper() for s in spellings) and any(s[-1].islower() for s in spellings):
            found.append(f"a name is spelled inconsistently: {sorted(spellings)}")
    return found


def check_nontrivial(item: dict[str, Any]) -> list[str]:
    """No naive reading (an LP relaxation, a model without subtour cuts, one capacity) gets it right."""
    return [
        f"the naive reading {name!r} gives the answer too ({value:g})"
        for name, value in item.get("nontriviality", {}).items()
        if value is not None and answers_match(value, item["Answer"])
    ]


CHECKS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "numbers": check_numbers,
    "rounding": check_rounding,
    "units": check_units,
    "conservation": check_conservation,
    "render": check_render,
    "nontrivial": check_nontrivial,
}


def problems(item: dict[str, Any]) -> list[str]:
    """Every finding of every check, each prefixed by the check's name; empty when consistent."""
    return [f"{name}: {finding}" for name, check in CHECKS.items() for finding in check(item)]
