"""The task text of a package: a title, prose wrapped to one width, and the ``solve()`` output contract.

Usage in a subcategory's ``templates.py`` (new subcategories: start here, not from a copy), with
the paragraphs and the contract's key list in the plug-in's ``resources/task_text.toml``:

    from benchmark.resources import text_fragments
    from benchmark.suites.mmopt.generation.task_text import output_contract, task_text
    _TEXT = text_fragments(__name__, "task_text.toml")
    CONTRACT = output_contract(_TEXT["contract"])  # '- "status": "optimal" when ...;\\n- ...\\n'
    def task_input(record):
        return task_text("Title (family)", _TEXT["reading"], _TEXT["task"], contract=CONTRACT)

Every subcategory tells the model the same thing about the code it must write; only the keys of the
returned dict differ. Stating that sentence once (in ``generation/resources/task_text.toml``) keeps
the contract identical across subcategories (a model is never scored against a rephrased promise)
and keeps the task files byte-stable: the paragraphs are wrapped at :data:`WIDTH` columns, the
contract is written verbatim (its key list is laid out by hand, with examples that must not be
re-wrapped).
"""

from __future__ import annotations

import textwrap

from benchmark.resources import text_fragments

WIDTH = 100  # columns of the wrapped prose paragraphs

_TEXT = text_fragments(__name__, "task_text.toml")
SOLVE_PREAMBLE = _TEXT["solve_preamble"]
FEASIBILITY_PREAMBLE = _TEXT["feasibility_preamble"]


class Verbatim(str):
    """A paragraph laid out by hand (a list of rules, say): :func:`task_text` writes it as it is."""


def output_contract(keys: str, *, feasibility: bool = False) -> str:
    """The contract paragraph: the shared ``solve()`` sentence followed by ``keys``, one ``- "key": …``
    item a line (ending in a newline). ``feasibility`` names the model a feasibility model, for
    instances whose answer is a status rather than an optimum."""
    return (FEASIBILITY_PREAMBLE if feasibility else SOLVE_PREAMBLE) + keys


def task_text(title: str, *paragraphs: str, contract: str) -> str:
    """``title``, each prose paragraph wrapped at :data:`WIDTH` columns (a :class:`Verbatim` one
    as it is), then ``contract`` verbatim, separated by blank lines."""
    laid_out = (p if isinstance(p, Verbatim) else textwrap.fill(p, WIDTH) for p in paragraphs)
    return "\n\n".join([title, *laid_out, contract])
