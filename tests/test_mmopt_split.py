"""Held-out splits (``python -m benchmark generate --split NAME --seed-base N --out DIR``).

The split's seeds never meet the shipped ones (checked against every shipped ``meta.json`` and
every seed the shipped index range could use), the same name and seed base reproduce the packages
byte for byte, the packages pass the whole validation stack, and the split's name and version
reach every ``meta.json``, the manifest and the run manifest of ``pytest --dataset DIR``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmark.cli import main
from benchmark.suites.mmopt.generation import InstanceGenerator
from benchmark.suites.mmopt.generation.dataset import DATASET_VERSION, generate_dataset
from benchmark.suites.mmopt.generation.seeds import instance_seed
from benchmark.suites.mmopt.generation.split import SPLIT_SEED_FLAG, Split, is_split_seed
from benchmark.suites.mmopt.generation.validate import SKIPPABLE, validate
from benchmark.suites.mmopt.subcategories import all_subcategories
from benchmark.suites.mmopt.subcategories.base import DIFFICULTIES
from tests.conftest import FIXTURES, run_bench

SMALL = ("bipartite_assignment", "set_packing")  # quick to generate; the full split is run by hand
SHIPPED_INDEXES = range(1, 11)


def _generators() -> list[str]:
    return sorted(name for name, s in all_subcategories().items() if isinstance(s, InstanceGenerator))


def _seeds(root: Path) -> set[int]:
    return {json.loads(p.read_text(encoding="utf-8"))["seed"] for p in root.glob("*/*/*/*/meta.json")}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def small_split(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("split") / "heldout"
    generate_dataset(root, SMALL, per_difficulty=1, split=Split("heldout", 7))
    return root


def test_split_seeds_never_meet_the_shipped_seeds():
    shipped = _seeds(FIXTURES)
    assert len(shipped) >= 300 and not any(is_split_seed(seed) for seed in shipped)
    possible = {instance_seed(n, d, i) for n in _generators() for d in DIFFICULTIES for i in SHIPPED_INDEXES}
    assert shipped <= possible  # every shipped seed is one of the shipped index range's
    for split in (Split("heldout", 0), Split("heldout", 1), Split("audit-2026", 12345)):
        drawn = {split.seed(n, d, i) for n in _generators() for d in DIFFICULTIES for i in range(1, 51)}
        assert len(drawn) == len(_generators()) * len(DIFFICULTIES) * 50  # distinct within the split
        assert not drawn & possible and min(drawn) >= SPLIT_SEED_FLAG > max(possible)
    assert Split("heldout", 0).seed("set_packing", "easy", 1) != Split("heldout", 1).seed(
        "set_packing", "easy", 1
    )


def test_split_names_and_seed_bases_are_checked():
    for name in ("", "Has Space", "UPPER", "../up", "x" * 41):
        with pytest.raises(ValueError, match="split name"):
            Split(name, 0)
    for base in (-1, True, "3"):
        with pytest.raises(ValueError, match="seed base"):
            Split("ok", base)  # type: ignore[arg-type]
    assert Split("ok", 3).version("1.2.0") == "1.2.0+split.ok.3"


def test_a_split_records_its_name_and_version_and_uses_its_own_seeds(small_split):
    split = Split("heldout", 7)
    manifest = json.loads((small_split / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == f"{DATASET_VERSION}+split.heldout.7"
    assert manifest["split"] == {"name": "heldout", "seed_base": 7}
    assert len(manifest["packages"]) == len(SMALL) * len(DIFFICULTIES)
    for entry in manifest["packages"]:
        meta = json.loads((small_split / entry["path"] / "meta.json").read_text(encoding="utf-8"))
        assert meta["split"] == split.to_json() and meta["dataset_version"] == manifest["version"]
        assert meta["seed"] == split.seed(
            meta["subcategory"], meta["difficulty"], int(meta["instance_id"][-3:])
        )
    assert not _seeds(small_split) & _seeds(FIXTURES)


def test_the_same_name_and_seed_base_reproduce_every_byte(small_split, tmp_path):
    again = tmp_path / "again"
    generate_dataset(again, SMALL, per_difficulty=1, split=Split("heldout", 7))
    assert _files(again) == _files(small_split)


def test_a_split_passes_the_validation_stack(small_split):
    report = validate(small_split, processes=1)
    assert report.ok, report.summary()
    assert len(report.packages) == len(SMALL) * len(DIFFICULTIES)


def test_a_package_moved_to_another_split_breaks_the_seed_rule(small_split, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(small_split, copy)
    meta_path = next(copy.glob("*/*/*/*/meta.json"))
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["split"] = {"name": "other", "seed_base": 7}
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    report = validate(copy, processes=1, skip=frozenset(SKIPPABLE))
    label = meta_path.parent.relative_to(copy).as_posix()
    assert any(f.package == label and "the seed rule gives" in f.line() for f in report.failures), (
        report.summary()
    )


def test_a_split_and_the_shipped_set_never_share_a_root(small_split, tmp_path):
    with pytest.raises(ValueError, match=r"describes split 'heldout'.*refusing to add split 'other'"):
        generate_dataset(small_split, SMALL[:1], per_difficulty=1, split=Split("other", 7))
    with pytest.raises(ValueError, match="refusing to add the shipped set"):
        generate_dataset(small_split, SMALL[:1], per_difficulty=1)


def test_cli_requires_both_split_options(tmp_path, capsys):
    with pytest.raises(SystemExit, match="--split and --seed-base go together"):
        main(["generate", "--split", "heldout", "--out", str(tmp_path)])
    with pytest.raises(SystemExit, match="split name"):
        main(["generate", "--split", "Bad Name", "--seed-base", "1", "--out", str(tmp_path)])


@pytest.mark.slow
def test_pytest_runs_a_split_and_its_run_manifest_names_it(small_split, tmp_path):
    run = run_bench(tmp_path / "run", f"--dataset={small_split}", "--model=oracle", "-n", "2")
    assert run.returncode == 0, run.output[-3000:]
    assert len(run.records) == len(SMALL) * len(DIFFICULTIES) and all(r["passed"] for r in run.records)
    manifest = json.loads((run.run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["dataset"]["version"] == f"{DATASET_VERSION}+split.heldout.7"
    assert {r["dataset_version"] for r in run.records} == {manifest["dataset"]["version"]}
