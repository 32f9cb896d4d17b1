"""Text the harness writes must survive what a model or its code puts into it.

A lone UTF-16 surrogate (``"\\ud800"``, which JSON can carry and Python strings can hold) cannot be
encoded as UTF-8, so a record, an HTML report, a JUnit file or a terminal line holding one fails
to be written at all. :func:`scrub` replaces each lone surrogate by U+FFFD in a value before the
harness keeps it (a sandbox verdict, a case record); the replay recording, which must give back
the exact response, escapes them instead (:func:`benchmark.files.dumps_line`).

A response or a printed output can also be huge (a 150 MB response made a 300 MB record line).
With ``max_chars``, :func:`scrub` also bounds every string: the head and tail are kept around a
marker that says how much was cut, so a record line stays readable by every reader.
"""

from __future__ import annotations

import re
from typing import Any

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"
#: The longest string a case record keeps in any field (the sandbox's output tails are 1 MB).
RECORD_FIELD_CHARS = 2_000_000


def bound_text(text: str, limit: int) -> str:
    """text, or its head and tail around a marker naming how many characters were cut."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    marker = f"\n[optbench: {cut} of {len(text)} characters cut from this field]\n"
    return text[: limit // 2] + marker + text[len(text) - limit // 2 :]


def scrub_text(text: str) -> str:
    """text with every lone surrogate replaced by U+FFFD (the same object when there is none)."""
    return LONE_SURROGATE.sub(REPLACEMENT, text) if LONE_SURROGATE.search(text) else text


def scrub(value: Any, max_chars: int | None = None) -> Any:
    """A copy of a JSON-like value (dict keys included) without lone surrogates, every string cut to
    ``max_chars`` when given; other leaves as is. A string of a ``str`` subclass (a ``StrEnum``
    member such as :class:`benchmark.categories.CaseOutcome`) comes back a plain ``str``: a record
    crosses to the xdist controller through execnet, which sends builtin types only. Values reach
    here with a bounded depth (the sandbox refuses deeper verdicts); one nested past the recursion
    limit anyway is given back unchanged rather than lost."""
    try:
        return _scrub(value, max_chars)
    except RecursionError:
        return value


def _scrub(value: Any, limit: int | None) -> Any:
    if isinstance(value, str):
        text = str(value)  # the same object for a str, a plain copy for a subclass
        return scrub_text(text if limit is None else bound_text(text, limit))
    if isinstance(value, dict):
        return {scrub_text(str(k)) if isinstance(k, str) else k: _scrub(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v, limit) for v in value]
    return value
