"""Text that code fills or ships, kept as files in a ``resources/`` folder next to that code.

Solver-code templates, scripts run inside the sandbox, and task or prompt text are data: kept next
to the module that uses them, they read (and diff) as the text they are, and ruff does not take a
template's ``{placeholders}`` for Python. The module keeps the logic that fills them. Two forms:

* one file per text (``*.tmpl`` for a ``str.format`` template, ``*.py.txt`` for a script used as
  is), read byte for byte by :func:`resource_text`;
* a TOML file of named fragments, read by :func:`text_fragments`, for text that comes in pieces
  (paragraphs chosen by the data). TOML because a paragraph that the code wraps with
  ``textwrap.fill`` is one long line: a line-ending backslash breaks it in the file without the
  break reaching the text.

The files are package data (``pyproject.toml``), found with :mod:`importlib.resources`, so they load
the same from a checkout, an editable install or a wheel.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from importlib.resources.abc import Traversable

FOLDER = "resources"


def _folder(module: str) -> Traversable:
    """The ``resources/`` folder of the package that holds the module named ``module``."""
    return files(module.rpartition(".")[0]) / FOLDER


def resource_text(module: str, name: str) -> str:
    """The text of file ``name`` among the resources of module ``module`` (pass ``__name__``),
    exactly as stored."""
    return _folder(module).joinpath(name).read_text(encoding="utf-8")


def text_fragments(module: str, name: str) -> dict[str, str]:
    """The named text fragments of TOML file ``name`` among the resources of module ``module``."""
    fragments = tomllib.loads(resource_text(module, name))
    if not all(isinstance(value, str) for value in fragments.values()):
        raise ValueError(f"{module}: every entry of {FOLDER}/{name} must be a string")
    return fragments
