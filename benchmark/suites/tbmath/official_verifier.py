"""``--scoring=official`` for TB-MathModel: the task's own verifier decides, unmodified.

A task of the public release ships ``tests/test.sh``: ``pytest --ctrf /logs/verifier/ctrf.json
/tests/test_outputs.py -rA``, then, when every check passed, ``python /tests/score_result.py``,
which writes the reward to ``/logs/verifier/reward.txt``. This module does exactly that inside the
harness sandbox with the agent stack (``sandboxes.py``: pytest and pytest-json-ctrf at the pins of
the release's ``tests/Dockerfile``): the task's ``tests/`` folder is copied to ``/tests`` byte for
byte, the artifact is put at the absolute path ``task.toml`` declares, ``/logs/verifier`` is empty
and writable, and the whole verifier runs under ``task.toml``'s ``[verifier].timeout_sec``. Those
absolute paths exist because the bubblewrap sandbox links them into the case's work directory; a
plain-subprocess sandbox cannot offer them, and official scoring then refuses to run.

Verdicts: a failed check (pytest exit status 1) is the model's failure, reward 0, with each
check's outcome in the record; the reward of ``reward.txt`` otherwise. A verifier that cannot be
collected, exits with another status, crashes in ``score_result.py``, writes no reward or a reward
outside [0, 1], or runs past its timeout is a :class:`DatasetError` naming the script: the task's
fault, never the model's.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from benchmark.categories import InfrastructureCategory
from benchmark.resources import resource_text
from benchmark.sandbox import Limits, Outcome, Sandbox
from benchmark.suites.tbmath.tasks import OFFICIAL_CHECKS, OFFICIAL_SCORER, Task
from benchmark.verdict import DatasetError, InfrastructureError

PAYLOAD_FILE = "verifier_payload.json"
RESULT_PREFIX = "@@TBMATH_VERIFIER@@"
DEFAULT_TIMEOUT_S = 180.0  # the release's [verifier].timeout_sec when a task gives none
_OUTPUT_TAIL = 6000

# Runs inside the sandbox with the agent stack's interpreter: test.sh's two steps, reported as JSON.
_RUNNER = resource_text(__name__, "verifier_runner.py.txt")


@dataclass(frozen=True)
class OfficialResult:
    """The task's verifier's verdict on one artifact."""

    reward: float
    checks_passed: bool
    checks: tuple[dict[str, Any], ...]  # per test of test_outputs.py: name, status, message
    details: dict[str, Any] | None  # score_result.py's score_details.json, when it writes one
    wall_s: float
    output: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    def as_record(self) -> dict[str, Any]:
        return {
            "reward": self.reward,
            "checks_passed": self.checks_passed,
            "checks": list(self.checks),
            "details": self.details,
            "wall_s": round(self.wall_s, 4),
            "output": self.output,
        }


def absolute_artifact(task: Task) -> str:
    """Where the verifier reads the artifact: ``/root/<artifact path>`` (the release's layout)."""
    return str(PurePosixPath("/root") / task.artifact_path)


def _checks(ctrf: Any) -> tuple[dict[str, Any], ...]:
    tests = ((ctrf or {}).get("results") or {}).get("tests") if isinstance(ctrf, dict) else None
    if not isinstance(tests, list):
        return ()
    return tuple(
        {
            "name": str(t.get("name", "")),
            "status": str(t.get("status", "")),
            "message": str(t.get("message") or t.get("trace") or "")[:1000],
        }
        for t in tests
        if isinstance(t, dict)
    )


def run_official(task: Task, artifact: bytes | None, sandbox: Sandbox) -> OfficialResult:
    """Run the task's own verifier on ``artifact`` (None: the agent wrote none)."""
    if task.official_verifier is None:
        raise DatasetError(
            task.root / OFFICIAL_SCORER, f"--scoring=official needs {OFFICIAL_CHECKS} and {OFFICIAL_SCORER}"
        )
    timeout = task.timeouts.verifier_s or DEFAULT_TIMEOUT_S
    tests_dir = task.root / "tests"
    files = {
        path.relative_to(tests_dir).as_posix(): base64.b64encode(path.read_bytes()).decode("ascii")
        for path in sorted(tests_dir.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }
    payload = {
        "tests": files,
        "artifact": absolute_artifact(task),
        "artifact_bytes": None if artifact is None else base64.b64encode(artifact).decode("ascii"),
        "timeout_s": timeout,
        "output_tail": _OUTPUT_TAIL,
    }
    limits = Limits(
        wall_timeout_s=timeout + 60,
        memory_mb=sandbox.limits.memory_mb,
        output_bytes=8 * 1024 * 1024,
    )
    result = sandbox.run_script(_RUNNER, limits, files={PAYLOAD_FILE: json.dumps(payload)})
    if result.outcome is Outcome.SANDBOX_ERROR:
        raise InfrastructureError(InfrastructureCategory.SANDBOX_ERROR, result.error)
    report = None
    for line in reversed(result.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            report = json.loads(line[len(RESULT_PREFIX) :])
            break
    scorer = task.root / OFFICIAL_SCORER
    checks_file = task.root / OFFICIAL_CHECKS
    if report is None:
        raise DatasetError(
            scorer, f"the verifier did not finish ({result.outcome.value}): {result.error[-500:]}"
        )
    if not report["paths"]:
        raise InfrastructureError(
            InfrastructureCategory.SANDBOX_ERROR,
            "--scoring=official needs the bubblewrap sandbox: the task's verifier reads /tests, /logs "
            "and /root/results, which a plain subprocess cannot provide",
        )
    output = str(report.get("output") or "")
    if report.get("timed_out"):
        where = checks_file if report["timed_out"] == OFFICIAL_CHECKS.split("/")[-1] else scorer
        raise DatasetError(where, f"the verifier ran past its {timeout:g} s timeout (task.toml)")
    checks = _checks(report.get("ctrf"))
    wall = float(report.get("wall_s") or 0.0)
    rc = report.get("pytest_rc")
    if rc == 1:
        return OfficialResult(0.0, False, checks, None, wall, output)
    if rc != 0:
        raise DatasetError(
            checks_file, f"pytest exited with status {rc} (not a failed check): {output[-800:]}"
        )
    if report.get("scorer_rc") != 0:
        raise DatasetError(scorer, f"crashed with exit status {report.get('scorer_rc')}: {output[-800:]}")
    text = report.get("reward_text")
    try:
        reward = float(str(text).strip())
    except ValueError:
        raise DatasetError(scorer, f"wrote no readable /logs/verifier/reward.txt (got {text!r})") from None
    if not (math.isfinite(reward) and 0.0 <= reward <= 1.0):
        raise DatasetError(scorer, f"wrote a reward outside [0, 1]: {text!r}")
    details = report.get("details") if isinstance(report.get("details"), dict) else None
    return OfficialResult(reward, True, checks, details, wall, output)
