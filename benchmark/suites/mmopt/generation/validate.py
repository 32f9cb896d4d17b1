"""The validation stack over a dataset root: every check the construction protocol ran, run again on
what was shipped (MM-OptBench App. D.5; issue 3 item 1).

Generation accepts a candidate only when all of its stages pass, but a package on disk can still
drift from what was accepted: a hand edit, a stale file, a renderer or solver change, a damaged
copy. :func:`validate` re-derives each package's claims from its own files and from its seed and
names every disagreement as ``(package path, check, message)``:

``artifacts``
    every file present, JSON readable, checksums in ``meta.json`` match (:func:`~benchmark.suites.
    mmopt.package.load_package`);
``schema``
    ``meta.json`` has the fields and types the generator writes, agrees with the package's place in
    the tree and with ``solution_ref.json``, lists exactly the files present and the PNG sizes;
``structure``
    the subcategory's structural checks on ``instance_data.json``;
``reference_solve`` / ``cross_check``
    an exact re-solve (timed, within a runtime budget) and the independent method both reproduce
    ``solution_ref.json``'s objective within the scoring tolerance;
``validator``
    the scoring validator accepts ``solution_ref.json``'s decisions and recomputes its objective;
``nontriviality``
    the subcategory's nontriviality conditions hold for the shipped optimum;
``solver_ref``
    the shipped ``solver_ref.py`` reproduces the optimum with feasible decisions;
``regeneration``
    rebuilding from the recorded seed reproduces every JSON and text file byte for byte;
``visual_labels`` / ``visual_png`` / ``task_text``
    the visuals re-rendered from ``instance_data.json`` alone pass the label audit (every expected
    value drawn exactly, nothing else with digits, no overlap, legible size), are byte-identical to
    the shipped PNGs (so a shipped visual showing an extra or a missing value is caught), and the
    task text restates no number the visual carries.

The costly checks can be left out by name (:data:`SKIPPABLE`): CI runs the exhaustive stack without
them, because the oracle run replays every ``solver_ref.py`` and the unit tests regenerate and
re-render a sample of every subcategory; a package checked without them is reported as only partly
checked, with the names of what was left out.

A package of the official release (its ``meta.json`` is not one our generator wrote, or it has
none) cannot go through this stack: it has no seed, no checksums, no runnable ``solver_ref.py``.
It is certified instead (:mod:`.certify`): our validator checks its reference's decisions and our
exact model re-solves it, and the certificate table says per package whether the official
reference is optimal, not optimal, misreported or infeasible by our methods, or that we could not
certify it (and why). Packages whose subcategory has no generator plug-in get the checks that need
no plug-in and a ``skipped`` note saying which were not run; they are never reported as passed
silently. Dataset-level checks (``manifest``, ``generation_report``) are reported
under the package path ``"."``.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

from benchmark.cases import InstanceRef
from benchmark.suites.mmopt.generation.certify import (
    TABLE_HEADER,
    Certificate,
    certify_package,
    is_release_package,
)
from benchmark.suites.mmopt.generation.dataset import (
    DATASET_VERSION,
    GENERATION_REPORT,
    compare_package_files,
    regenerate_package,
)
from benchmark.suites.mmopt.generation.package import META, package_files
from benchmark.suites.mmopt.generation.pipeline import (
    GenerationError,
    replay_problems,
    run_solver_source,
    text_value_problems,
    visual_audit_problems,
)
from benchmark.suites.mmopt.generation.protocol import (
    ACCEPTED_STATUSES,
    FEASIBILITY_STATUSES,
    InstanceGenerator,
    ReferenceSolution,
    RenderedVisual,
    answer_value,
)
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.split import Split
from benchmark.suites.mmopt.package import Package, discover, load_package, reference_solver_problem
from benchmark.suites.mmopt.scoring import tolerance_for
from benchmark.suites.mmopt.subcategories import get_subcategory
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from benchmark.verdict import DatasetError

DATASET_LEVEL = "."
RUNTIME_BUDGET_S = 60.0  # issue 3: every reference solve finishes in under 60 s on this machine
NO_PLUGIN_NOTE = "no generator plug-in: structural/visual checks skipped"
#: Checks that may be left out (the costly ones): an exact re-solve, the in-process replay of
#: ``solver_ref.py``, the rebuild from the seed, and re-rendering the visuals.
SKIPPABLE = ("reference_solve", "solver_ref", "regeneration", "visuals")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_T = TypeVar("_T")


@dataclass(frozen=True)
class Failure:
    """One failed check: ``package`` is the path relative to the dataset root (``"."`` for the
    dataset as a whole)."""

    package: str
    check: str
    message: str

    def line(self) -> str:
        return f"{self.package}: {self.check}: {self.message}"


@dataclass(frozen=True)
class PackageValidation:
    """Everything :func:`validate` found for one package; ``reference_seconds`` is the wall time of
    the in-process reference re-solve (None when it was not run)."""

    package: str
    subcategory: str
    difficulty: str
    failures: tuple[Failure, ...]
    skipped: tuple[str, ...]
    reference_seconds: float | None
    seconds: float
    certificate: Certificate | None = None  # a release package's (see :mod:`.certify`)


@dataclass
class ValidationReport:
    root: Path
    packages: list[PackageValidation]
    dataset_failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    processes: int = 1

    @property
    def failures(self) -> list[Failure]:
        return self.dataset_failures + [f for package in self.packages for f in package.failures]

    @property
    def skipped(self) -> list[tuple[str, str]]:
        return [(package.package, note) for package in self.packages for note in package.skipped]

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def certificates(self) -> list[Certificate]:
        return [package.certificate for package in self.packages if package.certificate is not None]

    def certificate_table(self) -> list[str]:
        """The release packages' certificates as a Markdown table, with a count per verdict."""
        certificates = self.certificates
        if not certificates:
            return []
        counts: dict[str, int] = {}
        for certificate in certificates:
            counts[certificate.verdict] = counts.get(certificate.verdict, 0) + 1
        tally = ", ".join(f"{count} {verdict}" for verdict, count in sorted(counts.items()))
        return [
            *TABLE_HEADER,
            *(c.row() for c in certificates),
            f"{len(certificates)} release packages: {tally}",
        ]

    def summary(self) -> str:
        failed = {f.package for f in self.failures if f.package != DATASET_LEVEL}
        skipped = {package for package, _ in self.skipped}
        return (
            f"{len(self.packages)} packages validated in {self.seconds:.1f} s with {self.processes} "
            f"process(es): {len(self.packages) - len(failed)} pass, {len(failed)} fail, "
            f"{len(skipped)} only partly checked; {len(self.failures)} failures"
        )


