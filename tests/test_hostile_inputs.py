"""Hostile values and harness inputs (issue 24): what a model returns or a file holds must end as a
scored failure or a clear error naming the file, never a crash, a lost case or a lost report.

Covered: an objective of ``10**400`` and values nested too deeply (scored ``output_format``), lone
surrogates and Unicode line separators in a response and a returned value (the session end, report,
manifest, gate and ``--record`` survive; the recording replays), a deeply nested replay line
(``FILE:LINE``, no INTERNALERROR), the size bound per record field, glpsol out of memory, a tbmath
tool report over the capture cap, and a warm pool's case that ran cold.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
from pathlib import Path

import execnet
import pytest

from adapters.base import CompletionRequest, Decoding
from adapters.replay import ReplayAdapter, ReplayFileError
from benchmark.categories import CaseOutcome, ExecutionCategory, InfrastructureCategory
from benchmark.files import dumps_line, split_lines
from benchmark.records import RecordSchemaError, read_records
from benchmark.sandbox import Limits, Outcome, PoolSandbox, SandboxKind, create_sandbox
from benchmark.suites.nldata.mathprog import interpret
from benchmark.suites.tbmath.workspace import Workspace
from benchmark.textsafe import RECORD_FIELD_CHARS, bound_text, scrub
from tests.conftest import FIXTURES, REPO
from tests.mmopt_support import instance_and_reference, score_answer

MF1 = "mmopt/network_optimization/maximum_flow/easy/mf_e_001"
MF1_DIR = FIXTURES / "network_optimization/maximum_flow/easy/mf_e_001"
HOSTILE_TEXT = "lone \ud800 surrogate, line\u2028separator, next\x85line, para\u2029graph"


def _stage1(code: str) -> str:
    return f"ASSUMPTIONS\n{HOSTILE_TEXT}\n\nMATHEMATICAL_MODEL\nmax flow\n\nPYTHON_CODE\n{code}"


def _reference_with_hostile_note() -> str:
    reference = (MF1_DIR / "ground_truth" / "solver_ref.py").read_text()
    return reference + (
        "\n\n_reference_solve = solve\n\n\ndef solve():\n    out = _reference_solve()\n"
        f"    out['note'] = {HOSTILE_TEXT!r}\n    return out\n"
    )


# ------------------------------------------------------------------------------- scored, not errors


def test_an_objective_too_large_for_a_float_is_output_format() -> None:
    instance, reference = instance_and_reference(MF1_DIR)
    for huge in (10**400, -(10**400)):
        verdict = score_answer("maximum_flow", instance, reference, {"objective_value": huge})
        assert not verdict.passed
        assert verdict.category == "output_format", verdict.detail
        assert "too large" in verdict.detail and len(verdict.detail) < 300


def test_an_objective_too_large_for_a_float_from_the_sandbox_is_output_format() -> None:
    instance, reference = instance_and_reference(MF1_DIR)
    with create_sandbox([REPO], prefer=SandboxKind.SUBPROCESS) as sandbox:
        ran = sandbox.run_solve("def solve():\n    return {'objective_value': 10**400}\n", Limits(60.0))
    assert ran.outcome is Outcome.OK, ran.error
    verdict = score_answer("maximum_flow", instance, reference, ran.value)
    assert verdict.category == "output_format", verdict.detail


_WRITE_VERDICT = """
import os, stat
def solve():
    body = b'{"outcome": "ok", "value": {"x": ' + b"[" * DEPTH + b"]" * DEPTH + b"}}"
    for name in os.listdir("/proc/self/fd"):
        try:
            if int(name) > 2 and stat.S_ISFIFO(os.fstat(int(name)).st_mode):
                os.write(int(name), body)
        except OSError:
            pass
    os._exit(0)
"""
_RETURN_NESTED = """
def solve():
    v = []
    for _ in range(DEPTH):
        v = [v]
    return {"x": v}
