"""What a task folder promises the agent and does not deliver: escaping links and missing files.

A copy of the public release often lacks some attachments (large files are left out of many
checkouts and mirrors), and nothing in the task says so: the agent just works without them. Three
signs of an absent file are read here, each naming the file it expects:

* ``environment/data/source_manifest.json`` lists ``visible_data`` paths (relative to
  ``environment/data/repo``) that do not exist;
* ``instruction.md`` or ``environment/data/problem.md`` names a data file (``.xlsx``, ``.csv``, …)
  that exists nowhere under ``environment/data`` and is not a file the task asks to be written;
* a numbered series of attachments in one folder has a gap (``附件1``, ``附件3``, ``附件4`` without
  ``附件2``; ``data_1.csv``, ``data_3.csv``): reported as "probably missing".

A symbolic link under ``environment/data`` that resolves outside the task folder is refused (it
would copy a host file into the agent's directory): the task becomes a dataset error.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from benchmark.verdict import DatasetError

MANIFEST = "source_manifest.json"
DATA_EXTENSIONS = ("xlsx", "xls", "csv", "zip", "txt", "mat", "json", "pdf", "docx")
_NAME_CHARS = r"[^\s/\\\"'`()（）,，:：;；。、\[\]<>]+"
_NAMED_FILE = re.compile(rf"({_NAME_CHARS}\.(?:{'|'.join(DATA_EXTENSIONS)}))\b")
_NUMBERED = re.compile(r"^(?P<stem>.*?)(?P<number>\d+)(?P<ext>\.[A-Za-z0-9]+)$")
# A file the text asks to be *written* ("save to result1.xlsx", "保存到 result2.xlsx") is not an input.
_WRITE_CUES = ("save", "write", "保存", "存放", "写入", "输出", "results/", "result")


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` (after resolving ``..`` and links) lies in ``root``."""
    real, base = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    return real == base or base in real.parents


def refuse_escaping_links(root: Path, data_dir: Path) -> None:
    """Raise :class:`DatasetError` for a link under ``data_dir`` that resolves outside ``root``."""
    if not data_dir.is_dir():
        return
    for folder, dirs, names in os.walk(data_dir):
        for name in [*dirs, *names]:
            path = Path(folder) / name
            if path.is_symlink() and not inside(path, root):
                raise DatasetError(
                    path, f"a link to {os.readlink(path)!r}, outside the task folder: not copied"
                )


def _manifest_gaps(data_dir: Path) -> list[str]:
    path = data_dir / MANIFEST
    if not path.is_file():
        return []
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(path, f"not valid JSON ({exc})") from None
    listed = manifest.get("visible_data") if isinstance(manifest, dict) else None
    if listed is None:
        return []
    if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
        raise DatasetError(f"{path}: visible_data", "must be a list of paths")
    out = []
    for item in listed:
        target = data_dir / "repo" / item
        if not inside(target, data_dir):
            raise DatasetError(f"{path}: visible_data", f"{item!r} leaves environment/data")
        if not target.exists():
            out.append(f"environment/data/repo/{item} (listed in {MANIFEST})")
    return out


def _named_gaps(data_dir: Path, texts: dict[str, str], present: set[str]) -> list[str]:
    out = []
    for source, text in texts.items():
        for line in text.splitlines():
            for name in _NAMED_FILE.findall(line):
                base = name.rsplit("/", 1)[-1]
                lowered = line.lower()
                # a name glued to the word before it (CJK text has no spaces) counts as present too
                known = base in present or any(base.endswith(name) for name in present if "." in name)
                if known or base == MANIFEST or any(cue in lowered for cue in _WRITE_CUES):
                    continue
                note = f"{base} (named in {source}, not under environment/data)"
                if note not in out:
                    out.append(note)
    return out


def _series_gaps(data_dir: Path) -> list[str]:
    out = []
    series: dict[tuple[Path, str, str], set[int]] = {}
    for path in data_dir.rglob("*"):
        match = _NUMBERED.match(path.name)
        if path.is_file() and match and path.name != MANIFEST:
            key = (path.parent, match["stem"], match["ext"].lower())
            series.setdefault(key, set()).add(int(match["number"]))
    for (folder, stem, ext), numbers in sorted(series.items()):
        if len(numbers) < 2 or max(numbers) > 50 or any(cue in stem.lower() for cue in _WRITE_CUES):
            continue
        for number in range(min(numbers), max(numbers)):
            if number not in numbers:
                rel = (folder / f"{stem}{number}{ext}").relative_to(data_dir.parent.parent).as_posix()
                out.append(f"{rel} (probably missing: the numbered series has a gap)")
    return out


def missing(root: Path, data_dir: Path, instruction: str) -> tuple[str, ...]:
    """Every attachment the task's files name or imply that its copy lacks, described for a reader."""
    if not data_dir.is_dir():
        return ("environment/data (the folder is missing)",)
    present = {p.name for p in data_dir.rglob("*")}
    texts = {"instruction.md": instruction}
    problem = data_dir / "problem.md"
    if problem.is_file():
        texts["problem.md"] = problem.read_text(encoding="utf-8", errors="replace")
    found = _manifest_gaps(data_dir) + _named_gaps(data_dir, texts, present) + _series_gaps(data_dir)
    return tuple(dict.fromkeys(found))
