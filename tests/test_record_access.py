"""Case records are read through :class:`benchmark.schema.CaseRecord`'s attributes, not by string
key: a mistyped key is a silent ``None``, a mistyped attribute is an error mypy and the run see.

The test greps the harness and its scripts for ``record["…"]`` and ``record.get("…")`` (other dicts
are not named ``record``); only the schema module itself may read a record's JSON by key. The
suites' own parts of a record (``scores``, ``extra``, ``attempt.data``) are read through each
suite's typed detail models (``benchmark/suites/*/detail.py``), so a second grep finds a literal
key read from them: ``record.extra.get("…")``, ``"…" in r.scores``, ``attempt.data["…"]`` as a
value (writing one, ``attempt.data["…"] = …``, is what the detail models check).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRING_KEY_READ = re.compile(r"""\brecord(\[|\.get\()["']""")
SCHEMA_MODULE = Path("benchmark/schema.py")
DETAIL_KEY_READ = re.compile(
    r"""\b(r|record)\.(scores|extra)(\[|\.get\()["']"""
    r"""|["'][\w-]+["'] (not )?in (r|record)\.(scores|extra)\b"""
    r"""|\battempt\.data(\.get\(|\[["'][\w-]+["']\](?!\s*=[^=]))"""
)


def string_key_reads(pattern: re.Pattern[str] = STRING_KEY_READ) -> dict[Path, list[int]]:
    found: dict[Path, list[int]] = {}
    for top in ("benchmark", "adapters", "scripts"):
        for path in sorted((ROOT / top).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            hits = [number for number, line in enumerate(lines, start=1) if pattern.search(line)]
            if hits:
                found[path.relative_to(ROOT)] = hits
    return found


def test_no_record_is_read_by_string_key_outside_the_schema_module() -> None:
    outside = {str(path): lines for path, lines in string_key_reads().items() if path != SCHEMA_MODULE}
    assert outside == {}, f"records read by string key (use CaseRecord's attributes): {outside}"


def test_the_grep_sees_both_forms() -> None:
    assert STRING_KEY_READ.search('x = record["case"]') and STRING_KEY_READ.search("record.get('case')")
    assert not STRING_KEY_READ.search("record.case") and not STRING_KEY_READ.search('records["a"]')


def test_no_suite_detail_is_read_by_string_key() -> None:
    found = {str(path): lines for path, lines in string_key_reads(DETAIL_KEY_READ).items()}
    assert found == {}, f"suite detail read by string key (use the suite's detail models): {found}"


def test_the_detail_grep_sees_reads_and_not_writes() -> None:
    reads = ('r.extra.get("gate")', 'record.scores["ebc"]', '"o_eval" in r.scores', 'attempt.data["raw"]',
             'x = attempt.data["raw"] + 1', "attempt.data.get('a')", 'if attempt.data["a"] == 1:')  # fmt: skip  # noqa: E501
    assert all(DETAIL_KEY_READ.search(line) for line in reads)
    writes = ('attempt.data["raw"] = 1', "verdict.extra['stage2'] = x", "r.scores.get(name)", "r.extra")
    assert not any(DETAIL_KEY_READ.search(line) for line in writes)
