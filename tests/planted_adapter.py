"""A pytest plugin of the harness's tests: makes ``--model=planted:PLAN.json`` an alias.

The known-cause adapter (:mod:`adapters.planted`) is test support, not a model a user can select,
so the production registry does not know it; benchmark sessions started by the tests load this
plugin (``-p tests.planted_adapter``, see :func:`tests.conftest.run_bench`) and get it.
"""

from __future__ import annotations

from adapters.planted import PlantedAdapter
from adapters.registry import register_adapter

register_adapter("planted:", PlantedAdapter.from_alias, cached=False, replace=True)
