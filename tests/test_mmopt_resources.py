"""The text resources of the mmopt subcategory plug-ins agree with the code that fills them.

``str.format`` ignores a keyword its template does not name, and a template file that no code reads
is never noticed, so a field renamed on one side only, or a fragment left behind, would drift
silently. These checks read the plug-ins' source and their ``resources/`` folders and hold the two
together; the fixtures' byte identity (``check-regeneration``) shows what the templates produce.
"""

from __future__ import annotations

import ast
import fnmatch
import string
import tomllib
from pathlib import Path

import pytest

from benchmark.resources import FOLDER, resource_text, text_fragments
from tests.conftest import REPO

PLUGINS = REPO / "benchmark/suites/mmopt/subcategories"
TASK_TEXT = "task_text.toml"  # a plug-in's task-text fragments
FOLDERS = sorted(p.parent for p in PLUGINS.glob(f"*/{FOLDER}"))


def _module_constants(tree: ast.Module) -> dict[str, str]:
    """Module constant name → resource file, for every ``NAME = resource_text(__name__, "file")``."""
    found = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "resource_text"
        ):
            (target,) = node.targets
            assert isinstance(target, ast.Name)
            name = node.value.args[1]
            assert isinstance(name, ast.Constant) and isinstance(name.value, str)
            found[target.id] = name.value
    return found


def _fragment_keys(tree: ast.Module) -> set[str]:
    """The keys read from the task-text fragments: ``_TEXT["key"]``."""
    return {
        node.slice.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "_TEXT"
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    }


def _formatted(value: ast.expr) -> set[str]:
    """The constants a ``.format`` call may format: ``CONSTANT`` or ``(A if tier else B)``."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.IfExp):
        return _formatted(value.body) | _formatted(value.orelse)
    return set()


def _format_keywords(tree: ast.Module, constant: str) -> list[set[str]]:
    """The keyword sets of every ``CONSTANT.format(...)`` call (or ``(A if c else B).format``, one
    template per tier) that passes keywords by name only."""
    calls = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and constant in _formatted(node.func.value)
            and all(keyword.arg is not None for keyword in node.keywords)
        ):
            calls.append({str(keyword.arg) for keyword in node.keywords})
    return calls


def _fields(template: str) -> set[str]:
    """The top-level field names of a ``str.format`` template (nested format-spec fields included)."""
    names = set()
    for _, field, spec, _ in string.Formatter().parse(template):
        if field is not None:
            names.add(field.split(".")[0].split("[")[0])
            names |= _fields(spec or "")
    return names


def test_every_plugin_keeps_its_text_in_resources() -> None:
    plugins = sorted(p.parent for p in PLUGINS.glob("*/templates.py"))
    assert len(plugins) == 26
    assert plugins == FOLDERS


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_resource_is_read_and_every_field_is_filled(folder: Path) -> None:
    tree = ast.parse((folder / "templates.py").read_text(encoding="utf-8"))
    module = f"benchmark.suites.mmopt.subcategories.{folder.name}.templates"
    constants = _module_constants(tree)
    stored = {p.name for p in (folder / FOLDER).iterdir()}
    assert stored == set(constants.values()) | ({TASK_TEXT} if _fragment_keys(tree) else set())
    if TASK_TEXT in stored:
        assert set(text_fragments(module, TASK_TEXT)) == _fragment_keys(tree)
    for constant, name in constants.items():
        fields = _fields(resource_text(module, name))
        calls = _format_keywords(tree, constant)
        assert calls, f"{folder.name}: {constant} ({name}) is never filled"
        for keywords in calls:
            assert keywords == fields, f"{folder.name}/{name}: {sorted(keywords ^ fields)} on one side only"


def test_package_data_ships_every_resource() -> None:
    """A wheel holds the resources (of every suite, not only these plug-ins) only if
    ``pyproject.toml`` names them as package data."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["benchmark"]
    package = REPO / "benchmark"
    files = [p.relative_to(package).as_posix() for p in package.rglob(f"{FOLDER}/*") if p.is_file()]
    assert len(files) > len(FOLDERS)
    assert [f for f in files if not any(fnmatch.fnmatch(f, pattern) for pattern in patterns)] == []


def test_fragments_must_be_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fragment written as a TOML number or table is refused by name, not formatted as text."""
    package = tmp_path / "plugin_with_bad_text"
    (package / FOLDER).mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / FOLDER / TASK_TEXT).write_text('reading = """\nfine"""\nwidth = 100\n', encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=r"plugin_with_bad_text\.templates: every entry"):
        text_fragments("plugin_with_bad_text.templates", TASK_TEXT)
