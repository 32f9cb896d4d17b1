"""Registry of MM-OptBench subcategories: every subpackage here that exposes ``SUBCATEGORY``.

Adding a subcategory means adding one folder; nothing here changes. Discovery is lazy (first call)
so that a subcategory module may import shared helpers that themselves import this package's
``base`` module without an import cycle.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from benchmark.suites.mmopt.subcategories.base import Subcategory

__all__ = ["Subcategory", "all_subcategories", "get_subcategory"]


@cache
def _discover() -> dict[str, Subcategory]:
    found: dict[str, Subcategory] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module_info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        subcategory = getattr(module, "SUBCATEGORY", None)
        if subcategory is None:
            continue
        if not isinstance(subcategory, Subcategory):
            raise TypeError(f"{module.__name__}.SUBCATEGORY does not satisfy the Subcategory protocol")
        if subcategory.name in found:
            raise ValueError(f"two subcategory folders claim the name {subcategory.name!r}")
        found[subcategory.name] = subcategory
    return found


def all_subcategories() -> dict[str, Subcategory]:
    """Every registered subcategory keyed by name (e.g. ``"maximum_flow"``), sorted by name."""
    return dict(_discover())


def get_subcategory(name: str) -> Subcategory | None:
    """The subcategory called ``name``, or ``None`` when no folder provides it."""
    return _discover().get(name)
