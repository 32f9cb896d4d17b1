"""The Stage-1 prompt (MM-OptBench App. F.1, Table 5), in our own words.

The contract is the paper's: the model gets the task text plus the visuals in order and answers in
three sections, ASSUMPTIONS, MATHEMATICAL_MODEL and PYTHON_CODE, where the code is self-contained,
embeds the instance data and defines a top-level ``solve()`` returning a JSON-serializable dict.
The oracle-reading and verified-extraction prompts keep that answer contract but replace the visuals
with a structured payload.
The wording below is ours. Changing it changes what every model is shown, which is why the rendered
prompt of a fixed instance is locked by a snapshot test.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from benchmark.messages import ImagePart, Message, TextPart
from benchmark.sandbox.environment import prompt_libraries
from benchmark.suites.mmopt.package import Package

#: Libraries generated code may import: the sandbox's pinned solver stack (plus the standard library),
#: generated from benchmark/sandbox/solver_stack.txt so the prompt and the sandbox cannot disagree.
ALLOWED_LIBRARIES: tuple[str, ...] = ("the Python standard library", *prompt_libraries())

SYSTEM_PROMPT = """\
You are an expert in operations research who turns problem statements into optimization models and \
working solver code. Instances come as text together with one or more images (network diagrams, \
maps, tables, charts, schedules); the images are a primary source of the numbers. Read every value \
carefully and do not invent data that you cannot read; if something is ambiguous, state the \
assumption you make. Formulate a correct model, prefer exact solution methods, and when a direct \
exact algorithm is simpler than a general solver, implement it directly. Keep the code compact. \
Dictionary keys in returned results must be JSON strings (never tuples). Answer in English and \
follow the requested output format exactly."""

_STAGE1_INSTRUCTIONS = """\
Case ID: {case_id}

Solve the optimization instance below from its task statement and the attached visuals, used \
together; the visuals carry instance data that the text does not repeat. Do the whole job: read \
the data, formulate the model, and write Python code that solves it.

Task statement:
{task_text}

Attached visuals, in order: {visual_names}

Answer with exactly these three sections, each starting on its own line with its name:

ASSUMPTIONS
Any interpretation you had to make, briefly.

MATHEMATICAL_MODEL
Sets, parameters, decision variables, objective and constraints.

PYTHON_CODE
A self-contained Python program, as plain text without markdown fences. It must write the instance \
data into the code itself (it cannot read any file), define a top-level function solve() that takes \
no arguments and returns a JSON-serializable dict with the key "status", the key "objective_value" \
and the decision values the task statement asks for. It may use only: {libraries}."""


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


_PAYLOAD_INSTRUCTIONS = """\
Case ID: {case_id}

You receive an optimization instance as a task statement plus a verified public-instance payload. \
Treat the payload as the authoritative public data of this case. Your task is downstream solving \
only: formulate the optimization model from the payload and write Python code that solves it. Do \
not re-infer the instance from any figure the task statement mentions; no figure is attached.

Rules for using the payload:
- Every value the model needs is in the payload; take it from there, unchanged.
- Labels in the payload (nodes, arcs and other entities) are the names the task statement uses, \
and the keys of the returned dict must use them.
- Where the payload and the wording of the task statement seem to disagree, the payload wins.

Structured public-instance payload (JSON):
{payload}

Original task statement, for context only:
{task_text}

Answer with exactly these three sections, each starting on its own line with its name:

ASSUMPTIONS
Any interpretation you had to make, briefly.

MATHEMATICAL_MODEL
Sets, parameters, decision variables, objective and constraints.

PYTHON_CODE
A self-contained Python program, as plain text without markdown fences. It must write the instance \
data into the code itself (it cannot read any file), define a top-level function solve() that takes \
no arguments and returns a JSON-serializable dict with the key "status", the key "objective_value" \
and the decision values the task statement asks for. It may use only: {libraries}."""


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
