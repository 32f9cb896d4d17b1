"""Deterministic seeds: same (subcategory, difficulty, index) → same instance, on any machine.

Python's ``hash()`` is salted per process, so seeds come from SHA-256 of a readable key instead.
Each rejection–regeneration attempt gets its own stream derived from (seed, attempt), so the instance
accepted at attempt *k* does not depend on how much randomness earlier rejected candidates consumed.
"""

from __future__ import annotations

import hashlib
import random


def digest_int(key: str) -> int:
    """A stable 63-bit integer digest of ``key`` (the first eight bytes of its SHA-256)."""
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") & ((1 << 63) - 1)


def instance_seed(subcategory: str, difficulty: str, index: int) -> int:
    """The recorded seed of the ``index``-th (1-based) instance of a subcategory and difficulty."""
    return digest_int(f"mmopt/{subcategory}/{difficulty}/{index}")


def attempt_rng(seed: int, attempt: int) -> random.Random:
    """The private random stream of one candidate."""
    return random.Random(digest_int(f"{seed}/attempt/{attempt}"))
