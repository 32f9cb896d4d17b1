"""The Stage-1 prompt (MM-OptBench App. F.1, Table 5), in our own words.

The contract is the paper's: the model gets the task text plus the visuals in order and answers in
three sections, ASSUMPTIONS, MATHEMATICAL_MODEL and PYTHON_CODE, where the code is self-contained,
embeds the instance data and defines a top-level ``solve()`` returning a JSON-serializable dict.
The oracle-reading and verified-extraction prompts keep that answer contract but replace the visuals
with a structured payload.
The wording, kept in ``resources/prompts.toml``, is ours. Changing it changes what every model is
shown, which is why the rendered prompt of a fixed instance is locked by a snapshot test.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from benchmark.messages import ImagePart, Message, TextPart
from benchmark.resources import text_fragments
from benchmark.sandbox.environment import prompt_libraries
from benchmark.suites.mmopt.package import Package

#: Libraries generated code may import: the sandbox's pinned solver stack (plus the standard library),
#: generated from benchmark/sandbox/solver_stack.txt so the prompt and the sandbox cannot disagree.
ALLOWED_LIBRARIES: tuple[str, ...] = ("the Python standard library", *prompt_libraries())

_PROMPTS = text_fragments(__name__, "prompts.toml")
SYSTEM_PROMPT = _PROMPTS["system"]

_STAGE1_INSTRUCTIONS = _PROMPTS["stage1"]


def stage1_messages(package: Package, case_id: str) -> list[Message]:
    """System + user message; the user message carries the text, then each visual after its name."""
    visual_names = ", ".join(path.name for path in package.visuals)
    text = _STAGE1_INSTRUCTIONS.format(
        case_id=case_id,
        task_text=package.task_text.strip(),
        visual_names=visual_names,
        libraries="; ".join(ALLOWED_LIBRARIES),
    )
    parts: list[TextPart | ImagePart] = [TextPart(text)]
    for path in package.visuals:
        parts.append(TextPart(f"\n{path.name}:"))
        parts.append(ImagePart.from_file(path))
    return [Message.text("system", SYSTEM_PROMPT), Message(role="user", parts=tuple(parts))]


def oracle_response(package: Package) -> str:
    """The reference answer in the Stage-1 contract: the package's own model and solver code."""
    return (
        "ASSUMPTIONS\nThe instance is read exactly as recorded in the verified package.\n\n"
        f"MATHEMATICAL_MODEL\n{package.math_model.strip()}\n\n"
        f"PYTHON_CODE\n{package.solver_ref.strip()}\n"
    )


_PAYLOAD_INSTRUCTIONS = _PROMPTS["payload"]


def payload_messages(package: Package, case_id: str, payload: Mapping[str, Any]) -> list[Message]:
    """The oracle-reading and verified-extraction prompt (App. F.1): the public instance record (or
    a verified extraction of it) replaces the visuals, the task text stays for context only, and
    the answer contract is Stage 1's. Text only: no image is attached."""
    text = _PAYLOAD_INSTRUCTIONS.format(
        case_id=case_id,
        payload=json.dumps(payload, indent=1, sort_keys=True),
        task_text=package.task_text.strip(),
        libraries="; ".join(ALLOWED_LIBRARIES),
    )
    return [Message.text("system", SYSTEM_PROMPT), Message.text("user", text)]
