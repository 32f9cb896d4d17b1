"""Taking the artifact out of a reply: Python for ODE questions, ``.lp`` text for optimization.

The paper cleans replies by removing markdown fences such as ```` ```python ```` before running
them (Sec. 4.1.1). We do the same a little more carefully: when the reply holds fenced blocks, the
first one tagged with the expected language is the artifact (else the first block); without fences
the whole reply is. A reply with no artifact at all breaks the response contract: an empty reply,
Python that never prints (the contract is a program that prints y(t0)), or text with no objective
section (every LP file starts with ``Maximize``/``Minimize`` or an abbreviation).

Only the model's own text is an answer. A base model often repeats the prompt before (or instead
of) answering, and the prompt holds worked examples in the very fences the contract asks for: taken
at its word, such a reply "answers" with the first example's code, which runs and prints the
example's value. So, given the prompt, an echoed start of the prompt is cut off the reply, and a
fenced block whose body is a verbatim part of the prompt is not a candidate; a reply left with
nothing of its own breaks the contract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.DOTALL | re.MULTILINE)
_PYTHON_TAGS = ("python", "py", "python3")
_LP_TAGS = ("lp", "cplex", "text", "txt", "plaintext")
_LP_SENSE = re.compile(
    r"^\s*(maximi[sz]e|minimi[sz]e|maximum|minimum|max|min)\b", re.IGNORECASE | re.MULTILINE
)
_PRINT = re.compile(r"\bprint\s*\(")


@dataclass(frozen=True)
class Extracted:
    """The artifact, or why there is none (``violation``)."""

    artifact: str | None
    violation: str = ""


_ECHO_START_CHARS = 60
"""A reply that begins with this many characters of the prompt is taken to be echoing it."""
_ECHO = "the reply only repeats the prompt (its worked examples are not an answer)"


def _normalized(text: str) -> str:
    return " ".join(text.split())


def own_text(reply: str, prompt: str) -> str:
    """``reply`` without the prompt it starts by repeating (the longest common start, when that is
    at least :data:`_ECHO_START_CHARS` characters), else all of it."""
    text, asked = reply.lstrip(), prompt.lstrip()
    if len(asked) < _ECHO_START_CHARS or not text.startswith(asked[:_ECHO_START_CHARS]):
        return reply
    shared = next((i for i, pair in enumerate(zip(text, asked, strict=False)) if pair[0] != pair[1]), None)
    return text[shared if shared is not None else min(len(text), len(asked)) :]


def _strip_fences(text: str, tags: tuple[str, ...], prompt: str | None) -> str | None:
    """The artifact's text, or None when every fenced block is a copy of part of the prompt."""
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    if not blocks:
        return text.replace("```", "").strip()
    if prompt is not None:
        asked = _normalized(prompt)
        blocks = [(tag, body) for tag, body in blocks if not body.strip() or _normalized(body) not in asked]
        if not blocks:
            return None
    tagged = [body for tag, body in blocks if tag in tags]
    return (tagged or [blocks[0][1]])[0].strip()


def extract_python(text: str, prompt: str | None = None) -> Extracted:
    code = _strip_fences(text, _PYTHON_TAGS, prompt)
    if code is None:
        return Extracted(None, _ECHO)
    if not code:
        return Extracted(None, "the reply holds no code")
    if not _PRINT.search(code):
        return Extracted(None, "the code never calls print(); the contract is a program that prints y(t0)")
    return Extracted(code + "\n")


def extract_lp(text: str, prompt: str | None = None) -> Extracted:
    lp = _strip_fences(text, _LP_TAGS, prompt)
    if lp is None:
        return Extracted(None, _ECHO)
    if not lp:
        return Extracted(None, "the reply holds no .lp model")
    if not _LP_SENSE.search(lp):
        return Extracted(None, "the reply has no objective section (Maximize/Minimize): not an .lp file")
    return Extracted(lp + "\n")


def extract(text: str, *, ode: bool, prompt: str | None = None) -> Extracted:
    """The artifact of ``text``; given the ``prompt`` it answers, from the model's own text only."""
    if prompt is not None:
        text = own_text(text, prompt)
        if not text.strip():
            return Extracted(None, _ECHO)
    return extract_python(text, prompt) if ode else extract_lp(text, prompt)
