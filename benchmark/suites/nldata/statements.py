"""Splitting an AMPL / MathProg file into its top-level statements, by their byte offsets.

A statement ends at the first ``;`` outside brackets, except the compound ones: ``for {domain}
body`` and AMPL's ``if cond then body [else body]`` take a statement or a ``{...}`` block as body,
and what the block holds (a ``printf`` inside a ``for``) belongs to the enclosing statement. Comments
(``#`` and ``/* */``) and quoted strings are single tokens, so a ``;`` in them ends nothing.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"(#[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:[^\"\n])*\"|'(?:[^'\n])*'|[{}()\[\]]|;|[A-Za-z_][A-Za-z0-9_.]*|\S)",
    re.DOTALL,
)


def _spans(text: str) -> list[tuple[str, int, int]]:
    """The code tokens (comments dropped) with their start and end offsets."""
    return [
        (m.group(), m.start(), m.end())
        for m in _TOKEN.finditer(text)
        if not m.group().startswith(("#", "/*"))
    ]


def _matching(toks: list[tuple[str, int, int]], i: int) -> int:
    """Index of the bracket closing the one at ``i`` (the last token when it is never closed)."""
    depth = 0
    for j in range(i, len(toks)):
        value = toks[j][0]
        if value in ("(", "[", "{"):
            depth += 1
        elif value in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def _to_semicolon(toks: list[tuple[str, int, int]], i: int) -> int:
    j = i
    while j < len(toks):
        value = toks[j][0]
        if value in ("(", "[", "{"):
            j = _matching(toks, j)
        elif value == ";":
            return j
        j += 1
    return len(toks) - 1


def _body_end(toks: list[tuple[str, int, int]], i: int) -> int:
    if i >= len(toks):
        return len(toks) - 1
    if toks[i][0] == "{":
        return _matching(toks, i)
    return _statement_end(toks, i)


def _statement_end(toks: list[tuple[str, int, int]], i: int) -> int:
    """Index of the last token of the statement starting at ``i``. ``for {domain} body`` and AMPL's
    ``if cond then body [else body]`` take a statement or a ``{...}`` block as body, so what a block
    holds (a ``printf`` inside a ``for``) belongs to the enclosing statement."""
    word = toks[i][0].lower()
    if word == "for":
        j = i + 1
        if j < len(toks) and toks[j][0] == "{":
            j = _matching(toks, j) + 1
        return _body_end(toks, j)
    if word == "if":
        j = i + 1
        while j < len(toks) and toks[j][0].lower() != "then":
            j = _matching(toks, j) + 1 if toks[j][0] in ("(", "[", "{") else j + 1
        end = _body_end(toks, j + 1)
        if end + 1 < len(toks) and toks[end + 1][0].lower() == "else":
            end = _body_end(toks, end + 2)
        return end
    return _to_semicolon(toks, i)


def statement_spans(text: str) -> list[tuple[str, int, int]]:
    """(first word, start, end) of every top-level statement, comments outside any statement skipped."""
    toks = _spans(text)
    out: list[tuple[str, int, int]] = []
    i = 0
    while i < len(toks):
        last = _statement_end(toks, i)
        out.append((toks[i][0], toks[i][1], toks[last][2]))
        i = last + 1
    return out
