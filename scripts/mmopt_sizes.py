"""Print MM-OptBench instance sizes per subcategory and tier, and ours against the official release.

Reads ``instance_data.json`` of every package under the roots given (the size dimensions are
described in ``benchmark/suites/mmopt/generation/sizes.py``):

    .venv/bin/python scripts/mmopt_sizes.py fixtures/mmopt
    .venv/bin/python scripts/mmopt_sizes.py fixtures/mmopt --release
    .venv/bin/python scripts/mmopt_sizes.py fixtures/mmopt --official PATH/TO/MM-OptBench/dataset

With ``--official`` (a copy of the release) or ``--release`` (the release's meta.json counts shipped
in ``benchmark/suites/mmopt/generation/release_sizes``) the table gives per subcategory, tier and
dimension the median on both sides, the ratio official / ours and whether ours is within ±25%;
``--all`` lists every dimension of one root instead of ``numbers``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmark.suites.mmopt.generation.sizes import comparison_markdown, tier_markdown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("root", type=Path, help="our dataset root (or any root in the release layout)")
    parser.add_argument("--official", type=Path, help="a copy of the official release's dataset/ folder")
    parser.add_argument(
        "--release", action="store_true", help="compare with the shipped counts of the release's meta.json"
    )
    parser.add_argument("--all", action="store_true", help="every size dimension, not only numbers")
    args = parser.parse_args(argv)
    lines = (
        comparison_markdown(args.root, args.official)
        if args.official or args.release
        else tier_markdown(args.root, () if args.all else ("numbers",))
    )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
