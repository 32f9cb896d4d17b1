"""Case records are read through :class:`benchmark.schema.CaseRecord`'s attributes, not by string
key: a mistyped key is a silent ``None``, a mistyped attribute is an error mypy and the run see.

The test greps the harness for ``record["…"]`` and ``record.get("…")`` (other dicts are not named
``record``). One allowance is left, to be removed file by file as its code is converted (an
allowance that no longer matches anything fails, so the list only shrinks): the report writers that
still take the records as their written JSON mappings.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRING_KEY_READ = re.compile(r"""\brecord(\[|\.get\()["']""")
SCHEMA_MODULE = Path("benchmark/schema.py")
#: Report writers that read records as the JSON mappings ``latest_json`` gives them.
REPORT_WRITERS = frozenset(
    Path(name)
    for name in (
        "benchmark/reporting/html.py",
        "benchmark/reporting/summary.py",
        "benchmark/reporting/junit.py",
        "benchmark/suites/mmopt/attribution.py",
        "benchmark/suites/mmopt/attribution_tables.py",
        "benchmark/suites/mmopt/suite.py",
        "benchmark/suites/nldata/reporting.py",
        "benchmark/suites/tbmath/reporting.py",
        "benchmark/suites/tbmath/suite.py",
    )
)


def string_key_reads() -> dict[Path, list[int]]:
    found: dict[Path, list[int]] = {}
    for top in ("benchmark", "adapters"):
        for path in sorted((ROOT / top).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            hits = [number for number, line in enumerate(lines, start=1) if STRING_KEY_READ.search(line)]
            if hits:
                found[path.relative_to(ROOT)] = hits
    return found


def test_no_record_is_read_by_string_key_outside_the_schema_module() -> None:
    found = string_key_reads()
    outside = {
        str(path): lines
        for path, lines in found.items()
        if path != SCHEMA_MODULE and path not in REPORT_WRITERS
    }
    assert outside == {}, f"records read by string key (use CaseRecord's attributes): {outside}"


def test_every_allowance_still_matches_something() -> None:
    stale = sorted(str(path) for path in REPORT_WRITERS if path not in string_key_reads())
    assert stale == [], f"converted: drop these from REPORT_WRITERS: {stale}"


def test_the_grep_sees_both_forms() -> None:
    assert STRING_KEY_READ.search('x = record["case"]') and STRING_KEY_READ.search("record.get('case')")
    assert not STRING_KEY_READ.search("record.case") and not STRING_KEY_READ.search('records["a"]')