class _Findings:
    """Failures and notes collected for one package while its checks run."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.failures: list[Failure] = []
        self.skipped: list[str] = []

    def fail(self, check: str, message: str) -> None:
        self.failures.append(Failure(self.package, check, message))

    def guarded(self, check: str, action: Callable[[], _T]) -> _T | None:
        """Run a plug-in call; damaged data may make it raise, which is that check's failure."""
        try:
            return action()
        except Exception as exc:  # a plug-in tripping over damaged data is a finding, not a crash
            self.fail(check, f"raised {type(exc).__name__}: {exc}")
            return None


def _relative(path: str, directory: Path) -> str:
    try:
        return Path(path).relative_to(directory).as_posix()
    except ValueError:
        return path


def _png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR chunk, or None when the bytes are not a PNG."""
    if len(data) < 24 or not data.startswith(_PNG_SIGNATURE):
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


_META_TYPES: dict[str, type] = {
    "instance_id": str,
    "family": str,
    "subcategory": str,
    "difficulty": str,
    "seed": int,
    "attempt": int,
    "generator_version": str,
    "dataset_version": str,
    "regime_tags": list,
    "formulation_size": dict,
    "verification": dict,
    "visuals": list,
    "checksums": dict,
}


def meta_field_problems(meta: Mapping[str, Any]) -> list[str]:
    """Missing or mistyped ``meta.json`` fields; the semantic checks need them (seed, difficulty …)."""
    return [
        f"meta.json {key} is missing or not a {kind.__name__}"
        for key, kind in _META_TYPES.items()
        if not isinstance(meta.get(key), kind) or isinstance(meta.get(key), bool)
    ]


def schema_problems(package: Package) -> list[str]:
    """Field types, then the cross-file consistency of ``meta.json`` as :mod:`.package` writes it."""
    meta = package.meta
    problems = meta_field_problems(meta)
    if problems:
        return problems
    place = {
        "family": package.family,
        "subcategory": package.subcategory,
        "difficulty": package.difficulty,
        "instance_id": package.instance_id,
    }
    for key, expected in place.items():
        if meta[key] != expected:
            problems.append(f"meta.json {key} is {meta[key]!r} but the package sits under {expected!r}")
    if meta["difficulty"] not in DIFFICULTIES:
        problems.append(f"meta.json difficulty {meta['difficulty']!r} is not one of {DIFFICULTIES}")
    elif package.instance_id[-3:].isdigit():  # the seed follows from the package's place (seeds.py)
        index = int(package.instance_id[-3:])
        split = meta.get("split")
        try:  # a held-out split's packages follow the split's seed rule (split.py)
            rule = instance_seed if split is None else Split.from_json(split).seed
        except (TypeError, KeyError, ValueError) as exc:
            problems.append(f"meta.json split {split!r} is not a split record ({exc})")
        else:
            seed = rule(package.subcategory, package.difficulty, index)
            if meta["seed"] != seed:
                problems.append(
                    f"meta.json seed is {meta['seed']}, the seed rule gives {seed} for this package"
                )
    else:
        problems.append(f"instance id {package.instance_id!r} does not end in a three-digit index")
    for key, value in meta["formulation_size"].items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            problems.append(f"meta.json formulation_size.{key} is not a non-negative integer")
    for key in ("variables", "constraints"):
        if not meta["formulation_size"].get(key):
            problems.append(f"meta.json formulation_size.{key} is missing or zero")
    if not all(isinstance(tag, str) for tag in meta["regime_tags"]):
        problems.append("meta.json regime_tags holds a non-string")
    verification, solution = meta["verification"], package.solution_ref
    if verification.get("status") != solution.get("status"):
        problems.append("meta.json verification.status differs from solution_ref.json status")
    if solution.get("status") not in ACCEPTED_STATUSES:
        problems.append(f"solution_ref.json status is {solution.get('status')!r}, not 'optimal'")
    numeric = (
        _is_number(verification.get("objective_value")) or solution.get("status") in FEASIBILITY_STATUSES
    )
    if not numeric or verification.get("objective_value") != solution.get("objective_value"):
        problems.append("meta.json verification.objective_value differs from solution_ref.json")
    if "objective_exact" in solution and solution["objective_exact"] != solution.get("objective_value"):
        problems.append("solution_ref.json objective_exact differs from its objective_value")
    on_disk = {
        p.relative_to(package.directory).as_posix() for p in package.directory.rglob("*") if p.is_file()
    }
    listed = set(meta["checksums"])
    for rel in sorted(on_disk - listed - {META}):
        problems.append(f"{rel} is in the package but not in meta.json checksums")
    shipped = [p.relative_to(package.directory).as_posix() for p in package.visuals]
    described = [entry.get("file") if isinstance(entry, dict) else None for entry in meta["visuals"]]
    if described != shipped:
        problems.append(f"meta.json visuals list {described} but the package holds {shipped}")
    else:
        for entry, path in zip(meta["visuals"], package.visuals, strict=True):
            size = _png_size(path.read_bytes())
            if size is None:
                problems.append(f"{entry['file']} is not a PNG")
            elif size != (entry.get("width_px"), entry.get("height_px")):
                problems.append(
                    f"{entry['file']} is {size[0]}×{size[1]} px, meta.json says "
                    f"{entry.get('width_px')}×{entry.get('height_px')}"
                )
    return problems


def _agree(a: float, b: float, tolerance: float) -> bool:
    return abs(a - b) <= tolerance


def _reference_solve_checks(
    findings: _Findings,
    generator: InstanceGenerator,
    package: Package,
    expected: float,
    tolerance: float,
    solve_budget_s: float,
) -> float:
    """The exact re-solve agrees with ``solution_ref.json`` within the budget; returns its wall time."""
    started = time.perf_counter()
    reference = findings.guarded("reference_solve", lambda: generator.reference_solve(package.instance_data))
    reference_seconds = time.perf_counter() - started
    if reference is not None:
        if reference_seconds > solve_budget_s:
            findings.fail("reference_solve", f"took {reference_seconds:.1f} s, budget {solve_budget_s:g} s")
        if reference.solution.get("status") != package.solution_ref.get("status"):
            findings.fail(
                "reference_solve",
                f"status {reference.solution.get('status')!r}, solution_ref.json says "
                f"{package.solution_ref.get('status')!r}",
            )
        elif not _agree(reference.objective, expected, tolerance):
            findings.fail(
                "reference_solve",
                f"re-solve gives {reference.objective:g}, solution_ref.json says {expected:g}",
            )
    return reference_seconds


def _solver_checks(
    findings: _Findings,
    generator: InstanceGenerator,
    package: Package,
    expected: float,
    tolerance: float,
    solve_budget_s: float,
    skip: frozenset[str],
) -> float | None:
    """Structure, exact re-solve, cross-check, validator, nontriviality and solver_ref; returns the
    reference solve's wall time (None when it was skipped)."""
    instance, difficulty = package.instance_data, package.difficulty
    for problem in (
        findings.guarded("structure", lambda: generator.structural_problems(instance, difficulty)) or []
    ):
        findings.fail("structure", problem)
    reference_seconds = None
    if "reference_solve" not in skip:
        reference_seconds = _reference_solve_checks(
            findings, generator, package, expected, tolerance, solve_budget_s
        )

    crossed = findings.guarded("cross_check", lambda: generator.cross_check(instance))
    if crossed is not None:
        method, objective = crossed
        if not _agree(objective, expected, tolerance):
            findings.fail("cross_check", f"{method} gives {objective:g}, solution_ref.json says {expected:g}")
        recorded = package.meta["verification"].get("cross_check")
        if method != recorded:
            findings.fail("cross_check", f"method is {method!r}, meta.json records {recorded!r}")

    status = package.solution_ref.get("status")
    verdict = (
        None  # a verified "infeasible" answer has no decisions to check
        if status == "infeasible"
        else findings.guarded("validator", lambda: generator.check_solution(instance, package.solution_ref))
    )
    if verdict is not None:
        if not verdict.feasible:
            findings.fail("validator", "rejects solution_ref.json: " + "; ".join(verdict.problems))
        elif status == "optimal" and (
            verdict.objective is None or not _agree(verdict.objective, expected, tolerance)
        ):
            findings.fail(
                "validator",
                f"recomputes objective {verdict.objective} from solution_ref.json, which says {expected:g}",
            )

    shipped = ReferenceSolution(
        solution=package.solution_ref, method=str(package.meta["verification"].get("reference_solver"))
    )
    for problem in (
        findings.guarded("nontriviality", lambda: generator.solution_problems(instance, shipped, difficulty))
        or []
    ):
        findings.fail("nontriviality", problem)

    unusable = reference_solver_problem(package)
    if unusable is not None:
        findings.fail("solver_ref", unusable)
    if "solver_ref" in skip:
        return reference_seconds
    replayed = findings.guarded("solver_ref", lambda: run_solver_source(package.solver_ref))
    if replayed is not None and status in FEASIBILITY_STATUSES:
        for problem in replay_problems(generator, instance, shipped, replayed):
            findings.fail("solver_ref", problem)
    elif replayed is not None:
        returned = replayed.get("objective_value")
        if replayed.get("status") != status:
            findings.fail(
                "solver_ref", f"returns status {replayed.get('status')!r}, solution_ref.json says {status!r}"
            )
        elif not _is_number(returned) or not _agree(float(returned), expected, tolerance):
            findings.fail(
                "solver_ref", f"returns objective {returned!r}, solution_ref.json says {expected:g}"
            )
        else:
            replay_check = findings.guarded(
                "solver_ref", lambda: generator.check_solution(instance, replayed)
            )
            if replay_check is not None and not replay_check.feasible:
                findings.fail(
                    "solver_ref", "returns infeasible decisions: " + "; ".join(replay_check.problems)
                )
    return reference_seconds


