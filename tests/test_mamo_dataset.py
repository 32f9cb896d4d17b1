"""Loading a Mamo dataset warns about questions whose prompt is identical but whose answers differ
(the public release's ODE file has a group of three), once per group, naming file, lines and ids."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from benchmark.suites.mamo.dataset import ConflictingAnswersWarning, conflicting_answers, discover
from tests.conftest import REPO

ODE, LP = "ordinary_differential_equation", "optimization"
TANKS = "Let brine tanks A, B, C be given ... Find the salt in tank {} at t = 5."


def _line(case_id: int, question: str, answer: str, category: str = ODE) -> dict[str, object]:
    kind = "system_equation" if category == ODE else "easy_lp"
    return {"id": case_id, "Question": question, "Answer": answer, "Category": category, "Type": kind}


def _release(folder: Path) -> Path:
    folder.mkdir()
    ode = [
        _line(1, TANKS.format("?"), "0.101"),
        _line(2, TANKS.format("?"), "4.31"),
        _line(3, "  " + TANKS.format("?").replace(" ... ", "   ...\n"), "17.3"),  # same words, other spacing
        _line(4, TANKS.format("A"), "1.5"),
        _line(5, TANKS.format("A"), "1.5"),  # a duplicate with the same answer is harmless
        _line(6, "Chairs and tables ...", "7"),
    ]
    lp = [_line(1, "Chairs and tables ...", "15", LP)]  # same text, other category: another prompt
    for name, lines in (("ode.jsonl", ode), ("lp.jsonl", lp)):
        (folder / name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def test_one_warning_per_group_names_file_lines_ids_and_answers(tmp_path: Path) -> None:
    release = _release(tmp_path / "release")
    (message,) = conflicting_answers(release)
    ode = release / "ode.jsonl"
    assert f"{ode}:1 (id 1), {ode}:2 (id 2), {ode}:3 (id 3)" in message
    assert "(0.101, 4.31, 17.3)" in message and message.startswith("3 questions")
    with pytest.warns(ConflictingAnswersWarning) as caught:
        assert len(discover(release)) == 7
    assert [str(w.message) for w in caught] == [message]


def test_a_dataset_without_conflicts_loads_silently(tmp_path: Path) -> None:
    release = _release(tmp_path / "release")
    lines = (release / "ode.jsonl").read_text().splitlines()
    (release / "ode.jsonl").write_text("\n".join(lines[3:]) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConflictingAnswersWarning)
        assert len(discover(release)) == 4
    assert conflicting_answers(REPO / "fixtures" / "mamo") == []


def test_a_session_shows_the_warning(tmp_path: Path) -> None:
    release = _release(tmp_path / "release")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--dataset=mamo:{release}", "--co", "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert output.count("ConflictingAnswersWarning") == 1 and f"{release / 'ode.jsonl'}:3 (id 3)" in output
