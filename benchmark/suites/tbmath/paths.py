"""JSON paths into an artifact: ``a.b[2].c`` and the wildcards ``a[*].c`` (every list item) and
``a.*`` (every value of an object, in its order).

Score configurations, feasibility checks and certificates all name fields this way (the public
TB-MathModel release writes ``experiment_result.top_swing_features[0].warning_correlation``), so
one reader serves all three and every message cites the same path the data declares.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+|\*)\]")


class PathError(ValueError):
    """A path that cannot be parsed (a configuration error, never a model failure)."""


def parse(path: str) -> tuple[str | int, ...]:
    """``"a.b[2]"`` → ``("a", "b", 2)``; ``[*]`` becomes ``"*"`` (an index wildcard)."""
    tokens: list[str | int] = []
    position = 0
    text = path.strip()
    while position < len(text):
        if text[position] == ".":
            position += 1
            continue
        match = _TOKEN.match(text, position)
        if match is None:
            raise PathError(f"cannot parse the path {path!r} at character {position}")
        key, index = match.groups()
        if key is not None:
            tokens.append(key)
        else:
            tokens.append("*" if index == "*" else int(index))
        position = match.end()
    if not tokens:
        raise PathError(f"empty path {path!r}")
    return tuple(tokens)


def format_path(tokens: tuple[str | int, ...]) -> str:
    out = ""
    for token in tokens:
        if isinstance(token, int):
            out += f"[{token}]"
        elif token == "*":
            out += "[*]"
        else:
            out += f".{token}" if out else token
    return out


def lookup(data: Any, path: str) -> tuple[bool, Any]:
    """(found, value) for a path without wildcards; absent keys, short lists and wrong container
    types are "not found", because a model's artifact may have any shape."""
    current = data
    for token in parse(path):
        if token == "*":
            raise PathError(f"{path!r}: a wildcard path names several values; use expand()")
        if isinstance(token, int):
            if not isinstance(current, list) or token >= len(current):
                return False, None
            current = current[token]
        else:
            if not isinstance(current, dict) or token not in current:
                return False, None
            current = current[token]
    return True, current


def expand(data: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every (concrete path, value) a path with ``[*]`` wildcards reaches, in list order."""

    def walk(
        node: Any, rest: tuple[str | int, ...], done: tuple[str | int, ...]
    ) -> Iterator[tuple[str, Any]]:
        if not rest:
            yield format_path(done), node
            return
        token, tail = rest[0], rest[1:]
        if token == "*":
            if isinstance(node, list):
                for index, item in enumerate(node):
                    yield from walk(item, tail, (*done, index))
            elif isinstance(node, dict):
                for key, item in node.items():
                    yield from walk(item, tail, (*done, str(key)))
        elif isinstance(token, int):
            if isinstance(node, list) and token < len(node):
                yield from walk(node[token], tail, (*done, token))
        elif isinstance(node, dict) and token in node:
            yield from walk(node[token], tail, (*done, token))

    yield from walk(data, parse(path), ())


def list_prefix(path: str) -> tuple[str, int] | None:
    """For ``a.items[3].x``: the list path ``a.items`` and the index 3 of its last list index."""
    tokens = parse(path)
    for position in range(len(tokens) - 1, -1, -1):
        token = tokens[position]
        if isinstance(token, int):
            return format_path(tokens[:position]), token
    return None
