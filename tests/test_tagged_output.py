"""Reading the result line a sandboxed script prints behind its suite's tag."""

from __future__ import annotations

from benchmark.tagged_output import tagged_object

TAG = "SUITE_RESULT "


def test_the_last_tagged_line_counts_and_other_output_is_ignored() -> None:
    stdout = f'noise\n{TAG}{{"n": 1}}\nmore noise {TAG}\n{TAG}{{"n": 2}}\ntrailing\n'
    assert tagged_object(stdout, TAG) == {"n": 2}


def test_no_line_a_torn_line_or_a_non_object_is_none() -> None:
    assert tagged_object("nothing tagged\n", TAG) is None
    assert tagged_object(f'{TAG}{{"n": 1}}\n{TAG}{{"n": 2', TAG) is None  # truncated report
    assert tagged_object(f"{TAG}[1, 2]\n", TAG) is None
