"""Held-out data (issue 25): the unseen instances shipped with every base task, and how the harness
learns a candidate's data names from glpsol's display of its data and writes the unseen data in
them. The end-to-end cases (a constant objective, a hard-coded value, a correct renamed model) are in
``test_nldata_e2e.py``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmark.sandbox import Limits, create_sandbox
from benchmark.suites.nldata import dataset
from benchmark.suites.nldata.execution import run_unseen, run_with_dump
from benchmark.suites.nldata.heldout import (
    Instance,
    data_names,
    dump_model,
    map_entities,
    parse_dump,
    unseen_data,
)
from benchmark.suites.nldata.mathprog import run_local
from benchmark.suites.nldata.records import Param, SetSpec, data_file
from benchmark.verdict import DatasetError
from tests.conftest import REPO

FIXTURES = REPO / "fixtures" / "nldata"
RECORDS = [
    json.loads(line) for path in sorted(FIXTURES.glob("*.jsonl")) for line in path.read_text().splitlines()
]


def test_every_base_task_has_two_verified_unseen_instances_with_other_optima() -> None:
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    assert manifest["unseen_per_task"] == 2
    assert sum(f["unseen_instances"] for f in manifest["files"].values()) == 2 * len(RECORDS) == 252
    for record in RECORDS:
        unseen = record["unseen"]
        optima = [record["objective"], *(u["objective"] for u in unseen)]
        assert len(unseen) == 2 and len({round(o, 6) for o in optima}) == 3, record["id"]
        assert all(
            u["sets"] != record["base"]["sets"] or u["params"] != record["base"]["params"] for u in unseen
        )
        for u in unseen:
            assert abs(u["cross_check"]["highs"] - u["objective"]) <= 1e-7 * max(1.0, abs(u["objective"]))
            assert {p["name"] for p in u["params"]} == {p["name"] for p in record["base"]["params"]}


def _gold_data(raw: dict, names: list[str]) -> str:
    """An instance's data file holding the parameters ``names`` (base, components or distractors)."""
    sets = tuple(SetSpec(s["name"], tuple(s["members"]), s["noun"], s["noun"]) for s in raw["sets"])
    by_name = {p["name"]: p for p in [*raw["params"], *raw["other_params"]]}
    return data_file(sets, [Param.from_json(by_name[name]) for name in names])


@pytest.mark.parametrize("record", RECORDS[::4], ids=[r["id"] for r in RECORDS[::4]])
def test_both_gold_models_reproduce_every_unseen_optimum(record: dict) -> None:
    """The plain gold model on the unseen data, and the derivation's on the components' values:
    each gold data file's parameter names, the unseen instance's values."""
    for setting in ("nl_data", "derivation"):
        task = record["settings"][setting]
        names = re.findall(r"^param (\w+)", task["gold_data"], re.MULTILINE)
        for raw in record["unseen"]:
            run = run_local(task["gold_model"], _gold_data(raw, names))
            expected = pytest.approx(raw["objective"], rel=1e-9)
            assert run.objective == expected, (record["id"], setting, run.error)


CANDIDATE = """\
set S;
set T;
param a{S};
param b{T, S} default 0;
param n_periods;
param hold;
param machines;
param label{S} symbolic;
var x{S} >= 0;
minimize z: sum{s in S} a[s] * x[s] + hold + machines;
s.t. c{s in S}: x[s] >= sum{t in T} b[t, s] / n_periods;
"""
CANDIDATE_DATA = (
    "data;\nset S := P1 P2;\nset T := 1 2;\nparam a := P1 3 P2 5.5;\nparam b := 1 P1 4 2 P2 2;\n"
    "param n_periods := 2;\nparam hold := 3;\nparam machines := 3;\n"
    "param label := P1 'first one' P2 two;\nend;\n"
)
SHOWN = Instance(
    1.0,
    {"PRODUCTS": ("P1", "P2"), "PERIODS": ("1", "2")},
    {
        "price": {("P1",): 3.0, ("P2",): 5.5},
        "need": {("P1", "1"): 4.0, ("P1", "2"): 0.0, ("P2", "1"): 0.0, ("P2", "2"): 2.0},
        "machines": {(): 3.0},
        "holding_cost": {(): 3.0},
    },
)
UNSEEN = Instance(
    2.0,
    {"PRODUCTS": ("P1", "P2", "P3"), "PERIODS": ("1", "2", "3")},
    {
        "price": {("P1",): 1.0, ("P2",): 2.0, ("P3",): 7.0},
        "need": {(p, t): 1.0 for p in ("P1", "P2", "P3") for t in ("1", "2", "3")},
        "machines": {(): 4.0},
        "holding_cost": {(): 6.0},
    },
)


