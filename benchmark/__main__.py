from __future__ import annotations

from benchmark.cli import main

raise SystemExit(main())
