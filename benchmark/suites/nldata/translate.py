"""AMPL as users write it, translated to GNU MathProg where MathProg lacks the construct (issue 25).

MathProg's sets keep the order their members were given in, but it has no ``ordered`` attribute and
none of AMPL's ordered-set functions. For every set ``S`` such a function is used on, the translation
declares two parameters right after ``S``: ``__ord_S{S}`` (a member's position, from one) and
``__at_S{1..card(S)}`` (the member at a position), and rewrites the calls:

=====================  ==============================================================
``ord(e, S)``          ``__ord_S[e]`` (``ord0``: 0 when ``e`` is not in ``S``)
``first(S)``           ``__at_S[1]``; ``last(S)``: ``__at_S[card(S)]``
``prev(e, S, k)``      ``__at_S[__ord_S[e] - k]``; ``next``: ``+ k`` (``k`` defaults to 1)
``prevw`` / ``nextw``  the same, wrapping around (``mod card(S)``)
``member(j, S)``       ``__at_S[j]``
=====================  ==============================================================

The set argument may be left out, as AMPL allows, when ``e`` is a dummy of the statement's own
indexing (``{t in S}``). When the data file assigns ``S`` (``set S := ...;``), the two parameters'
values are appended to the data file in that order; a set the model computes (``set S := 1..T;``)
gets them computed, by numeric order, which is its order. ``ordered``, ``circular`` and
``ordered by [reversed] T`` are removed from the set declaration. ``setof``, ``param ... default``
and ``within`` run unchanged. Every translation is recorded (``Translated.notes``); what it cannot
place (a function on a set it cannot name) stays, and glpsol's refusal is ``unsupported_syntax``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchmark.suites.nldata.statements import statement_spans

_FUNCTIONS = ("ord0", "ord", "first", "last", "prevw", "nextw", "prev", "next", "member")
_CALL = re.compile(r"\b(" + "|".join(_FUNCTIONS) + r")\s*\(")
_ORDERED = re.compile(r"\b(?:ordered(?:\s+by\s+(?:reversed\s+)?\w+)?|circular)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Translated:
    model: str
    data: str
    notes: tuple[str, ...]


def _arguments(text: str, open_at: int) -> tuple[list[str], int] | None:
    """The top-level comma-separated arguments of the call whose ``(`` is at ``open_at``, and the
    offset after its ``)``; None when it is never closed."""
    depth, start, out = 0, open_at + 1, []
    for position in range(open_at, len(text)):
        char = text[position]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                out.append(text[start:position].strip())
                return out, position + 1
        elif char == "," and depth == 1:
            out.append(text[start:position].strip())
            start = position + 1
    return None


def _statement_of(text: str, offset: int) -> str:
    return next((text[b:e] for _, b, e in statement_spans(text) if b <= offset < e), text)


def _set_of_dummy(statement: str, dummy: str) -> str | None:
    found = re.search(rf"\b{re.escape(dummy)}\s+in\s+([A-Za-z_]\w*)", statement)
    return found.group(1) if found else None


def _replacement(function: str, args: list[str], statement: str) -> tuple[str, str] | None:
    """(MathProg expression, set name) for one call, or None when the set cannot be named."""
    if function in ("first", "last"):
        if len(args) != 1 or not re.fullmatch(r"[A-Za-z_]\w*", args[0]):
            return None
        s = args[0]
        return (f"__at_{s}[1]" if function == "first" else f"__at_{s}[card({s})]"), s
    if not args or not args[0]:
        return None
    element = args[0]
    if len(args) >= 2 and re.fullmatch(r"[A-Za-z_]\w*", args[1]):
        s = args[1]
    elif len(args) == 1 and (nested := re.match(r"__at_(\w+)\[", element)):
        s = nested.group(1)  # prev(prev(t)): the inner call's set
    elif len(args) == 1 and re.fullmatch(r"[A-Za-z_]\w*", element):
        found = _set_of_dummy(statement, element)
        if found is None:
            return None
        s = found
    else:
        return None
    step = args[2] if len(args) == 3 else "1"
    position = f"__ord_{s}[{element}]"
    n = f"card({s})"
    expressions = {
        "ord": position,
        "ord0": f"(if {element} in {s} then {position} else 0)",
        "prev": f"__at_{s}[{position} - ({step})]",
        "next": f"__at_{s}[{position} + ({step})]",
        "prevw": f"__at_{s}[({position} - 1 - ({step}) + {n} * (1 + ({step}))) mod {n} + 1]",
        "nextw": f"__at_{s}[({position} - 1 + ({step})) mod {n} + 1]",
        "member": f"__at_{s}[{element}]",
    }
    return expressions[function], s


def _translate_calls(model: str) -> tuple[str, set[str], int]:
    """Innermost calls first, so ``prev(prev(t))`` works; returns the text, the sets used, and how many
    calls were translated."""
    used: set[str] = set()
    count = 0
    progress = True
    while progress:
        progress = False
        for match in _CALL.finditer(model):
            parsed = _arguments(model, match.end() - 1)
            if parsed is None:
                continue
            args, end = parsed
            if any(_CALL.search(a) for a in args):
                continue
            replaced = _replacement(match.group(1), args, _statement_of(model, match.start()))
            if replaced is None:
                continue
            expression, s = replaced
            model = model[: match.start()] + expression + model[end:]
            used.add(s)
            count += 1
            progress = True
            break
    return model, used, count


def _data_members(data: str, name: str) -> list[str] | None:
    """The members ``set NAME := ...;`` gives in the data file, in order (None when it does not)."""
    for word, begin, end in statement_spans(data):
        statement = data[begin:end]
        found = re.match(rf"set\s+{re.escape(name)}\s*:=(.*);\s*$", statement, re.DOTALL)
        if word == "set" and found:
            return [m for m in re.split(r"[\s,]+", found.group(1).strip()) if m]
    return None


def _declaration(model: str, name: str) -> tuple[int, int] | None:
    found = (
        (begin, end)
        for word, begin, end in statement_spans(model)
        if word == "set" and re.match(rf"set\s+{re.escape(name)}\b", model[begin:end])
    )
    return next(found, None)


def _after_data(model: str) -> str:
    """A model file's own ``data;`` section (empty when it has none)."""
    starts = [b for w, b, _ in statement_spans(model) if w.lower() == "data"]
    return model[starts[0] :] if starts else ""


