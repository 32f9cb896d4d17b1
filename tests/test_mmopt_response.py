"""The Stage-1 response parser: tolerant of formatting, strict about the contract."""

from __future__ import annotations

import pytest

from benchmark.suites.mmopt.response import parse_stage1

CODE = "def solve():\n    return {'status': 'optimal', 'objective_value': 1}\n"


def test_canonical_response() -> None:
    parsed = parse_stage1(f"ASSUMPTIONS\nnone\n\nMATHEMATICAL_MODEL\nmax x\n\nPYTHON_CODE\n{CODE}")
    assert parsed.code == CODE and parsed.violation is None and parsed.notes == ()
    assert parsed.sections["ASSUMPTIONS"] == "none" and parsed.sections["MATHEMATICAL_MODEL"] == "max x"


@pytest.mark.parametrize(
    "heading",
    ["## PYTHON_CODE", "**Python Code:**", "3. PYTHON CODE", "### Code", "Python code:", "PYTHON-CODE"],
)
def test_heading_variants(heading: str) -> None:
    parsed = parse_stage1(f"## Assumptions\nx\n## Mathematical Model\ny\n{heading}\n{CODE}")
    assert parsed.code == CODE


def test_fenced_code_is_unwrapped_and_noted() -> None:
    parsed = parse_stage1(
        f"ASSUMPTIONS\nx\nMATHEMATICAL_MODEL\ny\nPYTHON_CODE\n```python\n{CODE}```\nThat is all."
    )
    assert parsed.code == CODE
    assert "code was wrapped in a markdown fence" in parsed.notes


def test_comment_lines_inside_code_are_not_headings() -> None:
    code = "# ASSUMPTIONS\n# MODEL\ndef solve():\n    return {}\n"
    assert parse_stage1(f"PYTHON_CODE\n{code}").code == code


def test_code_block_without_heading_is_used_when_it_defines_solve() -> None:
    parsed = parse_stage1(f"Here is my answer.\n```python\n{CODE}```\n")
    assert parsed.code == CODE
    assert any("no PYTHON_CODE heading" in note for note in parsed.notes)


def test_truncated_fence_keeps_the_code() -> None:
    assert parse_stage1(f"PYTHON_CODE\n```python\n{CODE}").code == CODE


@pytest.mark.parametrize(
    ("text", "violation"),
    [
        ("", "empty response"),
        ("   \n", "empty response"),
        ("ASSUMPTIONS\nnone\nMATHEMATICAL_MODEL\nmax x", "no PYTHON_CODE section"),
        ("I am sorry, I cannot help with that.", "no PYTHON_CODE section"),
        ("ASSUMPTIONS\nx\nPYTHON_CODE\n\n", "the PYTHON_CODE section is empty"),
    ],
)
def test_contract_violations(text: str, violation: str) -> None:
    parsed = parse_stage1(text)
    assert parsed.code is None and parsed.violation is not None and parsed.violation.startswith(violation)
