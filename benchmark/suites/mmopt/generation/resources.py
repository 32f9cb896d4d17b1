"""The text of a subcategory plug-in, kept as files in the plug-in's ``resources/`` folder.

A plug-in's ``templates.py`` holds the logic that fills its templates; the templates themselves are
data and live next to it, where they read (and diff) as the text they produce and where ruff does not
take a solver template's ``{placeholders}`` for Python. Two kinds of file:

* ``*.tmpl``: one ``str.format`` template each (the reference solver, the mathematical model, the
  canonical specification), used byte for byte as stored;
* ``task_text.toml``: the task text's fragments by name. TOML because a paragraph that the code
  wraps (``textwrap.fill``) is one long line: a line-ending backslash lets the file break it without
  the break reaching the text.

The files are package data (``pyproject.toml``), found with :mod:`importlib.resources`, so they load
the same from a checkout, an editable install or a wheel.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from importlib.resources.abc import Traversable

FOLDER = "resources"
TASK_TEXT = "task_text.toml"


def _folder(module: str) -> Traversable:
    """The ``resources/`` folder of the package that holds the module named ``module``."""
    return files(module.rpartition(".")[0]) / FOLDER


def resource_text(module: str, name: str) -> str:
    """The text of file ``name`` in the resources of the plug-in module ``module`` (its
    ``__name__``), exactly as stored."""
    return _folder(module).joinpath(name).read_text(encoding="utf-8")


def text_fragments(module: str) -> dict[str, str]:
    """The task-text fragments of the plug-in module ``module`` (its ``__name__``), by name."""
    fragments = tomllib.loads(resource_text(module, TASK_TEXT))
    if not all(isinstance(value, str) for value in fragments.values()):
        raise ValueError(f"{module}: every entry of {FOLDER}/{TASK_TEXT} must be a string")
    return fragments
