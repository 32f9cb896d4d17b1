"""The Stage-1 prompt (MM-OptBench App. F.1, Table 5), in our own words.

The contract is the paper's: the model gets the task text plus the visuals in order and answers in
three sections, ASSUMPTIONS, MATHEMATICAL_MODEL and PYTHON_CODE, where the code is self-contained,
embeds the instance data and defines a top-level ``solve()`` returning a JSON-serializable dict.
The wording below is ours. Changing it changes what every model is shown, which is why the rendered
prompt of a fixed instance is locked by a snapshot test.
"""

from __future__ import annotations

from benchmark.messages import ImagePart, Message, TextPart
from benchmark.suites.mmopt.package import Package

#: Libraries generated code may import; the sandbox provides exactly these (plus the standard library).
ALLOWED_LIBRARIES: tuple[str, ...] = (
    "the Python standard library",
    "numpy",
    "scipy",
    "networkx",
    "pulp (with its bundled CBC solver)",
    "ortools",
    "highspy",
    "gurobipy (size-limited license: at most 2000 variables and 2000 constraints per model)",
)

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
