"""Seed derivation: every random choice in Meridian draws from ``random.Random(sub_seed(seed, kind, index))``.

A sub-seed depends only on ``(seed, kind, index)``, never on how many things were generated before, so growing
the corpus only adds documents and entities: the first 500 documents of ``medium`` equal ``small``'s.
"""

from __future__ import annotations

import hashlib
import random


def sub_seed(seed: int, kind: str, index: int | str = 0) -> int:
    """A 64-bit seed derived from ``(seed, kind, index)`` with SHA-256 (stable across Python versions)."""
    digest = hashlib.sha256(f"meridian|{seed}|{kind}|{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def rng(seed: int, kind: str, index: int | str = 0) -> random.Random:
    """A private ``random.Random`` for one entity, document or decision."""
    return random.Random(sub_seed(seed, kind, index))
