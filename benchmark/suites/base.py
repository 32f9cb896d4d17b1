"""The suite plug-in interface and the context a suite gets to solve one case.

A suite knows its dataset layout, its prompts, its response contract and its scoring. The harness
knows everything else: collection, adapters, caching, the sandbox, records, resume and reports.
The :class:`CaseContext` is the only door between the two, so a suite never reaches into the
harness and the harness never into a suite's files.

What the harness shows of a suite comes from the suite's declarations, never from knowledge of
it: ``labels`` (the instance labels every record carries), ``groupings`` (the labels reports are
broken down by, in which order, and which become pytest markers) and ``failure_categories`` (the
model-failure classes its verdicts may carry, in report order).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import pkgutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import pytest

from adapters.base import Completion, CompletionRequest, Decoding, ModelAdapter
from benchmark.attempt import Attempt
from benchmark.cases import Case, InstanceRef
from benchmark.categories import ExecutionCategory
from benchmark.messages import Message
from benchmark.reporting.render import Table
from benchmark.sandbox import Limits, Sandbox
from benchmark.schema import CaseRecord, SuiteDetail, ValidationError
from benchmark.verdict import Verdict


@dataclass(frozen=True)
class RecordDetail:
    """The typed models of a suite's own parts of a record: what its verdicts write into
    ``scores`` and ``extra`` and its solving into ``attempt.data``. The harness checks every
    attempt and verdict against them before the record is written, so an undeclared or mistyped
    key is a harness error of the case (named, with the model that refused it), never a silent
    ``None`` for a later reader."""

    scores: type[SuiteDetail]
    extra: type[SuiteDetail]
    attempt_data: type[SuiteDetail]

    def check_attempt(self, suite: str, attempt: Attempt) -> None:
        _check(suite, "attempt.data", self.attempt_data, attempt.data)

    def check_verdict(self, suite: str, verdict: Verdict) -> None:
        _check(suite, "scores", self.scores, verdict.scores)
        _check(suite, "extra", self.extra, verdict.extra)

    def check_extra(self, suite: str, extra: Mapping[str, Any]) -> None:
        _check(suite, "extra", self.extra, extra)


def _check(suite: str, part: str, model: type[SuiteDetail], values: Mapping[str, Any]) -> None:
    try:
        model.check(values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{part}.{'.'.join(str(step) for step in error['loc'])}: {error['msg']}" for error in exc.errors()
        )
        raise ValueError(f"suite {suite} wrote a record that {model.__name__} refuses: {problems}") from None


@dataclass(frozen=True)
class Grouping:
    """A label the reports break results down by (a "By <label>" table).

    ``order`` lists values that come first, in that order (easy → medium → hard); others follow
    alphabetically. With ``markers``, every value is a pytest marker (``-m hard``); ``aliases``
    gives some values a second, short marker (``network_optimization`` → ``-m network``).
    ``compare`` and ``split`` put the label into the views beyond the summary's tables, so the core
    reads which labels those views use from the suite rather than knowing any suite's labels.
    """

    label: str
    order: tuple[str, ...] = ()
    markers: bool = True
    aliases: Mapping[str, str] = field(default_factory=dict)
    compare: bool = False
    """``compare RUN_A RUN_B`` breaks the paired difference down by this label (in grouping order);
    the first two such labels are the rows and columns of the HTML report's heat maps. Meant for
    coarse labels: a breakdown into many small groups gives intervals too wide to read."""
    split: bool = False
    """A held-out split draws its instance *k* of each value of the split labels with the
    generator of the public instance *k* (``_001`` of one subcategory and difficulty), so the
    ``contamination`` check pairs them; its rows are the first split label every record carries."""

    def sort_key(self, value: str) -> tuple[int, str]:
        return (self.order.index(value) if value in self.order else len(self.order), value)

    def marker_names(self, value: str) -> tuple[str, ...]:
        if not self.markers:
            return ()
        alias = self.aliases.get(value)
        return (value,) if alias is None or alias == value else (value, alias)


@dataclass
class Accounting:
    """Model-side cost of one case, summed over every call the suite made for it."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float | None = None
    cache_hits: int = 0
    truncated: bool = False
    shared_from: list[str] = field(default_factory=list)
    """Cases whose cached reply this case received because it sent the very same request."""

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.input_tokens += completion.usage.input_tokens or 0
        self.output_tokens += completion.usage.output_tokens or 0
        self.latency_s += completion.latency_s
        if completion.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + completion.cost_usd
        self.cache_hits += int(completion.cache_hit)
        self.truncated = self.truncated or completion.truncated
        if completion.shared_from is not None:
            self.shared_from.append(completion.shared_from)