"""


@pytest.mark.parametrize("depth", [150, 5000])
def test_a_value_nested_too_deeply_is_output_format(depth: int) -> None:
    """Deeper than the runner can serialize (5000) and deeper than the harness keeps (150), both
    returned by solve() and written into the result channel by the candidate itself."""
    with create_sandbox([REPO], prefer=SandboxKind.SUBPROCESS) as sandbox:
        forged = sandbox.run_solve(f"DEPTH = {depth}\n" + _WRITE_VERDICT, Limits(60.0))
        returned = sandbox.run_solve(f"DEPTH = {depth}\n" + _RETURN_NESTED, Limits(60.0))
    for result in (forged, returned):
        assert result.outcome is Outcome.OUTPUT_FORMAT, result
        assert "nested too deeply" in result.error


def test_lone_surrogates_from_the_sandbox_are_replaced_not_kept() -> None:
    with create_sandbox([REPO], prefer=SandboxKind.SUBPROCESS) as sandbox:
        ran = sandbox.run_solve(
            f"def solve():\n    return {{{HOSTILE_TEXT!r}: {HOSTILE_TEXT!r}}}\n", Limits(60.0)
        )
    assert ran.outcome is Outcome.OK, ran.error
    assert ran.value is not None
    ((key, value),) = ran.value.items()
    assert key == value == HOSTILE_TEXT.replace("\ud800", "\ufffd")
    json.dumps(ran.value, ensure_ascii=False).encode("utf-8")  # writable as UTF-8


# --------------------------------------------------------------------------------- the whole session


def test_surrogates_and_line_separators_survive_the_session_the_recording_and_its_replay(
    bench, tmp_path: Path
) -> None:
    replay = tmp_path / "replay.jsonl"
    response = _stage1(_reference_with_hostile_note())
    replay.write_text(json.dumps({"case": f"{MF1}/stage1", "response": response}) + "\n")
    recording = tmp_path / "recorded.jsonl"
    run = bench(f"--model=replay:{replay}", "-k", "mf_e_001", "--gate=pass@1>=1.0", f"--record={recording}")
    assert run.returncode == 0, run.output[-3000:]
    assert "INTERNALERROR" not in run.output
    (record,) = run.records
    assert record["passed"], record
    assert (run.run_dir / "report.html").stat().st_size > 1000
    manifest = json.loads((run.run_dir / "manifest.json").read_text())
    assert manifest["sessions"][-1]["finished"] and manifest["sessions"][-1]["exitstatus"] == 0
    assert run.summary["run"]["gate"]["passed"] is True
    # The recording keeps the response exactly, on one line for any line splitter.
    text = recording.read_text(encoding="utf-8")
    assert len(text.splitlines()) == 1
    (line,) = [json.loads(raw) for raw in split_lines(text)]
    assert line["response"] == response
    again = bench(f"--model=replay:{recording}", "-k", "mf_e_001")
    assert again.returncode == 0, again.output[-3000:]
    assert [r["passed"] for r in again.records] == [True]


# ------------------------------------------------------------------------------------ harness inputs


def test_a_deeply_nested_replay_line_names_file_and_line(bench, tmp_path: Path) -> None:
    replay = tmp_path / "replay.jsonl"
    good = json.dumps({"case": f"{MF1}/stage1", "response": "x"})
    replay.write_text(good + "\n" + '{"case": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    with pytest.raises(ReplayFileError, match=rf"{replay}:2: nested too deeply"):
        ReplayAdapter(replay)
    run = bench(f"--model=replay:{replay}", "-k", "mf_e_001")
    assert "INTERNALERROR" not in run.output and "Traceback" not in run.output
    assert f"{replay}:2" in run.output
    assert run.returncode != 0


def test_replay_lines_end_only_at_newlines(tmp_path: Path) -> None:
    """A hand-written replay file with a raw U+2028 inside a response is one line, not two."""
    replay = tmp_path / "replay.jsonl"
    line = {"case": f"{MF1}/stage1", "response": "a\u2028b\x85c"}
    replay.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    request = CompletionRequest(case_key=f"{MF1}/stage1", messages=(), decoding=Decoding())
    completion = ReplayAdapter(replay).complete(request)
    assert completion.text == "a\u2028b\x85c"


def test_a_deeply_nested_record_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"case": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(RecordSchemaError, match=rf"{path}:1: nested too deeply"):
        read_records(path)


def test_dumps_line_round_trips_and_stays_one_line() -> None:
    value = {"text": HOSTILE_TEXT, "中文": "\U0001f600"}
    line = dumps_line(value)
    assert "\n" not in line and len(line.splitlines()) == 1
    line.encode("utf-8")
    assert json.loads(line) == value
    assert "中文" in line  # non-ASCII text stays readable


def test_enum_members_in_a_record_become_plain_strings() -> None:
    """execnet (xdist) refuses a StrEnum member; a scrubbed record holds none, values unchanged."""
    record = scrub({"outcome": CaseOutcome.FAILED, "category": ExecutionCategory.SYNTAX,
                    InfrastructureCategory.API_ERROR: [ExecutionCategory.RUNTIME]})  # fmt: skip
    assert record == {"outcome": "failed", "category": "syntax", "api_error": ["runtime"]}
    leaves = [record["outcome"], record["category"], *record, *record["api_error"]]
    assert {type(leaf) for leaf in leaves} == {str}
    execnet.dumps(record)


# ------------------------------------------------------------------------------ record size bounds


def test_a_huge_field_is_cut_with_a_marker() -> None:
    huge = "a" * 10 + "b" * (RECORD_FIELD_CHARS * 3) + "z" * 10
    record = scrub({"turns": [{"response": huge}], "detail": "short"}, RECORD_FIELD_CHARS)
    kept = record["turns"][0]["response"]
    assert len(kept) < RECORD_FIELD_CHARS + 200
    assert kept.startswith("aaaaaaaaaa") and kept.endswith("zzzzzzzzzz")
    assert f"{len(huge) - RECORD_FIELD_CHARS} of {len(huge)} characters cut" in kept
    assert record["detail"] == "short"
    assert bound_text("short", 10) == "short"


def test_a_huge_response_makes_a_bounded_record(bench, tmp_path: Path) -> None:
    replay = tmp_path / "replay.jsonl"
    padding = "# " + "p" * (3 * RECORD_FIELD_CHARS) + "\n"
    response = _stage1(padding + (MF1_DIR / "ground_truth" / "solver_ref.py").read_text())
    replay.write_text(json.dumps({"case": f"{MF1}/stage1", "response": response}) + "\n")
    run = bench(f"--model=replay:{replay}", "-k", "mf_e_001")
    assert run.returncode == 0, run.output[-3000:]
    size = (run.run_dir / "results.jsonl").stat().st_size
    assert size < 4 * RECORD_FIELD_CHARS, size  # was twice the response: code and transcript
    assert "characters cut from this field" in (run.run_dir / "results.jsonl").read_text()


# ------------------------------------------------------------------------------- smaller (item 16)

_HUGE_MODEL = """
var x{1..2000000} >= 0;
minimize z: sum{i in 1..2000000} x[i];
s.t. c{i in 1..2000000}: x[i] >= i;
end;
"""


def test_glpsol_out_of_memory_is_a_runtime_failure_not_syntax(tmp_path: Path) -> None:
    glpsol = shutil.which("glpsol")
    if glpsol is None:
        pytest.fail("glpsol is not installed (Debian package glpk-utils; scripts/setup.sh installs it)")
    model = tmp_path / "huge.mod"
    model.write_text(_HUGE_MODEL)

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (64 << 20, 64 << 20))

    ran = subprocess.run(
        [glpsol, "-m", str(model), "-w", str(tmp_path / "solution.txt")],
        capture_output=True, text=True, preexec_fn=cap_memory, timeout=120, check=False,
    )  # fmt: skip
    log = ran.stdout + ran.stderr
    assert "no memory available" in log, log[-1000:]
    execution = interpret(ran.returncode, log, None, _HUGE_MODEL, "", {})
    assert execution.category == "runtime", execution
    assert "out of memory" in execution.error


def test_a_tool_call_whose_report_exceeds_the_cap_gets_a_clear_error_not_base64() -> None:
    with create_sandbox([REPO], prefer=SandboxKind.SUBPROCESS) as sandbox:
        workspace = Workspace({"notes.txt": b"kept"})
        result = workspace.run(sandbox, "bash", "head -c 30000000 /dev/zero > big.bin; echo wrote", 60, 2000)
    assert result.error.startswith("the working directory would exceed"), result.error
    assert "changes discarded" in result.error and not result.error.startswith("ok")
    assert result.output.strip() == "wrote"
    assert workspace.files == {"notes.txt": b"kept"}


def test_a_case_a_warm_pool_ran_cold_says_so() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bwrap (Debian package bubblewrap) is not installed")
    with create_sandbox([REPO], prefer=SandboxKind.POOL) as pool:
        assert isinstance(pool, PoolSandbox)
        with pool.tracking() as ran:
            first = pool.run_solve("def solve():\n    return {}\n", Limits(60.0))  # no server yet
        assert first.outcome is Outcome.OK
        assert first.sandbox is SandboxKind.BWRAP and ran == [SandboxKind.BWRAP]
        assert pool.wait_until_warm(), pool.unavailable
        with pool.tracking() as ran:
            warm = pool.run_solve("def solve():\n    return {}\n", Limits(60.0))
        assert warm.sandbox is SandboxKind.POOL and ran == [SandboxKind.POOL]
