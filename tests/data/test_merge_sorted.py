"""merge_runs' streamed pass (hcrbench.data.merge_sorted) for shards of one query order: taken where it applies,
and its output byte for byte the bucket merge's (and the unsharded run's) on generated shards with ties; every
input it cannot take leaves it before writing and gets the bucket merge's output or error."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import numpy as np
import pytest

import hcrbench.data.merge as merge_mod
import hcrbench.data.merge_sorted as ms
from hcrbench.data.merge import merge_runs
from hcrbench.errors import InputError


def _run_text(seed: int, n_queries: int = 40, depth: int = 60, repr_scores: bool = False) -> str:
    """A run as a retriever writes it: ranks 1..n by score descending; scores drawn from few values (ties,
    some equal only as float32) and doc ids of mixed length and case."""
    rng = np.random.default_rng(seed)
    lines = []
    for q in rng.choice(10_000, n_queries, replace=False).tolist():
        docs = [f"d{d}{'x' * int(d % 11)}" if d % 3 else f"D{d}" for d in rng.choice(100_000, depth, replace=False)]
        scores = np.sort(rng.choice([1.5, 2.0, 2.0 + 1e-9, 3.25, 7.0, 10.125], depth))[::-1]
        if repr_scores:
            scores = scores + rng.random(depth) * 1e-3
        order = sorted(range(depth), key=lambda i: (-np.float32(scores[i]), docs[i]), reverse=False)
        for r, i in enumerate(order, 1):
            s = repr(float(scores[i])) if repr_scores else f"{scores[i]:.6f}"
            lines.append(f"q{q} Q0 {docs[i]} {r} {s} run{seed % 2}\n")
    return "".join(lines)


def _shards(text: str, folder: Path, n: int, gz: bool = False) -> list[Path]:
    parts: list[list[str]] = [[] for _ in range(n)]
    for line in text.splitlines(keepends=True):
        parts[zlib.crc32(line.split()[2].encode()) % n].append(line)
    out = []
    for i, p in enumerate(parts):
        path = folder / (f"s{i}.trec.gz" if gz else f"s{i}.trec")
        data = "".join(p).encode()
        path.write_bytes(gzip.compress(data) if gz else data)
        out.append(path)
    return out


def _bucket_merge(paths, out, **kw):
    """merge_runs with the streamed pass switched off: the reference."""
    real = merge_mod.merge_sorted

    def refuse(*a, **k):
        raise ms.NotSorted

    merge_mod.merge_sorted = refuse
    try:
        return merge_runs(paths, out, **kw)
    finally:
        merge_mod.merge_sorted = real


@pytest.mark.parametrize("seed,n,gz,repr_scores", [(0, 4, False, False), (1, 3, True, False), (2, 2, False, True),
                                                   (3, 1, False, False)])
def test_streamed_merge_is_the_bucket_merge_and_the_unsharded_run(tmp_path, monkeypatch, seed, n, gz, repr_scores):
    text = _run_text(seed, repr_scores=repr_scores)
    shards = _shards(text, tmp_path, n, gz)
    taken = []
    real = ms._merge_round
    monkeypatch.setattr(ms, "_merge_round", lambda *a: taken.append(1) or real(*a))
    monkeypatch.setattr(ms, "ROUND_LINES", 7)  # many rounds, a query per round at times
    monkeypatch.setattr(ms, "READ_BYTES", 512)
    summary = merge_runs(shards, tmp_path / "m.trec")
    assert taken, "the streamed pass was not taken"
    ref = _bucket_merge(shards, tmp_path / "ref.trec")
    assert (tmp_path / "m.trec").read_bytes() == (tmp_path / "ref.trec").read_bytes() == text.encode()
    assert summary == ref


def _inputs_it_leaves(tmp: Path) -> dict[str, list[Path]]:
    text = _run_text(7, n_queries=6, depth=20)
    cases = {}
    for name, edit in {
        "a query missing from one shard": lambda ps: ps[1].write_text(
            "".join(ln for ln in ps[1].read_text().splitlines(keepends=True) if not ln.startswith(
                ps[1].read_text().split()[0] + " "))),
        "query orders differ": lambda ps: ps[1].write_text("".join(sorted(ps[1].read_text().splitlines(True)))),
        "a doc in two shards": lambda ps: ps[1].write_text(ps[0].read_text().splitlines(True)[0]
                                                           + ps[1].read_text()),
        "a tab": lambda ps: ps[0].write_text(ps[0].read_text().replace(" Q0 ", "\tQ0 ", 1)),
        "a comment line": lambda ps: ps[0].write_text("# a comment\n" + ps[0].read_text()),
        "a rank that is not an integer": lambda ps: ps[0].write_text(
            ps[0].read_text().replace(" 1 ", " 1.0 ", 1)),
        "a bad score": lambda ps: ps[0].write_text(ps[0].read_text().replace(".000000 ", ".0x0000 ", 1)),
        "an empty shard": lambda ps: ps[1].write_text(""),
    }.items():
        folder = tmp / name.replace(" ", "_")
        folder.mkdir()
        paths = _shards(text, folder, 3)
        edit(paths)
        cases[name] = paths
    return cases


def test_inputs_off_the_streamed_path_get_the_bucket_merge(tmp_path):
    for name, paths in _inputs_it_leaves(tmp_path).items():
        out, ref = paths[0].parent / "m.trec", paths[0].parent / "ref.trec"
        with pytest.raises(ms.NotSorted):
            ms.merge_sorted(paths, out)
        assert not out.exists(), name  # nothing written before leaving
        try:
            want = _bucket_merge(paths, ref)
        except InputError as e:
            with pytest.raises(InputError) as got:
                merge_runs(paths, out)
            assert str(got.value) == str(e), name
            continue
        assert merge_runs(paths, out) == want, name
        assert out.read_bytes() == ref.read_bytes(), name


def test_dedupe_and_depth_and_tag_keep_the_bucket_merge(tmp_path):
    shards = _shards(_run_text(5), tmp_path, 3)
    for kw in ({"depth": 5}, {"tag": "merged"}, {"dedupe": True}):
        merge_runs(shards, tmp_path / "m.trec", **kw)
        _bucket_merge(shards, tmp_path / "ref.trec", **kw)
        assert (tmp_path / "m.trec").read_bytes() == (tmp_path / "ref.trec").read_bytes(), kw


def test_a_query_longer_than_many_reads_is_merged_whole(tmp_path, monkeypatch):
    """A query of many blocks: read in doubling steps, merged as one round, the same bytes as the bucket merge."""
    monkeypatch.setattr(ms, "READ_BYTES", 256)
    lines = [f"q1 Q0 d{i} {i + 1} {1000 - i / 7:.6f} t\n" for i in range(3000)]
    lines += [f"q2 Q0 d{i} {i + 1} {5 - i / 3:.6f} t\n" for i in range(10)]
    text = "".join(lines)
    shards = _shards(text, tmp_path, 2)
    parses = []
    real = ms._Reader._parse
    monkeypatch.setattr(ms._Reader, "_parse", lambda self: parses.append(1) or real(self))
    merge_runs(shards, tmp_path / "m.trec")
    assert len(parses) < 40  # ~100 KB in 256-byte blocks: doubling reads, not one parse per block
    assert (tmp_path / "m.trec").read_bytes() == text.encode()