@dataclass
class CaseContext:
    """What a suite may use while evaluating a case."""

    case: Case
    adapter: ModelAdapter
    sandbox: Sandbox
    limits: Limits
    objective_only: bool = False
    max_tokens: int = 16384
    accounting: Accounting = field(default_factory=Accounting)
    model_ids: list[str] = field(default_factory=list)
    models: Callable[[str], ModelAdapter] | None = None
    """The adapter of another model alias a suite asks besides the model under test (a code
    modifier, a judge), built by the harness on the same stack as the model under test: response
    cache, in-flight limit, request ledger and ``--max-cost``, and every call recorded as a turn."""

    def complete(
        self,
        messages: Sequence[Message],
        reference: Callable[[], str] | None = None,
        *,
        key: str | None = None,
        model: str | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """Ask the model; ``reference`` is what the oracle answers with (other adapters ignore it).

        ``key`` names a follow-up call of the case (request key ``<case>/<key>``, also its replay
        key); ``model`` sends the call to another model alias (see :attr:`models`; None: the model
        under test); ``temperature`` overrides the sample's (a judge decodes greedily). Adapter
        faults propagate as :class:`adapters.base.AdapterError`."""
        request = case_request(
            self.case, messages, self.max_tokens, reference, key=key, temperature=temperature
        )
        completion = self._adapter_for(model).complete(request)
        self.accounting.add(completion)
        if completion.model_id not in self.model_ids:
            self.model_ids.append(completion.model_id)
        return completion

    def _adapter_for(self, model: str | None) -> ModelAdapter:
        if model is None or model == self.adapter.name:
            return self.adapter
        if self.models is None:
            raise ValueError(f"{self.case.key}: this harness offers no model besides {self.adapter.name}")
        return self.models(model)


def case_request(
    case: Case,
    messages: Sequence[Message],
    max_tokens: int,
    reference: Callable[[], str] | None = None,
    *,
    key: str | None = None,
    temperature: float | None = None,
) -> CompletionRequest:
    """The request a call of ``case`` sends (see :meth:`CaseContext.complete`): built here alone, so
    a suite's :meth:`Suite.first_request` makes byte for byte the request the case will send."""
    return CompletionRequest(
        case_key=case.key if key is None else f"{case.key}/{key}",
        messages=tuple(messages),
        decoding=Decoding(
            temperature=case.temperature if temperature is None else temperature,
            max_tokens=max_tokens,
            sample_index=case.sample,
        ),
        reference=reference,
    )


@runtime_checkable
class Suite(Protocol):
    name: str
    settings: tuple[str, ...]
    default_setting: str
    official_settings: tuple[str, ...]  # settings whose records make the official metrics
    labels: tuple[str, ...]
    """Instance labels copied into every record (e.g. family, subcategory, difficulty, instance_id)."""
    groupings: tuple[Grouping, ...]
    """Labels the reports break results down by, in report order; they also make the markers."""
    failure_categories: tuple[str, ...]
    """Every category a failed verdict of this suite may carry, in report order; any other is a
    harness error."""
    model_options: tuple[str, ...]
    """The long options (``--modifier-model``) whose value is a model alias the suite asks besides
    the model under test; the harness checks each alias and builds its adapter on the run's stack."""
    objective_label: str
    """What a record's returned/expected objective measures (tbmath: ``O-Eval``); JUnit properties
    are named after it."""
    run_settings: tuple[str, ...]
    """Settings one run collects together when none is chosen (``()``: the default setting only)."""
    detail: RecordDetail
    """The typed models of what the suite writes into a record's ``scores``, ``extra`` and
    ``attempt.data``; readers of those parts read them through these models."""

    def add_commands(self, add_command: Callable[..., argparse.ArgumentParser]) -> None:
        """Register the suite's ``python -m benchmark`` subcommands (dataset generation, checks)
        through ``add_command`` (``argparse``'s ``add_parser``); each sets ``handler``, a function
        of the parsed arguments that returns the exit status."""
        ...

    def add_options(self, group: pytest.OptionGroup) -> None:
        """Register the suite's own command-line options (every suite's, at startup)."""
        ...

    def configure(self, config: pytest.Config) -> None:
        """Read the suite's options once per process (xdist workers included) before cases run."""
        ...

    def report_tables(self, records: Sequence[CaseRecord]) -> list[Table]:
        """Suite-specific report tables built from the run's records (``[]`` when none); they go
        into ``summary.json``, ``summary.md`` and the terminal summary after the common tables."""
        ...

    def default_dataset(self) -> Path:
        """The dataset the project ships for this suite."""
        ...

    def discover(self, dataset: Path) -> Sequence[InstanceRef]:
        """List the instances of a dataset root, cheaply and in a deterministic order."""
        ...

    def hidden_paths(self, dataset: Path) -> tuple[Path, ...]:
        """Paths generated code must not see (ground truth, references)."""
        ...

    def dataset_fingerprint(self, dataset: Path) -> dict[str, str]:
        """Dataset name, version and content hash for the run manifest."""
        ...

    def solve(self, case: Case, context: CaseContext) -> Attempt:
        """Everything of the case that costs: the model's turns, the extracted artifact, the sandbox
        runs. Raise :class:`benchmark.verdict.DatasetError` for a damaged package and
        :class:`adapters.base.OracleUnavailable` when no reference answer can run."""
        ...

    def score(self, case: Case, attempt: Attempt) -> Verdict:
        """The verdict of an attempt: pure, cheap and deterministic (no model, no sandbox), so a
        run's stored attempts can be scored again with today's code (``rescore``)."""
        ...

    def first_request(self, case: Case, max_tokens: int) -> CompletionRequest | None:
        """The first request ``solve`` will send (:func:`case_request`), built from the case alone
        for the generation phase (:mod:`benchmark.prefetch`); None when it is not known before
        the case runs (then the case is not prefetched)."""
        ...

    def run_info(self) -> dict[str, str]:
        """What the run manifest and summary record about how the suite scored (``{}``: nothing)."""
        ...

    def model_source(self, config: pytest.Config) -> str | None:
        """The run's model source when no ``--model`` is given (``artifacts:DIR``), else None."""
        ...

    def case_steps(self, record: CaseRecord) -> list[dict[str, Any]]:
        """What a case did between its model calls (an agent's tool runs), in order: ``call`` (the
        1-based model call that asked for it), ``tool``, ``input`` and ``result`` (short texts);
        the HTML report shows them in the case's timeline (``[]``: none)."""
        ...


class SuiteDefaults:
    """The defaults of a suite's optional hooks; a suite class derives from it and overrides what
    it has, so every hook the harness calls exists and the type checker sees each one."""

    model_options: tuple[str, ...] = ()
    objective_label: str = "objective"
    run_settings: tuple[str, ...] = ()

    def first_request(self, case: Case, max_tokens: int) -> CompletionRequest | None:
        return None

    def run_info(self) -> dict[str, str]:
        return {}

    def model_source(self, config: pytest.Config) -> str | None:
        return None

    def case_steps(self, record: CaseRecord) -> list[dict[str, Any]]:
        return []


#: Model-failure classes of any answer that is code run in the sandbox (:class:`ExecutionCategory`,
#: in pipeline order); suites add their scoring's own after these.
EXECUTION_CATEGORIES: tuple[str, ...] = tuple(ExecutionCategory)


def instance_markers(suite: Suite, instance: InstanceRef) -> tuple[str, ...]:
    """The pytest markers of an instance, from the suite's groupings."""
    names: list[str] = []
    for grouping in suite.groupings:
        value = instance.labels.get(grouping.label)
        if value is not None:
            names.extend(n for n in grouping.marker_names(value) if n not in names)
    return tuple(names)


def marker_declarations(suite: Suite, instances: Iterable[InstanceRef]) -> dict[str, str]:
    """One ``--markers`` line per distinct marker (not per instance), saying what it selects."""
    declared: dict[str, str] = {}
    for instance in instances:
        for grouping in suite.groupings:
            value = instance.labels.get(grouping.label)
            if value is None:
                continue
            for name in grouping.marker_names(value):
                what = value if name == value else f"{value} (short name)"
                declared.setdefault(name, f"{suite.name} cases whose {grouping.label} is {what}")
    return declared


#: Entry-point group through which an installed package adds a suite without editing this
#: repository: ``[project.entry-points."optbench.suites"] mysuite = "mypkg.suite:SUITE"``.
ENTRY_POINT_GROUP = "optbench.suites"


def _folder_suites() -> list[str]:
    package_dir = Path(__file__).parent
    return [
        info.name
        for info in pkgutil.iter_modules([str(package_dir)])
        if info.ispkg and (package_dir / info.name / "suite.py").is_file()
    ]


def _entry_point_suites() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def suite_names() -> tuple[str, ...]:
    """Every suite is a subpackage of ``benchmark.suites`` with a ``suite`` module exposing
    ``SUITE``, or an entry point of :data:`ENTRY_POINT_GROUP`; listing them imports nothing, so
    adding a suite touches only its own folder (or its own package)."""
    return tuple(sorted({*_folder_suites(), *_entry_point_suites()}))


def get_suite(name: str) -> Suite:
    if not name:
        raise ValueError("no suite: give --suite NAME or set optbench_suite in pytest.ini")
    if name in _folder_suites():
        suite: Suite = importlib.import_module(f"benchmark.suites.{name}.suite").SUITE
        return suite
    entry_point = _entry_point_suites().get(name)
    if entry_point is None:
        raise ValueError(f"unknown suite {name!r}; known suites: {', '.join(suite_names())}")
    loaded: Suite = entry_point.load()
    return loaded
