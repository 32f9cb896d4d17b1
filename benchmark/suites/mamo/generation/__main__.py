"""``python -m benchmark.suites.mamo.generation``: write or check the shipped Mamo fixtures."""

from __future__ import annotations

import sys

from benchmark.suites.mamo.generation.build import main

sys.exit(main())