def _regenerated_visuals(
    findings: _Findings, generator: InstanceGenerator, package: Package, skip: frozenset[str]
) -> list[RenderedVisual] | None:
    """Regenerate from the seed (``regeneration`` check) and return the visuals of the shipped
    ``instance_data.json``: the regenerated ones when its bytes match, so the costly rendering runs
    once per package, and a fresh rendering of the shipped data otherwise (None when ``visuals`` is
    skipped)."""
    instance_path = package.directory / "ground_truth/instance_data.json"
    built = None
    try:
        if "regeneration" not in skip:
            built = regenerate_package(generator, package.meta)
    except GenerationError as exc:
        findings.fail("regeneration", f"no candidate accepted from the recorded seed ({exc})")
    if built is not None:
        files = package_files(
            built,
            str(package.meta.get("dataset_version", DATASET_VERSION)),
            split if isinstance(split := package.meta.get("split"), dict) else None,
        )
        diff = compare_package_files(findings.package, package.directory, files)
        prefix = f"{findings.package}: "
        for line in diff.text:
            findings.fail("regeneration", line.removeprefix(prefix))
        if files["ground_truth/instance_data.json"] == instance_path.read_bytes():
            return built.visuals
    if "visuals" in skip:
        return None
    visuals = findings.guarded("visual_png", lambda: generator.render(package.instance_data))
    return None if visuals is None else list(visuals)


