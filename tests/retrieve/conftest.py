"""Shared fixtures: a tiny corpus, an isolated cache folder, and a counting fake encoder (no model weights)."""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest

from hcrbench.data import Corpus, Queries

DOCS = {
    "d01": ("Cats", "Cats purr and sleep most of the day."),
    "d02": ("Dogs", "Dogs bark loudly at the mail carrier."),
    "d03": ("Markets", "The stock market fell sharply on Monday."),
    "d04": ("Python", "Python is a programming language used for data analysis."),
    "d05": ("Felines", "Felines like milk, and a cat will purr when content."),
    "d06": ("Canines", "Canines chase balls; a dog running in the park is happy."),
    "d07": ("Bonds", "Bond markets and stock markets react to interest rates."),
    "d08": ("Rust", "Rust is a systems programming language with no garbage collector."),
    "d09": ("Weather", "Rain and wind are expected across the coast tomorrow."),
    "d10": ("Gardening", "Tomatoes need sun, water and rich soil to grow."),
    "d11": ("Cooking", "Boil the pasta in salted water for ten minutes."),
    "d12": ("Running", "Runners run long distances and need water on hot days."),
}
QUERIES = {
    "q1": "why do cats purr",
    "q2": "dog running in a park",
    "q3": "stock market interest rates",
    "q4": "programming language",
}


@pytest.fixture
def corpus() -> Corpus:
    ids = list(DOCS)
    return Corpus(ids, [DOCS[d][1] for d in ids], [DOCS[d][0] for d in ids], name="tiny")


@pytest.fixture
def queries() -> Queries:
    return Queries.from_dict(QUERIES)


@pytest.fixture(autouse=True)
def cache_env(tmp_path, monkeypatch):
    """Every test gets its own empty cache and no progress bars."""
    root = tmp_path / "cache"
    monkeypatch.setenv("HCRBENCH_CACHE", str(root))
    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")
    return root


def _word_vec(word: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim)
    return v / np.linalg.norm(v)


class FakeEncoder:
    """Deterministic bag-of-words encoder that counts what it encodes; ``fail_after`` simulates a crash."""

    def __init__(self, dim: int = 32, model_id: str = "fake-bow", fail_after: int | None = None) -> None:
        self.dim = dim
        self.model_id = model_id
        self.calls = 0
        self.texts_seen: list[str] = []
        self.fail_after = fail_after

    def _tokens(self, text: str) -> list[str]:
        return re.findall(r"\w+", text.lower())

    def _tick(self, texts) -> None:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls += 1
        self.texts_seen.extend(texts)

    def encode(self, texts):
        self._tick(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in self._tokens(t):
                out[i] += _word_vec(w, self.dim)
            n = np.linalg.norm(out[i])
            if n:
                out[i] /= n
        return out

    def encode_tokens(self, texts):
        self._tick(texts)
        return [np.array([_word_vec(w, self.dim) for w in self._tokens(t)], dtype=np.float32).reshape(-1, self.dim)
                for t in texts]


@pytest.fixture
def fake_encoder() -> FakeEncoder:
    return FakeEncoder()


@pytest.fixture
def Fake() -> type[FakeEncoder]:
    """The FakeEncoder class, for tests that need several (conftest is not importable as a module)."""
    return FakeEncoder
