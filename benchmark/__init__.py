"""optbench: a pytest-native benchmark for optimization modeling.

The public surface is small: the pytest plugin (``benchmark.plugin``), the suites
(``benchmark.suites``), the model adapters (``adapters``) and the ``optbench`` command
(``benchmark.cli``). Everything else is an implementation module with one concept each.
"""

from __future__ import annotations

HARNESS_VERSION = "0.1.0"