def _visual_checks(
    findings: _Findings, generator: InstanceGenerator, package: Package, expected: float, skip: frozenset[str]
) -> None:
    instance = package.instance_data
    visuals = _regenerated_visuals(findings, generator, package, skip)
    if visuals is not None:
        for problem in (
            findings.guarded("visual_labels", lambda: visual_audit_problems(generator, instance, visuals))
            or []
        ):
            findings.fail("visual_labels", problem)
        if len(visuals) != len(package.visuals):
            findings.fail(
                "visual_png",
                f"instance_data.json renders {len(visuals)} visual(s), "
                f"the package ships {len(package.visuals)}",
            )
        for index, (visual, path) in enumerate(zip(visuals, package.visuals, strict=False)):
            if visual.png != path.read_bytes():
                findings.fail(
                    "visual_png",
                    f"visuals/visual_{index}.png differs from the rendering of instance_data.json "
                    "(a value added, removed or changed on the picture or in the record)",
                )
    values = findings.guarded("task_text", lambda: generator.visual_values(instance))
    if values is not None:
        for problem in text_value_problems(package.task_text, values, expected):
            findings.fail("task_text", problem.removeprefix("artifact: "))
    for path in package.visuals:
        if path.name not in package.task_text:
            findings.fail("task_text", f"does not name {path.name}, which the model must read")
    shipped = ReferenceSolution(solution=package.solution_ref, method="shipped")
    answer_key = '"status"' if shipped.is_feasibility_type else '"objective_value"'
    if answer_key not in package.task_text:
        findings.fail("task_text", f"does not ask for the answer key {answer_key}")


