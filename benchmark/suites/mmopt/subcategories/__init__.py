"""Registry of MM-OptBench subcategories: every subpackage here that exposes ``SUBCATEGORY``.

Adding a subcategory means adding one folder; nothing here changes. Discovery is lazy (first call)
so that a subcategory module may import shared helpers that themselves import this package's
``base`` module without an import cycle. Looking up one subcategory imports its folder alone (a
scored case pays for its own subcategory's generator and validator imports, not for all of them);
only listing them all, or a name its folder does not spell, imports every folder.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from functools import cache
from types import ModuleType
from typing import Any

from benchmark.suites.mmopt.subcategories.base import Subcategory, missing_members

__all__ = ["Subcategory", "all_subcategories", "folder_module", "folder_part", "get_subcategory"]


@cache
def _discover() -> dict[str, Subcategory]:
    found: dict[str, Subcategory] = {}
    _FOLDERS.clear()
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module_info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        subcategory = _declared(module)
        if subcategory is None:
            continue
        if subcategory.name in found:
            raise ValueError(f"two subcategory folders claim the name {subcategory.name!r}")
        found[subcategory.name] = subcategory
        _FOLDERS[subcategory.name] = module.__name__
    return found


#: subcategory name → the Python package of its folder. The official names may hold hyphens
#: (``flexible_hybrid_flow-shop_scheduling``), which a package name cannot; this map, filled by
#: discovery, is the one place that ties the two spellings together.
_FOLDERS: dict[str, str] = {}


def _declared(module: ModuleType) -> Subcategory | None:
    """The ``SUBCATEGORY`` a folder's package declares, or None when it declares none; one that
    lacks a member of the :class:`Subcategory` protocol is refused with the members it lacks."""
    subcategory = getattr(module, "SUBCATEGORY", None)
    if subcategory is None:
        return None
    missing = missing_members(subcategory, Subcategory)
    if missing:
        raise TypeError(
            f"{module.__name__}.SUBCATEGORY does not satisfy the Subcategory protocol: "
            f"it lacks {', '.join(missing)}"
        )
    declared: Subcategory = subcategory
    return declared


def _folder(name: str) -> str | None:
    """The package of subcategory ``name``'s folder, or None when no folder declares it.

    A folder is named after its subcategory with hyphens spelled as underscores; that folder alone
    is imported when it declares ``name``, and every folder (:func:`_discover`) only otherwise."""
    if name in _FOLDERS:
        return _FOLDERS[name]
    spelled = name.replace("-", "_")
    if spelled.isidentifier() and importlib.util.find_spec(f"{__name__}.{spelled}") is not None:
        subcategory = _declared(importlib.import_module(f"{__name__}.{spelled}"))
        if subcategory is not None and subcategory.name == name:
            _FOLDERS[name] = f"{__name__}.{spelled}"
            return _FOLDERS[name]
    _discover()
    return _FOLDERS.get(name)


def folder_module(name: str, module: str) -> ModuleType | None:
    """The optional ``module`` (``"planting"``, ``"extraction"``, ``"official"`` …) of the folder of
    subcategory ``name``, or ``None`` when the subcategory or that module does not exist."""
    package = _folder(name)
    if package is None or importlib.util.find_spec(f"{package}.{module}") is None:
        return None
    return importlib.import_module(f"{package}.{module}")


def folder_part(name: str, module: str, protocol: type) -> Any:
    """The optional ``module`` of subcategory ``name``'s folder (:func:`folder_module`), refused
    with the members it lacks when it does not satisfy ``protocol``; None when there is none.

    For the parts a folder is not asked to declare because they cost imports a scored case does
    not need (``planting`` imports the generation pipeline); the caller types the answer with the
    protocol it passes."""
    found = folder_module(name, module)
    if found is not None and (missing := missing_members(found, protocol)):
        raise TypeError(
            f"{found.__name__} does not satisfy {protocol.__name__}: it lacks {', '.join(missing)}"
        )
    return found


def all_subcategories() -> dict[str, Subcategory]:
    """Every registered subcategory keyed by name (e.g. ``"maximum_flow"``), sorted by name."""
    return dict(_discover())


def get_subcategory(name: str) -> Subcategory | None:
    """The subcategory called ``name``, or ``None`` when no folder provides it."""
    package = _folder(name)
    return None if package is None else _declared(importlib.import_module(package))
