"""Parsing a Stage-1 response into its sections, tolerant of formatting, strict on the contract.

Models decorate headings (``## PYTHON_CODE``, ``**Python Code:**``, ``3. MATHEMATICAL MODEL``) and
fence code although told not to. None of that is a contract violation, so it is accepted and noted.
A response with no code at all (or an empty one) is a ``response_contract`` failure; whether the
code defines ``solve()`` is decided by running it, where the sandbox classifies it.

Accepted heading variants (case-insensitive, spaces/hyphens/underscores alike, with optional
markdown ``#``/``*``/``_`` decoration, numbering and a trailing colon):

- ASSUMPTIONS: ``assumptions``, ``assumption``
- MATHEMATICAL_MODEL: ``mathematical model``, ``mathematical formulation``, ``math model``,
  ``model``, ``formulation``
- PYTHON_CODE: ``python code``, ``python``, ``code``, ``solver code``
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING_ALIASES: dict[str, str] = {
    "ASSUMPTIONS": "ASSUMPTIONS",
    "ASSUMPTION": "ASSUMPTIONS",
    "MATHEMATICAL_MODEL": "MATHEMATICAL_MODEL",
    "MATHEMATICAL_FORMULATION": "MATHEMATICAL_MODEL",
    "MATH_MODEL": "MATHEMATICAL_MODEL",
    "MODEL": "MATHEMATICAL_MODEL",
    "FORMULATION": "MATHEMATICAL_MODEL",
    "PYTHON_CODE": "PYTHON_CODE",
    "PYTHON": "PYTHON_CODE",
    "CODE": "PYTHON_CODE",
    "SOLVER_CODE": "PYTHON_CODE",
}
_DECORATION = re.compile(
    r"^[\s#*_>`]*(?:\d+[.)]\s*)?(?P<name>[A-Za-z][A-Za-z _-]*?)[\s*_`]*(?::(?P<rest>.*))?$"
)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)\s*$")


@dataclass(frozen=True)
class ParsedResponse:
    sections: dict[str, str]
    code: str | None
    notes: tuple[str, ...] = field(default=())
    violation: str | None = None


def _heading(line: str) -> tuple[str, str, str] | None:
    """The canonical section a line opens, the heading as written, and any text after its colon."""
    if len(line) > 60 or _FENCE.match(line):
        return None
    match = _DECORATION.match(line.strip())
    if not match:
        return None
    key = re.sub(r"[\s-]+", "_", match.group("name").strip().strip("_")).upper()
    canonical = _HEADING_ALIASES.get(key)
    if canonical is None:
        return None
    return canonical, key, (match.group("rest") or "").strip().strip("*").strip()


def _fenced_blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, language) of each closed fenced block; ``end`` is the closing fence's index."""
    blocks, start, language, marker = [], -1, "", ""
    for index, line in enumerate(lines):
        match = _FENCE.match(line)
        if not match:
            continue
        if start < 0:
            start, language, marker = index, match.group(2).lower(), match.group(1)[0]
        elif match.group(1)[0] == marker and not match.group(2):
            blocks.append((start, index, language))
            start = -1
    return blocks


def _code_from(lines: list[str]) -> tuple[str, int, bool]:
    """Code at the start of a PYTHON_CODE section: the first fenced block when the section opens with
    one (returning where it ends), else everything to the end. The bool says a fence was removed."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and _FENCE.match(lines[first]):
        for start, end, _ in _fenced_blocks(lines):
            if start == first:
                return "\n".join(lines[start + 1 : end]), end + 1, True
        # opened but never closed (e.g. a truncated reply): take the rest
        return "\n".join(lines[first + 1 :]), len(lines), True
    body = [line for line in lines if not _FENCE.match(line)]
    return "\n".join(body), len(lines), len(body) != len(lines)


def parse_stage1(text: str) -> ParsedResponse:
    if not text or not text.strip():
        return ParsedResponse(sections={}, code=None, violation="empty response")
    lines = text.splitlines()
    sections: dict[str, list[str]] = {}
    notes: list[str] = []
    code: str | None = None
    current: str | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        heading = _heading(line)
        if heading is not None:
            name, written, rest = heading
            if written != name:
                notes.append(f"heading {line.strip()!r} read as {name}")
            if name == "PYTHON_CODE" and code is None:
                body = [rest] if rest else []
                body += lines[index + 1 :]
                code, consumed, fenced = _code_from(body)
                if fenced:
                    notes.append("code was wrapped in a markdown fence")
                sections[name] = [code]
                index += 1 + consumed - (1 if rest else 0)
                current = None
                continue
            current = name
            sections.setdefault(name, [])
            if rest:
                sections[name].append(rest)
        elif current is not None:
            sections[current].append(line)
        index += 1

    if code is None:
        blocks = _fenced_blocks(lines)
        with_solve = [b for b in blocks if "def solve" in "\n".join(lines[b[0] + 1 : b[1]])]
        chosen = with_solve[0] if with_solve else None
        if chosen is not None:
            code = "\n".join(lines[chosen[0] + 1 : chosen[1]])
            notes.append("no PYTHON_CODE heading; used the fenced block that defines solve()")
    joined = {name: "\n".join(body).strip() for name, body in sections.items()}
    if code is None or not code.strip():
        return ParsedResponse(
            sections=joined,
            code=None,
            notes=tuple(notes),
            violation="no PYTHON_CODE section and no code block defining solve()"
            if code is None
            else "the PYTHON_CODE section is empty",
        )
    for name in ("ASSUMPTIONS", "MATHEMATICAL_MODEL"):
        if name not in joined:
            notes.append(f"no {name} section")
    return ParsedResponse(sections=joined, code=code.strip("\n") + "\n", notes=tuple(notes))
