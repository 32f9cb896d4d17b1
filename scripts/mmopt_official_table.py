"""Write the strict-versus-official table of MM-OptBench scoring (``docs/mmopt-official.md``).

    .venv/bin/python scripts/mmopt_official_table.py > docs/mmopt-official.md

The rows come from ``benchmark/suites/mmopt/official_differences.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmark.suites.mmopt.official_differences import markdown

if __name__ == "__main__":
    sys.stdout.write(markdown())
