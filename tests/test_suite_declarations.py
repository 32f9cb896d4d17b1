"""Reports, markers and the command line come from each suite's declarations, not from knowledge
of the suite in the core."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from benchmark.cases import InstanceRef
from benchmark.cli import build_parser
from benchmark.plugin.evaluation import checked_verdict
from benchmark.suites.base import Grouping, get_suite, instance_markers, marker_declarations, suite_names
from benchmark.suites.mmopt.suite import FAMILY_SHORT_NAMES, SUITE
from benchmark.verdict import Verdict
from tests.conftest import FIXTURES, REPO


def _pytest(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_suite_declares_what_the_core_reads() -> None:
    for name in suite_names():
        suite = get_suite(name)
        assert set(g.label for g in suite.groupings) <= set(suite.labels), name
        assert suite.failure_categories and len(set(suite.failure_categories)) == len(
            suite.failure_categories
        )


def test_markers_are_declared_once_each_not_once_per_instance() -> None:
    done = _pytest("--markers")
    assert done.returncode == 0, done.stderr
    names = [line.split(":", 1)[0].removeprefix("@pytest.mark.") for line in done.stdout.splitlines()]
    names = [n for n in names if n and not n.startswith(" ")]
    assert [n for n, count in Counter(names).items() if count > 1] == []
    instances = SUITE.discover(FIXTURES)
    expected = {m for instance in instances for m in instance_markers(SUITE, instance)}
    assert expected <= set(names)
    assert {"network", "location", "easy", "medium", "hard", "maximum_flow"} <= expected
    assert 5 * len(expected) < len(instances)  # per label value, not per instance


def test_a_family_short_marker_selects_exactly_that_family(tmp_path: Path) -> None:
    for marker, family in (("network", "network_optimization"), ("location", "location_covering_assignment")):
        done = _pytest("--model=oracle", "--co", "-q", "-m", marker, f"--report-dir={tmp_path / marker}")
        ids = [line for line in done.stdout.splitlines() if "::test_case[" in line]
        every = [r for r in SUITE.discover(FIXTURES) if r.labels["family"] == family]
        assert len(ids) == len(every) > 0, done.stdout[-2000:]
        assert all(f"[mmopt/{family}/" in line for line in ids)


def test_a_family_added_later_gets_its_short_marker_from_the_table() -> None:
    ref = InstanceRef(
        "mmopt",
        ("routing_tour_optimization", "tsp", "hard", "tsp_h_001"),
        {"family": "routing_tour_optimization", "subcategory": "tsp", "difficulty": "hard"},
        FIXTURES,
    )
    assert instance_markers(SUITE, ref) == ("routing_tour_optimization", "routing", "tsp", "hard")
    assert marker_declarations(SUITE, [ref])["routing"].endswith("routing_tour_optimization (short name)")
    assert set(FAMILY_SHORT_NAMES.values()) == {
        "network", "location", "scheduling", "planning", "routing", "combinatorial"
    }  # fmt: skip


def test_groupings_order_values_as_declared() -> None:
    difficulty = Grouping("difficulty", order=("easy", "medium", "hard"))
    assert sorted(["hard", "zany", "easy", "medium", "alpha"], key=difficulty.sort_key) == [
        "easy", "medium", "hard", "alpha", "zany"
    ]  # fmt: skip
    assert Grouping("file", markers=False).marker_names("x.jsonl") == ()


def test_an_undeclared_failure_category_is_a_harness_bug() -> None:
    assert checked_verdict(SUITE, Verdict.fail("wrong_objective", "off by one")).category == "wrong_objective"
    with pytest.raises(ValueError, match="does not declare"):
        checked_verdict(SUITE, Verdict.fail("wrong_answer", "a category mmopt never declared"))


def test_the_command_line_carries_each_suites_commands() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {"summarize", "generate", "check-regeneration", "validate", "dataset-report"} <= set(commands)


def test_an_installed_package_adds_a_suite_through_the_entry_point_group(tmp_path: Path) -> None:
    """A real distribution on the path (a dist-info folder with entry_points.txt), no patching."""
    site = tmp_path / "site"
    (site / "extra_suite_pkg").mkdir(parents=True)
    (site / "extra_suite_pkg/__init__.py").write_text(
        "class _Suite:\n    name = 'extra'\n\nSUITE = _Suite()\n"
    )
    info = site / "extra_suite_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: extra-suite-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[optbench.suites]\nextra = extra_suite_pkg:SUITE\n")
    code = (
        "from benchmark.suites.base import get_suite, suite_names\n"
        "print(suite_names())\nprint(get_suite('extra').name)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(site)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    names, loaded = done.stdout.splitlines()
    assert "'extra'" in names and "'mmopt'" in names and loaded == "extra"
