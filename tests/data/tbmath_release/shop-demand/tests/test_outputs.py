"""Structural checks of the artifact, written for optbench's tests in the release's form: the
file exists and is a JSON object, its identifiers match, the score configuration is usable, and
the answer has the sections the schema asks for."""

import json
import math
from pathlib import Path

ARTIFACT = Path("/root/results/shop-demand_result.json")
CHECKS = json.loads(Path("/tests/string_checks.json").read_text(encoding="utf-8"))
CONFIG = json.loads(Path("/tests/score_config.json").read_text(encoding="utf-8"))
REQUIRED_SECTIONS = ("problem_id", "model", "plan")


def artifact():
    assert ARTIFACT.is_file(), f"no artifact at {ARTIFACT}"
    try:
        data = json.loads(ARTIFACT.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise AssertionError(f"{ARTIFACT} is not JSON: {exc}") from exc
    assert isinstance(data, dict), "the artifact must be a JSON object"
    return data


def walk(data, dotted):
    node = data
    for part in dotted.replace("]", "").replace("[", ".").split("."):
        if isinstance(node, list):
            assert part.isdigit() and int(part) < len(node), f"{dotted}: no item {part}"
            node = node[int(part)]
        else:
            assert isinstance(node, dict) and part in node, f"{dotted}: no field {part}"
            node = node[part]
    return node


def test_identifiers_match():
    data = artifact()
    for check in CHECKS:
        found = str(walk(data, check["path"])).strip().upper()
        assert found == check["expected"].upper(), f"{check['path']}: {found!r} != {check['expected']!r}"


def test_config_is_usable():
    for metric in CONFIG["metrics"]:
        assert math.isfinite(float(metric["oracle_value"])), metric["path"]


def test_sections_present():
    data = artifact()
    missing = [key for key in REQUIRED_SECTIONS if key not in data]
    assert not missing, f"missing sections: {missing}"