def validate_package(
    ref: InstanceRef, solve_budget_s: float = RUNTIME_BUDGET_S, skip: frozenset[str] = frozenset()
) -> PackageValidation:
    """Run every check on one package (see the module docstring for the list), but those in ``skip``."""
    started = time.perf_counter()
    label = "/".join(ref.path)
    findings = _Findings(label)
    subcategory_name, difficulty = ref.path[1], ref.path[2]
    reference_seconds = None
    if _release_package(ref):
        return _certified(ref, label, findings, solve_budget_s, started)
    try:
        package = load_package(ref)
    except DatasetError as exc:
        findings.fail("artifacts", f"{_relative(exc.path, ref.location)}: {exc.problem}")
        package = None
    if package is not None:
        reference_seconds = _check_loaded(findings, package, solve_budget_s, skip)
    return PackageValidation(
        package=label,
        subcategory=subcategory_name,
        difficulty=difficulty,
        failures=tuple(findings.failures),
        skipped=tuple(findings.skipped),
        reference_seconds=reference_seconds,
        seconds=time.perf_counter() - started,
    )


def _release_package(ref: InstanceRef) -> bool:
    meta_path = ref.location / META
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False  # damaged: the full stack reports it
    return isinstance(meta, dict) and is_release_package(meta)


def _certified(
    ref: InstanceRef, label: str, findings: _Findings, budget_s: float, started: float
) -> PackageValidation:
    """A release package: its certificate, a failure when the reference is not optimal by ours."""
    certificate = None
    try:
        certificate = certify_package(ref, budget_s)
    except DatasetError as exc:
        findings.fail("artifacts", f"{_relative(exc.path, ref.location)}: {exc.problem}")
    if certificate is not None and certificate.failed:
        findings.fail("certificate", f"{certificate.verdict}: {certificate.note}")
    if certificate is not None and certificate.verdict == "not certified":
        findings.skipped.append(f"not certified by our model: {certificate.note}")
    return PackageValidation(
        package=label,
        subcategory=ref.path[1],
        difficulty=ref.path[2],
        failures=tuple(findings.failures),
        skipped=tuple(findings.skipped),
        reference_seconds=None,
        seconds=time.perf_counter() - started,
        certificate=certificate,
    )


