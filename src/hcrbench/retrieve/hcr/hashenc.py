"""A cheap deterministic text encoder (hashed bag of words) with the :class:`~hcrbench.retrieve.encoders.Encoder`
interface, for fast tests and plumbing runs: ``backend="hash"`` in the ``hcr`` retriever.

Sentence vectors: log(1 + tf) of lower-cased words hashed (blake2b) into ``dim`` buckets, L2-normalised, so the
cosine of two texts is a hashed word-overlap similarity. Token vectors: one unit vector per word (its bucket), so
MaxSim counts the query words a text contains. It is not a language model and is never used in a benchmark.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")


def _bucket(word: str, dim: int) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little") % dim


class HashingEncoder:
    """Hashed bag-of-words vectors; ``model_id`` names the dimension so caches never mix settings."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = int(dim)
        self.model_id = f"hash-bow:{self.dim}"

    def _ids(self, text: str) -> list[int]:
        return [_bucket(w, self.dim) for w in _WORD.findall(text.lower())]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            ids, counts = np.unique(np.asarray(self._ids(t), dtype=np.int64), return_counts=True)
            out[i, ids] = np.log1p(counts)
        n = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(n, 1e-12)

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        out = []
        for t in texts:
            ids = self._ids(t)
            block = np.zeros((len(ids), self.dim), dtype=np.float32)
            block[np.arange(len(ids)), ids] = 1.0
            out.append(block)
        return out
