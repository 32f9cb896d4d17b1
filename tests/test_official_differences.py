"""``docs/mmopt-official.md`` is the table ``official_differences.py`` generates, and every row
names a test that exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from benchmark.suites.mmopt.official_differences import DIFFERENCES, differences_for
from benchmark.suites.mmopt.subcategories import all_subcategories

REPO = Path(__file__).resolve().parents[1]


def test_the_docs_page_is_the_generated_table() -> None:
    generated = subprocess.run(
        [sys.executable, "scripts/mmopt_official_table.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (REPO / "docs" / "mmopt-official.md").read_text(encoding="utf-8") == generated


def test_every_subcategory_is_listed_and_every_row_names_a_test() -> None:
    names = set(all_subcategories())
    for name in names:
        assert differences_for(name), name  # the common rules at least
    for row in DIFFERENCES:
        assert set(row.applies_to) - {"*", "__official_rules__", "__validator__"} <= names, row.applies_to
    sources = "".join(
        (REPO / "tests" / f).read_text(encoding="utf-8")
        for f in ("test_official_scoring_modes.py", "test_official_answer_kinds.py")
    )
    for row in DIFFERENCES:
        assert re.search(rf"\bdef {re.escape(row.shown_by)}\(", sources), row.shown_by
    assert len(differences_for("maximum_flow")) == 2  # no status rule; the objective and nesting rules
    assert [row.shown_by for row in differences_for("workforce_planning_shift_scheduling")] == [
        "_failure_status",
        "_no_objective",
        "test_official_mode_gives_the_official_verdict",  # the release's objective keys
        "test_official_mode_gives_the_official_verdict",  # assignment_cost
        "test_official_mode_gives_the_official_verdict",  # one roster source, totals not compared
        "test_official_mode_gives_the_official_verdict",  # a field of the wrong shape
    ]
