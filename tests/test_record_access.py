"""Case records are read through :class:`benchmark.schema.CaseRecord`'s attributes, not by string
key: a mistyped key is a silent ``None``, a mistyped attribute is an error mypy and the run see.

The test greps the harness and its scripts for ``record["…"]`` and ``record.get("…")`` (other dicts
are not named ``record``); only the schema module itself may read a record's JSON by key.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRING_KEY_READ = re.compile(r"""\brecord(\[|\.get\()["']""")
SCHEMA_MODULE = Path("benchmark/schema.py")


def string_key_reads() -> dict[Path, list[int]]:
    found: dict[Path, list[int]] = {}
    for top in ("benchmark", "adapters", "scripts"):
        for path in sorted((ROOT / top).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            hits = [number for number, line in enumerate(lines, start=1) if STRING_KEY_READ.search(line)]
            if hits:
                found[path.relative_to(ROOT)] = hits
    return found


def test_no_record_is_read_by_string_key_outside_the_schema_module() -> None:
    outside = {str(path): lines for path, lines in string_key_reads().items() if path != SCHEMA_MODULE}
    assert outside == {}, f"records read by string key (use CaseRecord's attributes): {outside}"


def test_the_grep_sees_both_forms() -> None:
    assert STRING_KEY_READ.search('x = record["case"]') and STRING_KEY_READ.search("record.get('case')")
    assert not STRING_KEY_READ.search("record.case") and not STRING_KEY_READ.search('records["a"]')
