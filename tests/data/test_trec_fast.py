"""The block reader behind read_run gives exactly what the line loop gives, and hands every odd file to the loop."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import numpy as np
import pytest

import hcrbench.data.trec as trec
from hcrbench.data import read_run
from hcrbench.data.trec_fast import _scores, read_run_columns
from hcrbench.errors import InputError

EX = Path(__file__).resolve().parents[2] / "examples"


def _loop(path, **kw):
    """read_run with the fast path switched off: the reference."""
    saved = trec.read_run_columns
    trec.read_run_columns = lambda p: None
    try:
        return trec.read_run(path, **kw)
    finally:
        trec.read_run_columns = saved


def _same(a, b):
    assert a.query_ids == b.query_ids and a.doc_vocab == b.doc_vocab
    assert np.array_equal(a.offsets, b.offsets) and np.array_equal(a.doc_index, b.doc_index)
    assert np.array_equal(a.scores, b.scores)


def test_examples_read_identically():
    for name in ("bm25.trec", "bm25_stemmed.trec"):
        assert read_run_columns(EX / name) is not None  # the fast path is taken
        _same(read_run(EX / name), _loop(EX / name))


@pytest.mark.parametrize("text,fast", [
    ("\ufeff# a comment\nq1 Q0 d1 1 2.5 t\n\nq1 Q0 d2 2 1e-3 t\r\nq2 Q0 CR#93E 1 -0 t\n", True),
    ("q1 Q0 " + "x" * 40 + " 1 3 t\nq1 Q0 " + "y" * 40 + " 2 2 t\nq2 Q0 " + "x" * 40 + " 1 1 t\n", True),
    ("qq-10 Q0 d\u00e9j\u00e0-vu 1 12345678901234567.5 t\nqq-10\tQ0\td_2\t2\t10\tt_x\n", True),
    ("q1 Q0 d1 1 2.5 t extra\n", False),  # extra columns: the loop warns
])
def test_odd_but_valid_files(tmp_path, text, fast):
    p = tmp_path / "r.trec"
    p.write_bytes(text.encode("utf-8"))
    assert (read_run_columns(p) is not None) == fast
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(read_run(p), _loop(p))
    gz = tmp_path / "r.trec.gz"
    gz.write_bytes(gzip.compress(text.encode("utf-8")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(read_run(gz), _loop(p))


@pytest.mark.parametrize("text", ["q1 Q0 d1 1\n", "q1 Q0 d1 1 nan t\n", "q1 Q0 d1 1 x t\n",
                                  "q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0.5 t\n", b"q1 Q0 d\xff 1 1 t\n"])
def test_errors_are_the_loops(tmp_path, text):
    p = tmp_path / "r.trec"
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(InputError) as fast:
        read_run(p)
    with pytest.raises(InputError) as slow:
        _loop(p)
    assert str(fast.value) == str(slow.value)


def test_a_hash_collision_falls_back_to_the_loop(tmp_path, monkeypatch):
    import hcrbench.data.trec_fast as tf

    p = tmp_path / "r.trec"
    p.write_text("q1 Q0 " + "a" * 20 + " 1 2 t\nq1 Q0 " + "b" * 20 + " 2 1 t\n")
    real = tf._column
    monkeypatch.setattr(tf, "_column", lambda arr, s, e: (real(arr, s, e)[0], np.zeros(len(s), np.uint64), False))
    assert read_run_columns(p) is None  # two ids, one hash: detected
    _same(read_run(p), _loop(p))


def test_scores_parse_exactly_as_float():
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.normal(0, 50, 3000), rng.random(1000) * 1e-3, [0.0, -0.0, 1e300, 5e-324]])
    texts = [f"{v:.{p}f}" for v, p in zip(values, rng.integers(0, 12, len(values)))]
    texts += [repr(float(v)) for v in values] + ["007", "-.5", "5.", "1e5", "inf", "-1_000.25"]
    blob = (" ".join(texts) + "\n").encode()
    arr = np.frombuffer(blob, dtype=np.uint8)
    starts = np.array([0] + [i + 1 for i, c in enumerate(blob) if c == 32])
    ends = np.array([i for i, c in enumerate(blob) if c in (32, 10)])
    got = _scores(arr, starts, ends)
    want = np.array([float(t) for t in texts])
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("long_ids", [False, True])
def test_many_blocks_share_one_vocabulary(tmp_path, monkeypatch, long_ids):
    import hcrbench.data.trec_fast as tf

    monkeypatch.setattr(tf, "BLOCK", 4096)  # ~100 blocks: ids recur across block boundaries
    rng = np.random.default_rng(1)
    pad = "-with-a-long-suffix" if long_ids else ""
    lines = [f"q{q} Q0 doc{int(d)}{pad} {r} {s:.{int(p)}f} tag\n"
             for q in range(40) for r, (d, s, p) in enumerate(zip(rng.integers(0, 300, 50), rng.normal(0, 9, 50),
                                                                  rng.integers(0, 18, 50)), 1)]
    p = tmp_path / "r.trec"
    p.write_text("".join(dict.fromkeys(lines)))
    assert read_run_columns(p) is not None
    _same(read_run(p, dedupe=True), _loop(p, dedupe=True))


def test_duplicate_check_in_chunks_finds_every_repeat():
    from hcrbench.data.trec import _any_duplicate

    q = np.repeat(np.arange(100), 50).astype(np.int32)
    d = np.tile(np.arange(50), 100).astype(np.int32)
    assert not _any_duplicate(q, d, chunk=128)
    for i, j in ((4999, 4950), (2550, 2551), (0, 1), (127, 128 - 50)):  # last query, middle, first, near a cut
        dd = d.copy()
        dd[i] = dd[j]
        assert _any_duplicate(q, dd, chunk=128) and _any_duplicate(q[::-1].copy(), dd[::-1].copy(), chunk=128)
    assert not _any_duplicate(q[:0], d[:0])


def test_a_score_with_an_underscore_leaves_the_fast_path_and_is_refused_by_line(tmp_path):
    from hcrbench.errors import InputError

    p = tmp_path / "r.trec"
    p.write_text("q_1 Q0 d_1 1 2.5 t_a\nq_1 Q0 d_2 2 1_0 t_a\n")  # '_' in ids and tags is fine, in a score not
    assert read_run_columns(p) is None
    with pytest.raises(InputError, match=r"r.trec:2: score"):
        read_run(p)


@pytest.mark.parametrize("shape", ["distinct", "few repeats", "many repeats", "shared top bits", "near the top"])
def test_first_codes_equal_numpys_unique(shape):
    """Codes in order of first appearance, sorted keys and their codes, as np.unique gives them, on each of the
    coder's paths: all distinct, a few repeats (a run's doc ids), many, and values sharing their top bits."""
    from hcrbench.data.trec_fast import _first_codes, _sorted_with_positions

    rng = np.random.default_rng(len(shape))
    for n in (1, 2, 17, 1000, 5000):
        if shape == "distinct":
            h = rng.permutation(np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        elif shape == "few repeats":
            h = rng.integers(0, 2**64, n, dtype=np.uint64)
            h[rng.integers(0, n, n // 20 + 1)] = h[rng.integers(0, n, n // 20 + 1)]
        elif shape == "many repeats":
            h = rng.choice(rng.integers(0, 2**64, n // 3 + 1, dtype=np.uint64), n)
        elif shape == "shared top bits":  # different values whose top bits agree, positions interleaved
            h = (rng.integers(0, 40, n).astype(np.uint64) << np.uint64(40)) + rng.integers(0, 6, n).astype(np.uint64)
        else:
            h = np.uint64(2**64 - 1) - rng.integers(0, 9, n).astype(np.uint64)
        o, sh = _sorted_with_positions(h.copy())
        ref = np.argsort(h, kind="stable")
        assert np.array_equal(o, ref) and np.array_equal(sh, h[ref])
        first, codes, sk, sc = _first_codes(h)
        uniq, at, inv = np.unique(h, return_index=True, return_inverse=True)
        rank = np.empty(len(at), dtype=np.int64)
        rank[np.argsort(at, kind="stable")] = np.arange(len(at))
        assert first.tolist() == sorted(at.tolist())
        assert codes.tolist() == rank[inv.ravel()].tolist()
        assert sk.tolist() == uniq.tolist() and sc.tolist() == rank.tolist()


def test_a_hash_collision_among_mostly_distinct_ids_falls_back_to_the_loop(tmp_path, monkeypatch):
    """Where few ids repeat, only the repeats are compared with their first occurrence's id: a key shared by two
    different ids still makes one of them a repeat, so it is caught."""
    import hcrbench.data.trec_fast as tf

    p = tmp_path / "r.trec"
    p.write_text("".join(f"q1 Q0 msmarco_doc_00_{i:010d}_1 {i + 1} {100 - i} t\n" for i in range(100)))
    real = tf._column

    def forged(arr, s, e):
        ids, keys, exact = real(arr, s, e)
        if len(keys) == 100 and not exact:  # the doc column: doc 60 gets doc 10's key
            keys = keys.copy()
            keys[60] = keys[10]
        return ids, keys, exact

    monkeypatch.setattr(tf, "_column", forged)
    assert read_run_columns(p) is None
    _same(read_run(p), _loop(p))
