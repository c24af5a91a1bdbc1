"""RAPTOR test fixtures: an isolated cache, a deterministic bag-of-words encoder (no weights), topic corpora."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest

from hcrbench.data import Corpus

TOPICS = [
    ["cat", "purr", "feline", "whisker", "milk", "kitten", "paw", "tabby"],
    ["stock", "market", "bond", "rate", "trader", "price", "yield", "equity"],
    ["python", "code", "compiler", "language", "program", "bug", "syntax", "module"],
    ["rain", "wind", "storm", "coast", "cloud", "weather", "thunder", "forecast"],
]


@pytest.fixture(autouse=True)
def cache_env(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("HCRBENCH_CACHE", str(root))
    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")
    return root


def _word_vec(word: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim)
    return v / np.linalg.norm(v)


class BowEncoder:
    """Deterministic bag-of-words encoder (sum of hashed word vectors, L2-normalised); counts texts encoded."""

    def __init__(self, dim: int = 32, model_id: str = "bow-test") -> None:
        self.dim, self.model_id, self.texts_encoded = dim, model_id, 0

    def encode(self, texts):
        self.texts_encoded += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                out[i] += _word_vec(w, self.dim)
            n = np.linalg.norm(out[i])
            if n:
                out[i] /= n
        return out

    def encode_tokens(self, texts):  # pragma: no cover - not used by RAPTOR
        raise NotImplementedError


@pytest.fixture
def Bow() -> type[BowEncoder]:
    return BowEncoder


def topic_corpus(n_docs: int, sentences: int = 12, seed: int = 0) -> Corpus:
    """``n_docs`` documents cycling through four topics, each of ``sentences`` sentences of topic words."""
    rng = np.random.default_rng(seed)
    ids, texts = [], []
    for d in range(n_docs):
        words = TOPICS[d % len(TOPICS)]
        sents = [" ".join(rng.choice(words, 8)).capitalize() + "." for _ in range(sentences)]
        ids.append(f"d{d:03d}")
        texts.append(" ".join(sents))
    return Corpus(ids, texts, [""] * len(ids), name=f"topics{n_docs}")


@pytest.fixture
def make_corpus():
    return topic_corpus