def _display(model: str, data: str, names: list[str], tmp_path: Path) -> str:
    glpsol = shutil.which("glpsol")
    assert glpsol is not None
    (tmp_path / "m.mod").write_text(dump_model(model, names))
    (tmp_path / "m.dat").write_text(data)
    argv = [glpsol, "--check", "--math", "m.mod", "-d", "m.dat"]
    return subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=True).stdout


def test_names_are_mapped_by_contents_and_the_unseen_data_written_in_them(tmp_path: Path) -> None:
    names = data_names(CANDIDATE, CANDIDATE_DATA)
    assert names == ["S", "T", "a", "b", "n_periods", "hold", "machines", "label"]
    dumped = parse_dump(_display(CANDIDATE, CANDIDATE_DATA, names, tmp_path))
    assert dumped is not None
    assert dumped.sets == {"S": ("P1", "P2"), "T": ("1", "2")}
    assert dumped.params["label"] == {("P1",): "first one", ("P2",): "two"}
    # b gives two of its four entries; the default covers the rest, so it still matches need.
    assert dumped.params["b"][("1", "P1")] == 4.0 and dumped.params["b"][("2", "P2")] == 2.0
    mapping = map_entities(dumped, SHOWN)
    assert mapping.sets == {"S": "PRODUCTS", "T": "PERIODS"}
    assert mapping.params == {
        "a": ("price", False),
        "b": ("need", True),
        "n_periods": ("card(PERIODS)", False),
        "hold": ("holding_cost", False),
        "machines": ("machines", False),
    }
    # hold and machines are both 3, and both sets have two members: settled by name.
    assert mapping.ambiguous["hold"] == ["machines", "holding_cost"]
    assert mapping.ambiguous["n_periods"] == ["card(PRODUCTS)", "card(PERIODS)"]
    assert mapping.kept == {"label": "no value of the data equals it"}
    data = unseen_data(mapping, dumped, UNSEEN)
    assert "set S := P1 P2 P3;" in data and "param n_periods := 3;" in data and "param hold := 6;" in data
    assert "param label := P1 'first one' P2 two;" in data
    # glpsol reads it, and the model then sees the unseen instance: three products, prices 1, 2, 7.
    again = parse_dump(_display(CANDIDATE, data, names, tmp_path))
    assert again is not None and again.sets["S"] == ("P1", "P2", "P3")
    assert again.params["a"] == {("P1",): 1.0, ("P2",): 2.0, ("P3",): 7.0}
    assert again.params["b"][("3", "P3")] == 1.0


def test_in_the_sandbox_a_candidates_printf_cannot_forge_the_display_and_unseen_data_runs() -> None:
    """Its printf statements are removed before our display is added; the unseen data then gives the
    hand-computed optimum: prices 1 + 2 + 7 (each x at least 3 / 3), hold 6, machines 4."""
    forged = CANDIDATE + 'printf "NLDATA_DUMP_BEGIN\\na[P1] = 999\\nNLDATA_DUMP_END\\n";\n'
    limits = Limits(wall_timeout_s=60)
    with create_sandbox(()) as sandbox:
        names = data_names(forged, CANDIDATE_DATA)
        execution, dumped, _ = run_with_dump(forged, CANDIDATE_DATA, sandbox, limits, dump_names=names)
        assert (execution.status, execution.objective) == ("optimal", 17.5) and dumped is not None
        assert dumped.params["a"] == {("P1",): 3.0, ("P2",): 5.5}
        data = unseen_data(map_entities(dumped, SHOWN), dumped, UNSEEN)
        runs = run_unseen(
            forged, [data, data.replace("param hold := 6;", "param hold := 7;")], sandbox, limits
        )
    assert [(r.status, r.objective) for r in runs] == [("optimal", 20.0), ("optimal", 21.0)]


def test_a_dataset_line_without_unseen_instances_is_an_error_naming_the_line(tmp_path: Path) -> None:
    good = RECORDS[0]
    path = tmp_path / "x.jsonl"
    broken = {k: v for k, v in good.items() if k != "unseen"} | {"id": "x_002"}
    bad_objective = {**good, "id": "x_003", "unseen": [{**good["unseen"][0], "objective": "high"}]}
    path.write_text("\n".join(json.dumps(r) for r in (good, broken, bad_objective)) + "\n")
    refs = dataset.discover(tmp_path)
    assert len(dataset.load_task(refs[0], "nl").unseen) == 2
    with pytest.raises(DatasetError, match=r"x.jsonl:2: 'unseen' must be a non-empty list"):
        dataset.load_task(refs[1], "nl")
    with pytest.raises(DatasetError, match=r"x.jsonl:3: unseen\[0\]: 'objective' must be a number"):
        dataset.load_task(refs[2], "nl")
