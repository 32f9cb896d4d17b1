"""``--opt VALUE`` works like ``--opt=VALUE`` for every optbench value option, or says why not.

pytest picks its rootdir and ini file before any plugin option is known, so the value of an option
given after a space counts as a test path there: an existing path outside the checkout makes it
miss this project's ``pytest.ini`` (no ``testpaths``, no markers). Nothing a plugin does can pick
the ini file again, and running pytest anew from a hook (``os.execv``, as this module once did)
replaces the process under whoever started it; so that one case is a usage error naming the
``=`` form to write. Every other value works after a space, and xdist workers are handed the
``=`` form of all of them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmark.plugin.configuration import is_worker

#: This project's ini file, which a misread value makes pytest miss.
PROJECT_INI = Path(__file__).resolve().parents[2] / "pytest.ini"


@dataclass(frozen=True)
class ValueOptions:
    """Long names of the benchmark's options that take a value (the harness's and every suite's).

    Known once the options are declared, which is before any ``config`` exists, so this plugin
    object is registered by ``pytest_addoption`` and serves the hooks that come before
    configuration.
    """

    names: frozenset[str]

    def joined(self, args: list[str]) -> list[str]:
        """``--report-dir DIR`` rewritten as ``--report-dir=DIR`` for every optbench value option."""
        joined: list[str] = []
        index = 0
        while index < len(args):
            if args[index] in self.names and index + 1 < len(args):
                joined.append(f"{args[index]}={args[index + 1]}")
                index += 2
                continue
            joined.append(args[index])
            index += 1
        return joined

    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config: pytest.Config) -> None:
        """When a value after a space made pytest miss ``pytest.ini``, stop before anything runs
        and name the ``=`` form of the options that did it."""
        if is_worker(early_config):
            return
        raw = [str(arg) for arg in early_config.invocation_params.args]
        joined = self.joined(raw)
        if (
            joined == raw
            or not PROJECT_INI.is_file()
            or early_config.inipath == PROJECT_INI
            or not early_config.invocation_params.dir.resolve().is_relative_to(PROJECT_INI.parent)
            or any(arg == "-c" or arg.startswith(("--config-file", "--rootdir")) for arg in raw)
        ):
            return
        spaced = [arg for arg in joined if arg not in raw]
        raise pytest.UsageError(
            "pytest read the value of an optbench option as a test path and so missed pytest.ini; "
            f"write value options with '=': {' '.join(spaced)}"
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        """Hand xdist workers the ``=`` form of every value option, so that a worker, which finds its
        rootdir from the same arguments, never reads a value as a test path."""
        if is_worker(config):
            return
        joined = self.joined([str(arg) for arg in config.invocation_params.args])
        config.invocation_params = dataclasses.replace(config.invocation_params, args=tuple(joined))


#: The argparse actions that take no value, by the names pytest before 9.2 kept in ``attrs()``.
_FLAG_ACTIONS = frozenset({"store_true", "store_false", "store_const", "count", "help", "version"})


def takes_value(attrs: dict[str, object]) -> bool:
    """Whether an option with these attributes consumes the next word.

    pytest 9.2 hands out the parsed ``argparse.Action``'s own attributes (``nargs`` is 0 for a flag,
    and there is no ``action`` key); earlier versions hand out the keyword arguments given to
    ``addoption`` (``action="store_true"``, usually no ``nargs``). Both are read, so an on/off flag is
    never glued to the word after it."""
    if attrs.get("nargs") == 0:
        return False
    return attrs.get("action") not in _FLAG_ACTIONS


def value_option_names(groups: list[pytest.OptionGroup]) -> frozenset[str]:
    """The ``--long`` names of the options of ``groups`` that take a value."""
    return frozenset(
        name
        for group in groups
        for argument in group.options
        if takes_value(argument.attrs())
        for name in argument.names()
        if name.startswith("--")
    )
