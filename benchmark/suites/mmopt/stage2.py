"""Stage 2, the diagnostic follow-up (MM-OptBench §3.4, App. F.1 Table 5): extraction only.

After a failed Stage-1 sample the model is shown the same text and visuals and asked to return the
public instance data as JSON (``case_id``, ``problem_type``, ``extracted_data`` with
``structured_instance``, ``assumptions``, ``uncertain_or_missing``), without solving anything. The
extraction is compared with the public instance record; an answer that cannot be read as that JSON
is *unresolved*, with the reason it could not be read (Table 13's subtypes), never forced into a
cause.

So that answers are comparable, the prompt shows the shape the structured instance must take. The
shape is derived from the record itself (its keys and value types, values elided), so every
subcategory gets one without code of its own. A subcategory may narrow what is compared (and so
what is asked for) with an optional ``extraction`` module in its folder that defines
``public_record(instance_data) -> dict``; without one the whole ``instance_data.json`` is the public
record, as in the paper.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from benchmark.messages import ImagePart, Message, TextPart
from benchmark.resources import text_fragments
from benchmark.suites.mmopt.extraction import compare_extraction, is_label_mapping
from benchmark.suites.mmopt.generation.contracts import ExtractionModule
from benchmark.suites.mmopt.package import Package
from benchmark.suites.mmopt.prompts import SYSTEM_PROMPT
from benchmark.suites.mmopt.subcategories import folder_part


class Stage2Status(StrEnum):
    """How a Stage-2 answer compares with the public record (a record's ``extra.stage2.status``)."""

    MATCHED = "matched"
    MISMATCHED = "mismatched"
    UNRESOLVED = "unresolved"


class Unresolved(StrEnum):
    """Why a Stage-2 answer could not be used, in the order they are tested. The first five are the
    paper's parse-failure subtypes (Table 13); ``SCHEMA_MISMATCH`` is valid JSON that is not the
    extraction contract; ``INTERRUPTED`` is a follow-up that could not be obtained at all."""

    EMPTY_RESPONSE = "empty_response"
    INCOMPLETE_JSON = "incomplete_json"
    UNQUOTED_NUMERIC_KEYS = "unquoted_numeric_keys"
    PYTHON_LITERAL = "python_literal"
    OTHER_MALFORMED_JSON = "other_malformed_json"
    SCHEMA_MISMATCH = "schema_mismatch"
    INTERRUPTED = "interrupted"


#: :class:`Unresolved` as plain strings, in test order: they may become parametrize ids, which
#: travel to xdist workers (execnet serializes builtin types only).
UNRESOLVED_SUBTYPES: tuple[str, ...] = tuple(subtype.value for subtype in Unresolved)
PARSE_FAILURE_SUBTYPES: tuple[str, ...] = UNRESOLVED_SUBTYPES[:5]

_PROMPTS = text_fragments(__name__, "prompts.toml")
_STAGE2_INSTRUCTIONS = _PROMPTS["stage2"]


@dataclass(frozen=True)
class Stage2Reading:
    """A Stage-2 answer read as the extraction contract, or why it could not be."""

    structured_instance: dict[str, Any] | None
    unresolved: Unresolved | None = None
    detail: str = ""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Stage2Check:
    """A Stage-2 answer against the public record: matched, mismatched (with the fields that
    differ) or unresolved (with its subtype)."""

    status: Stage2Status
    differences: tuple[str, ...] = ()
    unresolved: Unresolved | None = None
    detail: str = ""
    structured_instance: dict[str, Any] | None = field(default=None, compare=False)
    notes: tuple[str, ...] = ()

    def as_record(self) -> dict[str, Any]:
        """What a result record keeps (the extraction itself is left out: it can be large)."""
        fields: dict[str, Any] = {"status": self.status}
        if self.differences:
            fields["differences"] = list(self.differences)
        if self.unresolved:
            fields["unresolved"] = self.unresolved
        if self.detail:
            fields["detail"] = self.detail
        if self.notes:
            fields["notes"] = list(self.notes)
        return fields


def public_record(package: Package) -> dict[str, Any]:
    """The public instance record: what Stage 2 must read and oracle-reading hands over."""
    extraction: ExtractionModule | None = folder_part(package.subcategory, "extraction", ExtractionModule)
    if extraction is not None:
        return dict(extraction.public_record(package.instance_data))
    return dict(package.instance_data)


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "<true/false>"
    if isinstance(value, int):
        return "<integer>"
    if isinstance(value, float):
        return "<number>"
    if value is None:
        return "null"
    return "<string>"


def _shape(value: Any, literal_strings: frozenset[str] = frozenset()) -> str:
    if isinstance(value, Mapping):
        if is_label_mapping(value):
            return '{"<label>": ' + _merged_shape(list(value.values())) + ", ...}"
        inner = ", ".join(f"{json.dumps(str(k))}: {_shape(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list | tuple):
        return "[]" if not value else "[" + _merged_shape(list(value)) + ", ...]"
    if isinstance(value, str) and value in literal_strings:
        return json.dumps(value)
    return _type_name(value)


def _merged_shape(values: list[Any]) -> str:
    """One shape for the entries of a list or mapping: records merge their keys, numbers their types."""
    if all(isinstance(v, Mapping) for v in values) and not any(is_label_mapping(v) for v in values):
        merged: dict[str, Any] = {}
        for value in values:
            for key, item in value.items():
                merged.setdefault(key, item)
                if isinstance(item, float) and isinstance(merged[key], int):
                    merged[key] = item
        return _shape(merged)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return "<number>" if any(isinstance(v, float) for v in values) else "<integer>"
    return _shape(values[0])


def structured_instance_shape(record: Mapping[str, Any], problem_type: str) -> str:
    """The shape of ``record`` with its values elided, one top-level field per line. A top-level
    string equal to the problem type (e.g. ``"problem": "maximum_flow"``) is a tag, not data, and is
    shown as it is."""
    tags = frozenset({problem_type})
    lines = [f"  {json.dumps(str(key))}: {_shape(value, tags)}" for key, value in record.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def stage2_messages(package: Package, case_id: str) -> list[Message]:
    """System + user message: the Stage-1 system prompt, then the extraction request with the visuals."""
    text = _STAGE2_INSTRUCTIONS.format(
        case_id=case_id,
        problem_type=package.subcategory,
        task_text=package.task_text.strip(),
        visual_names=", ".join(path.name for path in package.visuals),
        shape=structured_instance_shape(public_record(package), package.subcategory),
    )
    parts: list[TextPart | ImagePart] = [TextPart(text)]
    for path in package.visuals:
        parts.append(TextPart(f"\n{path.name}:"))
        parts.append(ImagePart.from_file(path))
    return [Message.text("system", SYSTEM_PROMPT), Message(role="user", parts=tuple(parts))]


def stage2_reference(package: Package) -> str:
    """The oracle's Stage-2 answer: the public record, exactly as the contract asks for it."""
    answer = {
        "case_id": package.instance_id,
        "problem_type": package.subcategory,
        "extracted_data": {
            "structured_instance": public_record(package),
            "assumptions": [],
            "uncertain_or_missing": [],
        },
    }
    return json.dumps(answer, indent=2)


_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(?P<body>.*?)\n\s*```\s*$", re.DOTALL)
_NUMERIC_KEY = re.compile(r"([{,]\s*)(-?\d+(?:\.\d+)?)(\s*:)")


def _balanced_end(text: str) -> int | None:
    """Index just past the bracket that closes ``text[0]``, or None when the text ends first
    (inside a string or with brackets still open): the mark of a cut-off answer."""
    stack: list[str] = []
    quote: str | None = None
    escaped = False
    pairs = {"{": "}", "[": "]"}
    for index, char in enumerate(text):
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in "\"'":
            quote = char
        elif char in pairs:
            stack.append(pairs[char])
        elif char in "}]":
            if not stack or stack.pop() != char:
                return index + 1  # unbalanced the other way: malformed, not cut off
            if not stack:
                return index + 1
    return None


def _unparsed(subtype: Unresolved, detail: str, notes: list[str]) -> Stage2Reading:
    return Stage2Reading(None, unresolved=subtype, detail=detail, notes=tuple(notes))


def parse_stage2(text: str, truncated: bool = False) -> Stage2Reading:
    """Read a Stage-2 answer. Tolerated (and noted): a markdown fence around the JSON and text
    before or after it. Everything else that is not the JSON contract is unresolved."""
    notes: list[str] = []
    if not text or not text.strip():
        return _unparsed(Unresolved.EMPTY_RESPONSE, "the Stage-2 answer is empty", notes)
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group("body").strip()
        notes.append("JSON was wrapped in a markdown fence")
    start = body.find("{")
    if start < 0:
        return _unparsed(Unresolved.OTHER_MALFORMED_JSON, "no JSON object in the Stage-2 answer", notes)
    if start > 0:
        notes.append("text before the JSON object was ignored")
    candidate = body[start:]
    try:
        value, end = json.JSONDecoder().raw_decode(candidate)
    except json.JSONDecodeError as exc:
        return _classify_malformed(candidate, exc, truncated, notes)
    if candidate[end:].strip():
        notes.append("text after the JSON object was ignored")
    extracted = value.get("extracted_data") if isinstance(value, dict) else None
    instance = extracted.get("structured_instance") if isinstance(extracted, dict) else None
    if not isinstance(instance, dict):
        return _unparsed(
            Unresolved.SCHEMA_MISMATCH,
            "valid JSON, but without an extracted_data.structured_instance object",
            notes,
        )
    return Stage2Reading(instance, notes=tuple(notes))


def _classify_malformed(
    candidate: str, error: json.JSONDecodeError, truncated: bool, notes: list[str]
) -> Stage2Reading:
    where = f"{error.msg} at line {error.lineno} column {error.colno}"
    end = _balanced_end(candidate)
    if end is None or truncated:
        cut = " (the reply was cut off by the output limit)" if truncated else ""
        return _unparsed(
            Unresolved.INCOMPLETE_JSON, f"the JSON ends before it is closed{cut}: {where}", notes
        )
    balanced = candidate[:end]
    quoted = _NUMERIC_KEY.sub(r'\1"\2"\3', balanced)
    if quoted != balanced:
        try:
            json.loads(quoted)
        except json.JSONDecodeError:
            pass
        else:
            return _unparsed(
                Unresolved.UNQUOTED_NUMERIC_KEYS, f"object keys are unquoted numbers: {where}", notes
            )
    try:
        literal = ast.literal_eval(balanced)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        literal = None
    if isinstance(literal, dict):
        return _unparsed(Unresolved.PYTHON_LITERAL, f"a Python literal, not JSON: {where}", notes)
    return _unparsed(Unresolved.OTHER_MALFORMED_JSON, f"not valid JSON: {where}", notes)


def check_stage2(text: str, package: Package, truncated: bool = False) -> Stage2Check:
    """Parse a Stage-2 answer and compare its structured instance with the public record."""
    reading = parse_stage2(text, truncated)
    if reading.structured_instance is None:
        assert reading.unresolved is not None
        return Stage2Check(
            Stage2Status.UNRESOLVED, unresolved=reading.unresolved, detail=reading.detail, notes=reading.notes
        )
    comparison = compare_extraction(public_record(package), reading.structured_instance)
    return Stage2Check(
        Stage2Status.MATCHED if comparison.matched else Stage2Status.MISMATCHED,
        differences=comparison.differences,
        structured_instance=reading.structured_instance,
        notes=reading.notes,
    )


def interrupted(detail: str) -> Stage2Check:
    """A follow-up that could not be obtained (the endpoint failed): unresolved, not a cause."""
    return Stage2Check(Stage2Status.UNRESOLVED, unresolved=Unresolved.INTERRUPTED, detail=detail)
