"""Seeded random generators derived from the config's master seed and stable names.

Every random draw of the workflow comes from ``rng_for(seed, *names)``. Names (a model's
name, "cohort", a conversation id) are hashed with sha256, not Python's salted ``hash``, so a
stream depends only on the seed and the names: the same inputs give the same bytes on every
machine, and adding a model never changes another model's draws.
"""

from __future__ import annotations

import hashlib

import numpy as np


def stable_int(name: str) -> int:
    """A 64-bit integer from the sha256 of ``name``; stable across processes and machines."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "little")


def rng_for(seed: int, *names: str) -> np.random.Generator:
    """An independent PCG64 generator for (seed, *names)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, *map(stable_int, names)])))
