"""Text helpers of the audit: content stems per text, an inverted index, near-duplicate pairs by MinHash + LSH.

Near-duplicates are pairs of texts whose word-3-shingle sets have Jaccard >= ``threshold`` (default 0.8). Candidates
come from MinHash signatures (64 permutations, 16 bands of 4 rows: a pair at Jaccard 0.8 is a candidate with
probability 1 - (1 - 0.8^4)^16 > 0.9999) and every candidate is verified on the exact Jaccard, so no pair is
reported below the threshold. Hashes are blake2b of the shingle text and the permutations come from a fixed seed, so
the result is deterministic.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from hcrbench.synth.questions.dedup import content_terms

WORD = re.compile(r"[a-z0-9]+")
PRIME = (1 << 61) - 1
N_PERM, BANDS = 64, 16


def normalise(text: str) -> str:
    """Lower case, one space between word tokens: the form exact-duplicate checks compare."""
    return " ".join(WORD.findall(text.lower()))


def stems(texts: Sequence[str]) -> list[set[str]]:
    """Content terms per text (:func:`hcrbench.synth.questions.dedup.content_terms`): Snowball English stems of the
    words (stopwords and 1-2 letter words dropped), tokens with digits kept whole, so "INC-20122" and "INC-20156"
    differ, and hyphenated identifiers kept whole beside their parts ("hr-pol-011" vs "cmp-pol-011")."""
    return [content_terms(t) for t in texts]


def inverted(sets: Sequence[set[str]]) -> dict[str, list[int]]:
    """term -> positions of the sets containing it (ascending)."""
    index: dict[str, list[int]] = {}
    for i, s in enumerate(sets):
        for t in s:
            index.setdefault(t, []).append(i)
    return index


def _shingles(text: str, n: int = 3) -> np.ndarray:
    words = WORD.findall(text.lower())
    grams = {" ".join(words[i:i + n]) for i in range(max(len(words) - n + 1, 1))} if words else set()
    return np.array(sorted(int.from_bytes(hashlib.blake2b(g.encode(), digest_size=7).digest(), "little")
                           for g in grams), dtype=np.int64)


def near_duplicate_pairs(texts: Sequence[str], threshold: float = 0.8) -> list[tuple[int, int, float]]:
    """``(i, j, jaccard)`` for every pair i < j of ``texts`` whose 3-shingle Jaccard is >= ``threshold``."""
    sh = [_shingles(t) for t in texts]
    rng = np.random.default_rng(20240101)
    a64 = rng.integers(1, 1 << 31, N_PERM, dtype=np.uint64)  # 31-bit values: products stay within 64 bits
    b64 = rng.integers(0, 1 << 31, N_PERM, dtype=np.uint64)
    rows = N_PERM // BANDS
    buckets: dict[tuple, list[int]] = {}
    for i, s in enumerate(sh):
        if s.size == 0:
            continue
        x = (s.astype(np.uint64) % np.uint64(1 << 31))[:, None]
        sig = ((x * a64[None, :] + b64[None, :]) % np.uint64(PRIME)).min(axis=0)
        for band in range(BANDS):
            buckets.setdefault((band, *sig[band * rows:(band + 1) * rows].tolist()), []).append(i)
    cands: set[tuple[int, int]] = set()
    for members in buckets.values():
        if 1 < len(members) <= 500:  # a huge bucket is boilerplate, not duplicates; the exact pass below checks
            for x, i in enumerate(members):
                for j in members[x + 1:]:
                    cands.add((i, j))
    exact: dict[str, list[int]] = {}
    for i, t in enumerate(texts):
        exact.setdefault(normalise(t), []).append(i)
    for members in exact.values():
        for x, i in enumerate(members):
            for j in members[x + 1:]:
                cands.add((i, j))
    out = []
    for i, j in sorted(cands):
        si, sj = sh[i], sh[j]
        if si.size == 0 and sj.size == 0:
            jac = 1.0
        else:
            inter = np.intersect1d(si, sj, assume_unique=True).size
            jac = inter / (si.size + sj.size - inter)
        if jac >= threshold:
            out.append((i, j, float(jac)))
    return out
