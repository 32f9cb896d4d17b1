"""Counting the declared entities of an AMPL model for EF1 (NLData2Opt §4.3).

EF1 compares the multisets of entity *types* (set, parameter, variable, constraint, objective) of a
candidate and a gold model, so the parser only has to find every declaration and say what it
declares. It works on tokens, not lines: comments (``#`` to end of line and ``/* ... */``) and quoted
strings are skipped, a declaration may span many lines, and a statement ends at the first ``;`` outside
brackets, so indexing expressions such as ``{i in I: a[i] >= 0}`` never split or start a statement.

A statement declares an entity when it starts with ``set``, ``param``, ``var``, ``maximize`` /
``minimize``, or ``subject to`` / ``subj to`` / ``s.t.``, or, as AMPL allows, with ``name:`` or
``name{...}:`` (a constraint without the keyword). ``param a, b;``-style lists are not AMPL, so one
declaration is one entity, indexed or not. Commands (``solve``, ``display``, ``option``, ``data``,
...) and data statements declare nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

ENTITY_TYPES: tuple[str, ...] = ("set", "parameter", "variable", "constraint", "objective")

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<line_comment>\#[^\n]*)
  | (?P<block_comment>/\*.*?(?:\*/|\Z))
  | (?P<string>"(?:[^"\n]|"")*"|'(?:[^'\n]|'')*')
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<symbol>:=|<=|>=|==|!=|<>|\.\.|[^\sA-Za-z0-9_])
    """,
    re.VERBOSE | re.DOTALL,
)
_OPEN, _CLOSE = "([{", ")]}"
_COMMANDS = frozenset(
    {
        "solve", "display", "print", "printf", "option", "options", "data", "model", "end", "reset",
        "let", "fix", "unfix", "include", "commands", "shell", "show", "expand", "write", "check",
        "for", "if", "repeat", "problem", "drop", "restore", "objective", "table", "read", "close",
        "update", "environ", "load", "cd", "quit", "exit", "break", "continue", "delete", "purge",
        "redeclare", "suffix", "call", "function",
    }
)  # fmt: skip
_KEYWORD_TYPES = {
    "set": "set",
    "param": "parameter",
    "var": "variable",
    "maximize": "objective",
    "minimize": "objective",
    "maximise": "objective",
    "minimise": "objective",
}


@dataclass(frozen=True)
class Declaration:
    """One declared entity: its type, its name, and the line of the model where it starts."""

    kind: str
    name: str
    line: int


def tokens(text: str) -> list[tuple[str, int]]:
    """Significant tokens with their line numbers; comments and whitespace dropped."""
    out: list[tuple[str, int]] = []
    line = 1
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup, match.group()
        if kind not in ("space", "line_comment", "block_comment"):
            out.append((value, line))
        line += value.count("\n")
    return out


def statements(tokens: list[tuple[str, int]]) -> list[list[tuple[str, int]]]:
    """Split at ``;`` outside brackets; an unterminated last statement still counts."""
    statements: list[list[tuple[str, int]]] = []
    current: list[tuple[str, int]] = []
    depth = 0
    for token in tokens:
        value = token[0]
        if value in _OPEN:
            depth += 1
        elif value in _CLOSE:
            depth = max(0, depth - 1)
        if value == ";" and depth == 0:
            if current:
                statements.append(current)
            current = []
            continue
        current.append(token)
    if current:
        statements.append(current)
    return statements


def _classify(statement: list[tuple[str, int]]) -> Declaration | None:
    words = [value for value, _ in statement]
    line = statement[0][1]
    first = words[0].lower()
    if first == "data":
        return None
    if first in _KEYWORD_TYPES:
        return Declaration(_KEYWORD_TYPES[first], words[1] if len(words) > 1 else "", line)
    if first in ("subject", "subj") and len(words) > 1 and words[1].lower() == "to":
        return Declaration("constraint", words[2] if len(words) > 2 else "", line)
    if first == "s.t.":
        return Declaration("constraint", words[1] if len(words) > 1 else "", line)
    if first in _COMMANDS:
        return None
    # ``name:`` or ``name{...}:`` — a constraint declared without the keyword.
    if words[0][:1].isalpha() or words[0][:1] == "_":
        rest = words[1:]
        if rest[:1] == ["{"]:
            depth = 0
            for position, value in enumerate(rest):
                depth += value in _OPEN
                depth -= value in _CLOSE
                if depth == 0:
                    rest = rest[position + 1 :]
                    break
        if rest[:1] == [":"]:
            return Declaration("constraint", words[0], line)
    return None


def _model_part(text: str) -> str:
    """The model section: a combined file's ``data;`` section holds assignments, not declarations."""
    tokens = _TOKEN.finditer(text)
    for match in tokens:
        if match.lastgroup == "name" and match.group().lower() == "data":
            following = text[match.end() :].lstrip()
            if following.startswith(";"):
                return text[: match.start()]
    return text


def declarations(model_text: str) -> list[Declaration]:
    """Every entity declared in an AMPL model, in order."""
    found = (_classify(s) for s in statements(tokens(_model_part(model_text))))
    return [d for d in found if d is not None]


def entity_counts(model_text: str) -> Counter[str]:
    """The multiset of entity types EF1 compares (every type present, zero when absent)."""
    counts: Counter[str] = Counter({kind: 0 for kind in ENTITY_TYPES})
    counts.update(d.kind for d in declarations(model_text))
    return counts
