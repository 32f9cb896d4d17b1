"""Wording helpers shared by the scenario templates: numbers as people write them, and the
precision sentence every question ends with (Property 3)."""

from __future__ import annotations

import random
import re

#: Table 10's scenario categories; every generated case carries one.
DOMAINS: tuple[str, ...] = ("manufacturing", "environment", "business", "daily_life", "natural_science")


def num(value: float) -> str:
    """``2.0`` → ``"2"``, ``0.125`` → ``"0.125"``: no trailing zeros, no exponent."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def precision_sentence(decimals: int, rng: random.Random) -> str:
    if decimals == 0:
        return rng.choice(
            ("Give the answer as a whole number.", "Round the answer to the nearest whole number.")
        )
    words = {1: "one", 2: "two", 3: "three", 4: "four"}[decimals]
    return rng.choice(
        (
            f"Round the answer to {words} decimal places.",
            f"Give the answer to {words} decimal places.",
            f"Report the value rounded to {words} decimal places.",
        )
    ).replace("one decimal places", "one decimal place")


def answer_string(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` places; never ``-0.00``."""
    text = f"{value:.{decimals}f}"
    return text.lstrip("-") if float(text) == 0 else text


#: Plural units and their singular, for :func:`agree`.
_SINGULAR = {
    "seconds": "second",
    "minutes": "minute",
    "hours": "hour",
    "days": "day",
    "weeks": "week",
    "months": "month",
    "years": "year",
    "units": "unit",
    "litres": "litre",
    "metres": "metre",
    "grams": "gram",
    "kilograms": "kilogram",
    "tonnes": "tonne",
    "dollars": "dollar",
    "trucks": "truck",
    "workers": "worker",
    "hectares": "hectare",
    "pounds": "pound",
    "feet": "foot",
    "inches": "inch",
    "people": "person",
    "pallets": "pallet",
    "crates": "crate",
    "boxes": "box",
    "cars": "car",
    "students": "student",
}


def agree(text: str) -> str:
    """Singular units after the number 1: a filled slot reads "after 1 second", not "1 seconds"."""
    pattern = r"(?<![\d.])1 (" + "|".join(sorted(_SINGULAR, key=len, reverse=True)) + r")\b"
    return re.sub(pattern, lambda m: f"1 {_SINGULAR[m.group(1)]}", text)
