"""Reading a JSONL dataset (a directory of ``*.jsonl`` files or one file), for the suites that ship
their cases that way. Lines end at ``"\n"`` only (:func:`benchmark.files.split_lines`): a string
holding a raw U+2028 or U+0085 does not tear its line.

A line that is not a JSON object is fatal for its file, because without its id the case cannot even
be named: :class:`~benchmark.verdict.DatasetError` then names ``FILE:LINE``. Files are read once per
process (an xdist worker loads many cases of one file).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from benchmark.files import split_lines
from benchmark.verdict import DatasetError

NumberedObjects = tuple[tuple[int, dict[str, Any]], ...]


def jsonl_files(root: Path, *, recursive: bool = False) -> list[Path]:
    """``root`` itself when it is a file, else its ``*.jsonl`` files in path order (with
    ``recursive``, every one below it outside hidden folders)."""
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise DatasetError(root, "dataset path does not exist")
    found = root.rglob("*.jsonl") if recursive else root.glob("*.jsonl")
    files = sorted(p for p in found if not any(part.startswith(".") for part in p.relative_to(root).parts))
    if not files:
        raise DatasetError(root, "no *.jsonl file in the dataset directory")
    return files


@functools.lru_cache(maxsize=32)
def numbered_objects(path: Path) -> NumberedObjects:
    """(line number, object) for every non-blank line of ``path``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(path, f"cannot read the file ({exc})") from None
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{number}", f"not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise DatasetError(f"{path}:{number}", "nested too deeply to read") from None
        if not isinstance(obj, dict):
            raise DatasetError(f"{path}:{number}", "line is not a JSON object")
        rows.append((number, obj))
    return tuple(rows)
