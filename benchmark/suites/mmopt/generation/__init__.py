"""MM-OptBench instance generation: the shared pipeline every family plugs into.

Public surface:

* :func:`generate_dataset` — packages + manifest for some or all subcategories;
* :func:`check_regeneration` / :func:`compare_regeneration` — does a root reproduce from its seeds;
* :class:`InstanceGenerator` — the plug-in protocol a subcategory folder implements
  (see :mod:`.protocol`); :mod:`.rendering` and :mod:`.network` hold shared drawing helpers.
"""

from __future__ import annotations

from benchmark.suites.mmopt.generation.dataset import (
    DATASET_NAME,
    DATASET_VERSION,
    GenerationReport,
    RegenerationDiff,
    SubcategoryReport,
    check_regeneration,
    compare_regeneration,
    generate_dataset,
    write_manifest,
)
from benchmark.suites.mmopt.generation.pipeline import BuiltInstance, GenerationError, build_instance
from benchmark.suites.mmopt.generation.protocol import InstanceGenerator, Rejected

__all__ = [
    "DATASET_NAME",
    "DATASET_VERSION",
    "BuiltInstance",
    "GenerationError",
    "GenerationReport",
    "InstanceGenerator",
    "RegenerationDiff",
    "Rejected",
    "SubcategoryReport",
    "build_instance",
    "check_regeneration",
    "compare_regeneration",
    "generate_dataset",
    "write_manifest",
]