def translate(model: str, data: str) -> Translated:
    """The MathProg translation of an AMPL model and data file (both already rewritten)."""
    notes: list[str] = []
    out = model
    for word, begin, end in reversed(statement_spans(model)):
        statement = out[begin:end]
        if word.lower() == "set" and _ORDERED.search(statement):
            cleaned = _ORDERED.sub("", statement)
            out = out[:begin] + cleaned + out[end:]
            notes.append(f"removed {', '.join(sorted(set(_ORDERED.findall(statement))))} from: {cleaned}")
    out, used, count = _translate_calls(out)
    if not used:
        return Translated(out, data, tuple(notes))
    notes.append(f"{count} ordered-set function call(s) on {', '.join(sorted(used))} as parameters")
    appended: list[str] = []
    for s in sorted(used):
        declaration = _declaration(out, s)
        if declaration is None:
            notes.append(f"no declaration of set {s}: its order cannot be given")
            continue
        members = _data_members(data, s) or _data_members(_after_data(out), s)
        if members is not None:
            params = f"\nparam __ord_{s}{{{s}}};\nparam __at_{s}{{1..card({s})}} symbolic;"
            positions = " ".join(f"{m} {i}" for i, m in enumerate(members, start=1))
            at = " ".join(f"{i} {m}" for i, m in enumerate(members, start=1))
            appended.append(f"param __ord_{s} := {positions};\nparam __at_{s} := {at};\n")
            notes.append(f"the order of {s} as its data file gives it")
        else:
            params = (
                f"\nparam __ord_{s}{{e in {s}}} := card({{u in {s}: u <= e}});"
                f"\nparam __at_{s}{{i in 1..card({s})}} := min{{u in {s}: __ord_{s}[u] = i}} u;"
            )
            notes.append(f"the order of {s}, which the model computes, by numeric value")
        out = out[: declaration[1]] + params + out[declaration[1] :]
    return Translated(out, _append_data(data, "".join(appended)), tuple(notes))


def _append_data(data: str, text: str) -> str:
    """``text`` before the data file's ``end;`` (or at its end)."""
    if not text:
        return data
    ends = [b for w, b, _ in statement_spans(data) if w.lower() == "end"]
    if ends:
        return data[: ends[-1]] + text + data[ends[-1] :]
    return data.rstrip() + "\n" + text
