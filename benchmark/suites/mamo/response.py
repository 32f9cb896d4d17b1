"""Taking the artifact out of a reply: Python for ODE questions, ``.lp`` text for optimization.

The paper cleans replies by removing markdown fences such as ```` ```python ```` before running
them (Sec. 4.1.1). We do the same a little more carefully: when the reply holds fenced blocks, the
first one tagged with the expected language is the artifact (else the first block); without fences
the whole reply is. A reply with no artifact at all breaks the response contract: an empty reply,
Python that never prints (the contract is a program that prints y(t0)), or text with no objective
section (every LP file starts with ``Maximize``/``Minimize`` or an abbreviation).
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


def _strip_fences(text: str, tags: tuple[str, ...]) -> str:
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    if not blocks:
        return text.replace("```", "").strip()
    tagged = [body for tag, body in blocks if tag in tags]
    return (tagged or [blocks[0][1]])[0].strip()


def extract_python(text: str) -> Extracted:
    code = _strip_fences(text, _PYTHON_TAGS)
    if not code:
        return Extracted(None, "the reply holds no code")
    if not _PRINT.search(code):
        return Extracted(None, "the code never calls print(); the contract is a program that prints y(t0)")
    return Extracted(code + "\n")


def extract_lp(text: str) -> Extracted:
    lp = _strip_fences(text, _LP_TAGS)
    if not lp:
        return Extracted(None, "the reply holds no .lp model")
    if not _LP_SENSE.search(lp):
        return Extracted(None, "the reply has no objective section (Maximize/Minimize): not an .lp file")
    return Extracted(lp + "\n")


def extract(text: str, *, ode: bool) -> Extracted:
    return extract_python(text) if ode else extract_lp(text)
