"""encode_cached draws a progress bar only for real work, and encodes each distinct text once."""

from __future__ import annotations

from hcrbench.retrieve import encoders
from hcrbench.retrieve.hcr.hashenc import HashingEncoder


class Counting(HashingEncoder):
    def __init__(self):
        super().__init__(dim=16)
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen.extend(texts)
        return super().encode(texts)


def test_one_group_draws_no_bar_and_many_groups_do(monkeypatch):
    bars = []

    def fake_progress(items, total=None, desc=""):
        bars.append((desc, total))
        yield from items

    monkeypatch.setattr(encoders, "progress", fake_progress)
    enc = Counting()
    encoders.encode_cached(enc, ["a b", "c d", "a b"], desc="token vectors")
    assert bars == []  # a trivial step: no bar
    encoders.encode_cached(enc, [f"text {i}" for i in range(10)], flush_every=3, desc="chunks")
    assert bars == [("chunks", 4)]
    assert enc.seen.count("a b") == 1  # a repeated text is encoded once
