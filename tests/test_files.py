"""The harness's two shared-file primitives: locked whole-line appends and atomic replacement."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
from pathlib import Path

import pytest

from benchmark.files import append_lines, locked, write_atomically

LINES_PER_WRITER = 200
#: Longer than a pipe's atomic-write size, so unlocked writers could interleave inside a line.
PAYLOAD = "x" * 8192


def _writer(path: str, writer: int) -> None:
    for index in range(LINES_PER_WRITER):
        append_lines(Path(path), json.dumps({"writer": writer, "index": index, "pad": PAYLOAD}) + "\n")


def test_concurrent_appends_keep_every_line_whole(tmp_path: Path) -> None:
    path = tmp_path / "log" / "lines.jsonl"
    processes = [multiprocessing.Process(target=_writer, args=(str(path), w)) for w in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted((line["writer"], line["index"]) for line in lines) == [
        (w, i) for w in range(4) for i in range(LINES_PER_WRITER)
    ]


def test_an_append_must_be_whole_lines(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="must end with a newline"):
        append_lines(tmp_path / "a.jsonl", '{"torn": true}')
    append_lines(tmp_path / "a.jsonl", "")  # nothing to write is no error and creates nothing
    assert not (tmp_path / "a.jsonl").exists()


def test_an_atomic_write_replaces_the_file_readably_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "manifest.json"
    write_atomically(target, "old\n")
    write_atomically(target, b"new\n", fsync=True)
    assert target.read_text() == "new\n" and os.listdir(target.parent) == ["manifest.json"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_a_failed_atomic_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "kept.json"
    write_atomically(target, "old\n")
    with pytest.raises(TypeError):
        write_atomically(target, 42)  # type: ignore[arg-type]
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["kept.json"]


def _hold(
    path: str, ready: multiprocessing.synchronize.Event, release: multiprocessing.synchronize.Event
) -> None:
    with locked(Path(path)):
        ready.set()
        release.wait(60)


@pytest.mark.parametrize("kind", ["file", "directory"])
def test_a_held_lock_is_refused_without_waiting(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "root" if kind == "directory" else tmp_path / "entry.lock"
    if kind == "directory":
        path.mkdir()
    ready, release = multiprocessing.Event(), multiprocessing.Event()
    holder = multiprocessing.Process(target=_hold, args=(str(path), ready, release))
    holder.start()
    try:
        assert ready.wait(60)
        with locked(path, wait=False) as held:
            assert held is False
    finally:
        release.set()
        holder.join(timeout=60)
    with locked(path, wait=False) as held:
        assert held is True
