"""The JSONL dataset reader the Mamo and NLData2Opt loaders share."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark.jsonl import jsonl_files, numbered_objects
from benchmark.verdict import DatasetError


def test_files_in_path_order_hidden_ones_left_out(tmp_path: Path) -> None:
    for rel in ("b.jsonl", "a.jsonl", ".a.jsonl.tmp.jsonl", "sub/c.jsonl", ".hidden/d.jsonl", "e.json"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}\n")
    assert [p.name for p in jsonl_files(tmp_path)] == ["a.jsonl", "b.jsonl"]
    assert [p.relative_to(tmp_path).as_posix() for p in jsonl_files(tmp_path, recursive=True)] == [
        "a.jsonl",
        "b.jsonl",
        "sub/c.jsonl",
    ]
    assert jsonl_files(tmp_path / "e.json") == [tmp_path / "e.json"]  # a file is its own dataset
    with pytest.raises(DatasetError, match="does not exist"):
        jsonl_files(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match=r"no \*\.jsonl file"):
        jsonl_files(tmp_path / "empty")


def test_objects_are_numbered_by_line_and_a_bad_line_names_its_place(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": 1}\n\n{"id": 2}\n')
    assert numbered_objects(path) == ((1, {"id": 1}), (3, {"id": 2}))
    cases = (
        ("torn.jsonl", '{"id": 1}\n{"id"', 2, "not valid JSON"),
        ("list.jsonl", "[1]\n", 1, "not a JSON object"),
    )
    for name, text, line, problem in cases:
        bad = tmp_path / name
        bad.write_text(text)
        with pytest.raises(DatasetError, match=problem) as caught:
            numbered_objects(bad)
        assert caught.value.path == f"{bad}:{line}"