def _check_loaded(
    findings: _Findings, package: Package, solve_budget_s: float, skip: frozenset[str]
) -> float | None:
    subcategory = get_subcategory(package.subcategory)
    generator = subcategory if isinstance(subcategory, InstanceGenerator) else None
    expected = package.expected_objective
    tolerance = tolerance_for(package.subcategory)
    if generator is None:
        findings.skipped.append(NO_PLUGIN_NOTE)
        if subcategory is not None and expected is not None:
            verdict = findings.guarded(
                "validator", lambda: subcategory.check_solution(package.instance_data, package.solution_ref)
            )
            if verdict is not None and not verdict.feasible:
                findings.fail("validator", "rejects solution_ref.json: " + "; ".join(verdict.problems))
        return None
    if skip:
        findings.skipped.append(f"not run: {', '.join(c for c in SKIPPABLE if c in skip)}")
    for problem in schema_problems(package):
        findings.fail("schema", problem)
    expected = answer_value(package.solution_ref)  # feasibility-type answers count as 1.0 / 0.0
    if expected is None or meta_field_problems(package.meta):
        return None  # the semantic checks need meta.json's fields and a numeric answer
    reference_seconds = _solver_checks(
        findings, generator, package, expected, tolerance, solve_budget_s, skip
    )
    _visual_checks(findings, generator, package, expected, skip)
    return reference_seconds


def _dataset_problems(root: Path, refs: Sequence[InstanceRef]) -> list[Failure]:
    """A manifest that misses packages on disk, and generation-report counts that do not match."""
    failures = []
    listed = {"/".join(ref.path) for ref in refs}
    on_disk = {p.parent.relative_to(root).as_posix() for p in root.glob(f"*/*/*/*/{META}")}
    if (root / "manifest.json").is_file():
        for rel in sorted(on_disk - listed):
            failures.append(Failure(DATASET_LEVEL, "manifest", f"{rel} is on disk but not in manifest.json"))
    report_path = root / GENERATION_REPORT
    if report_path.is_file():
        entries = json.loads(report_path.read_text(encoding="utf-8")).get("subcategories", {})
        counts: dict[tuple[str, str], int] = {}
        for rel in listed:
            _, subcategory, difficulty, _ = rel.split("/")
            counts[(subcategory, difficulty)] = counts.get((subcategory, difficulty), 0) + 1
        for name, entry in sorted(entries.items()):
            for difficulty, tally in sorted(entry.get("difficulties", {}).items()):
                found = counts.get((name, difficulty), 0)
                if tally.get("accepted") != found:
                    failures.append(
                        Failure(
                            DATASET_LEVEL,
                            "generation_report",
                            f"{GENERATION_REPORT} says {tally.get('accepted')} accepted for "
                            f"{name}/{difficulty}, the dataset holds {found}",
                        )
                    )
    return failures


def default_processes() -> int:
    return max(1, min(4, len(os.sched_getaffinity(0))))


def _validate_one(job: tuple[InstanceRef, float, frozenset[str]]) -> PackageValidation:
    return validate_package(*job)


def validate(
    root: Path,
    *,
    processes: int | None = None,
    solve_budget_s: float = RUNTIME_BUDGET_S,
    select: Callable[[InstanceRef], bool] | None = None,
    skip: frozenset[str] = frozenset(),
) -> ValidationReport:
    """Validate every package under ``root`` (manifest or directory walk), optionally only those
    ``select`` accepts, with ``processes`` worker processes (forked: they inherit the imported
    solvers and matplotlib instead of importing them again, and need no ``__main__`` guard in the
    caller; 1 runs in this process), leaving out the checks named in ``skip`` (see :data:`SKIPPABLE`)."""
    unknown = sorted(set(skip) - set(SKIPPABLE))
    if unknown:
        raise ValueError(f"cannot skip {', '.join(unknown)}: the checks that can be left out are {SKIPPABLE}")
    started = time.perf_counter()
    workers = default_processes() if processes is None else max(1, processes)
    try:
        refs = discover(root)
    except DatasetError as exc:
        failure = Failure(DATASET_LEVEL, "manifest", f"{_relative(exc.path, root)}: {exc.problem}")
        return ValidationReport(root, [], [failure], time.perf_counter() - started, workers)
    dataset_failures = _dataset_problems(root, refs)
    chosen = [ref for ref in refs if select is None or select(ref)]
    jobs = [(ref, solve_budget_s, frozenset(skip)) for ref in chosen]
    if workers == 1 or len(jobs) <= 1:
        results = [_validate_one(job) for job in jobs]
    else:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = list(pool.imap(_validate_one, jobs, chunksize=1))
    return ValidationReport(root, results, dataset_failures, time.perf_counter() - started, workers)
