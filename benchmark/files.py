"""The two ways the harness writes files that other processes read at the same time.

xdist workers, the controller and concurrent generators share run folders, the response cache and
dataset roots. Two primitives keep every reader safe, written once here:

- :func:`append_lines`: whole lines appended under an exclusive ``flock`` in one ``write`` call,
  so concurrent writers never interleave and a crash tears at most the last line (which every
  reader of a JSONL file here skips);
- :func:`write_atomically`: a temporary sibling renamed over the target (``os.replace``), so a
  reader sees the old file or the whole new one, never a part. The temporary name starts with a
  dot, which dataset globs skip.

:func:`locked` is the ``flock`` itself, for callers that serialize a longer section (rebuilding a
dataset's manifest, filling one cache entry). It is a leaf module (no harness imports), so adapters
may use it too.

The lines themselves: they end at ``"\n"`` only. ``str.splitlines`` also breaks at U+2028, U+2029,
U+0085 and a few control characters, which JSON allows raw inside strings, so a line holding one
would be torn; :func:`split_lines` does not. :func:`dumps_line` writes those characters, and lone
surrogates, as ``\\uXXXX`` escapes, so the line stays one line to any reader, encodes as UTF-8,
and reads back to the same string.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["append_lines", "dumps_line", "locked", "split_lines", "write_atomically"]

#: Characters that some line splitters break at or that UTF-8 cannot encode, escaped by dumps_line.
_ESCAPED = re.compile("[\u0085\u2028\u2029\ud800-\udfff]")


def dumps_line(value: Any, **options: Any) -> str:
    """``value`` as one JSON line (without its newline): readable non-ASCII text, but line
    separators and lone surrogates escaped."""
    text = json.dumps(value, ensure_ascii=False, **options)
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def split_lines(text: str) -> list[str]:
    """The lines of a JSONL text, broken at newlines only (a trailing carriage return is dropped)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def append_lines(path: Path, data: str | bytes, *, fsync: bool = False) -> None:
    """Append ``data`` (whole lines, each ending in a newline) to ``path`` under an exclusive lock;
    ``fsync`` makes it durable before returning (a result record must survive a killed worker)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not raw:
        return
    if not raw.endswith(b"\n"):
        raise ValueError(f"{path}: an append must end with a newline, so that lines stay whole")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, raw)
        if fsync:
            os.fsync(fd)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def write_atomically(path: Path, data: str | bytes, *, fsync: bool = False) -> None:
    """Replace ``path`` with ``data`` in one step; the file is readable by all (0644), as a plain
    write would leave it. ``fsync`` flushes the data before the rename (a cache entry)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:32]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide the file from other readers
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def locked(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """An exclusive ``flock`` on ``path`` (a directory, or a lock file created when missing) for the
    ``with`` block; yields False at once, holding nothing, when ``wait`` is off and it is taken."""
    if path.is_dir():
        fd = os.open(path, os.O_RDONLY)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
