"""The block reader's exact score parsing for 16-18 significant digits (``repr`` of a float) and its ids kept as
bytes (BytesVocab): both must give exactly what the line loop's ``float()`` and ``str`` ids give."""

from __future__ import annotations

from decimal import Decimal, getcontext

import numpy as np
import pytest

from hcrbench.data import Run, read_qrels, read_run
from hcrbench.data.trec_fast import _long_path, _scores
from hcrbench.data.vocab import BytesVocab, keys_of
from hcrbench.metrics import evaluate


def _parse(texts: list[str]) -> np.ndarray:
    blob = (" ".join(texts) + "\n").encode()
    arr = np.frombuffer(blob, dtype=np.uint8)
    starts = np.array([0] + [i + 1 for i, c in enumerate(blob) if c == 32])
    ends = np.array([i for i, c in enumerate(blob) if c in (32, 10)])
    return _scores(arr, starts, ends)


def _near_midpoints(n: int, seed: int) -> list[str]:
    """Decimals of 16-18 significant digits within a hair of the midpoint between two neighbouring doubles:
    where a double rounding would go wrong."""
    getcontext().prec = 60
    rng = np.random.default_rng(seed)
    out = []
    for v in rng.lognormal(2, 3, n):
        d = float(v)
        mid = (Decimal(d) + Decimal(np.nextafter(d, np.inf))) / 2
        for digits in (16, 17, 18):
            out.append(f"{mid:.{digits}g}" if "e" not in f"{mid:.{digits}g}" else repr(d))
    return out


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 63, reason="long double is not wider than double here")
def test_long_double_path_is_exact_near_midpoints_and_on_reprs():
    rng = np.random.default_rng(0)
    texts = _near_midpoints(3000, 1)
    texts += [repr(float(x)) for x in np.concatenate([rng.random(3000) * 40, -rng.random(500) * 1e3,
                                                       rng.random(500) * 1e-6])]
    texts += ["0.000000000000000000000000012", "123456789012345678", "-0.12345678901234567890"]
    got = _parse(texts)
    want = np.array([float(t) for t in texts])
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 63, reason="long double is not wider than double here")
def test_long_double_path_leaves_exact_midpoints_to_float():
    # 2^53 + 1 lies exactly between two doubles: the 64-bit quotient is that midpoint, so it is not vouched for
    _, unsure = _long_path(np.array([2**53 + 1], dtype=np.int64), np.array([0]))
    assert unsure.tolist() == [True]
    assert _parse(["9007199254740993", "9007199254740993.0"]).tolist() == [float("9007199254740993")] * 2


def test_ids_stay_bytes_until_asked_and_score_alike(tmp_path):
    rng = np.random.default_rng(2)
    docs = [f"msmarco_doc_{i % 60:02d}_{i * 7919:010d}_{i % 7}" for i in range(300)] + ["d1", "x"]
    lines, qrels = [], []
    for q in range(20):
        pick = rng.choice(len(docs), 40, replace=False)
        lines += [f"{q} Q0 {docs[d]} {r} {rng.random() * 30!r} tag\n" for r, d in enumerate(pick, 1)]
        qrels += [f"{q} 0 {docs[d]} {int(rng.integers(0, 3))}\n" for d in pick[::3]]
    (tmp_path / "run.trec").write_text("".join(lines))
    (tmp_path / "qrels.txt").write_text("".join(qrels))
    run = read_run(tmp_path / "run.trec")
    assert run.vocab_bytes is not None  # not decoded by reading or scoring
    q = read_qrels(tmp_path / "qrels.txt")
    got = evaluate(q, run, ["nDCG@10", "AP", "RR"]).runs["run"].values
    raw = run.vocab_bytes
    assert raw is not None
    same = Run.from_dict({q: dict(run.ranked(q)) for q in run.query_ids}, name="run")  # str ids all the way
    want = evaluate(q, same, ["nDCG@10", "AP", "RR"]).runs["run"].values
    for m in ("nDCG@10", "AP", "RR"):
        assert np.array_equal(got[m], want[m]), m
    assert run.doc_vocab == list(raw) and run.vocab_bytes is None  # decoded once, then the list is the truth


def test_codes_of_compares_bytes_when_keys_collide():
    raw = np.array([b"alpha-long-id-1", b"beta-long-id-22", b"gamma"], dtype="S16")
    honest = BytesVocab(raw)
    assert honest.codes_of(["gamma", "beta-long-id-22", "nope", "alpha-long-id-1"]).tolist() == [2, 1, -1, 0]
    forged = BytesVocab(raw, keys=np.zeros(3, dtype=np.uint64))  # every id shares one key
    assert forged.codes_of(["gamma", "beta-long-id-22", "nope"]).tolist() == [2, 1, -1]
    one = BytesVocab(raw, keys=keys_of(raw))
    collide = keys_of(np.array([b"gamma"], dtype="S8"))  # a wanted id whose key is one of ours, other bytes
    assert (collide == one.keys[2]).all()
    assert one.codes_of(["gamma\x00"]).tolist() == [-1]  # a NUL never matches the padding


def test_merge_spills_ids_as_bytes_and_survives_a_shared_key(tmp_path, monkeypatch):
    import hcrbench.data.trec_stream as ts
    from hcrbench.data.merge import merge_runs

    rng = np.random.default_rng(3)
    shards = [tmp_path / "a.trec", tmp_path / "b.trec"]
    lines = {p: [] for p in shards}
    for q in range(6):  # every query in both shards, ties on score so doc ids decide
        for r, d in enumerate(rng.choice(90, 30, replace=False), 1):
            lines[shards[d % 2]].append(f"q{q} Q0 msmarco_doc_00_{d:010d}_1 {r} {int(rng.integers(0, 4))}.5 t\n")
    for p, ls in lines.items():
        p.write_text("".join(ls))
    merge_runs(shards, tmp_path / "keyed.trec")
    monkeypatch.setattr(ts, "keys_of", lambda raw: np.zeros(len(raw), dtype=np.uint64))  # every id one key
    merge_runs(shards, tmp_path / "forged.trec")
    assert (tmp_path / "keyed.trec").read_bytes() == (tmp_path / "forged.trec").read_bytes()
    got = read_run(tmp_path / "keyed.trec").to_dict()
    want: dict = {}
    for p in shards:
        for q, docs in read_run(p).to_dict().items():
            want.setdefault(q, {}).update(docs)
    assert got == want


def test_word_at_a_time_scores_equal_float_on_every_spelling_shape():
    """Eight characters at a time: signs, dots at every place, 0-24 digits on either side, leading zeros, and
    what must leave that path (a second dot, '+', exponents, ':' and '/' beside the digits, '_')."""
    rng = np.random.default_rng(3)
    texts = ["0", "-0", "-0.0", "0.", ".5", "-.5", "5.", "+5", "1.2.3", "1..2", "12:5", "1/2", "9" * 18,
             "9" * 19, "1" + "0" * 17, "0." + "0" * 17 + "1", "0." + "0" * 20 + "123", "-" + "9" * 18,
             "12345678.12345678", "1e5", "-1E-5", "inf", "nan", "0x10", "1_0", "--5", "5-", "-"]
    for _ in range(3000):
        a, b = rng.integers(0, 13, 2)
        digits = "".join(rng.choice(list("0123456789"), a + b))
        text = ("-" if rng.random() < 0.3 else "") + digits[:a] + ("." if rng.random() < 0.8 else "") + digits[a:]
        texts.append(text)
    good = []
    for t in texts:
        try:
            good.append((t, float(t)))
        except ValueError:
            continue
    got = _parse([t for t, _ in good])
    want = np.array([v for _, v in good])
    assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))
    for bad in ("1.2.3", "1..2", "12:5", "1/2", "--5", "5-", "-", "."):
        with pytest.raises(ValueError):
            _parse([bad])


def test_codes_in_first_appearance_order_when_top_bits_collide():
    """Keys sharing their top bits but not their value (what packing positions into the low bits must not
    merge) and keys repeated out of order: codes by first appearance, sorted keys, as argsort would give."""
    from hcrbench.data.trec_fast import _first_codes

    rng = np.random.default_rng(5)
    base = rng.integers(0, 2**63, 300, dtype=np.uint64)
    near = base[:100] ^ rng.integers(1, 2**12, 100, dtype=np.uint64)  # same top bits, other values
    pool = np.concatenate([base, near])
    h = pool[rng.integers(0, len(pool), 5000)]
    first, codes, sk, sc = _first_codes(h)
    _, idx = np.unique(h, return_index=True)
    want_first = np.sort(idx)
    assert np.array_equal(first, want_first)
    assert np.array_equal(h[first][codes], h)
    assert np.array_equal(sk, np.unique(h)) and np.array_equal(h[first][sc], sk)


def test_an_id_lookup_made_once_finds_the_same_codes_in_every_vocabulary():
    from hcrbench.data.vocab import IdLookup

    rng = np.random.default_rng(3)
    pool = [f"msmarco_doc_{i:02d}_{i * 7919:010d}_{i % 7}" if i % 3 else f"d{i}" for i in range(400)]
    judged = [pool[i] for i in rng.permutation(400)[:150].tolist()] + ["absent", "d1\x00", "é-doc"]
    lookup = IdLookup(judged)
    for _ in range(4):  # batches of a run: each its own ids, the same lookup reused
        ids = [pool[i] for i in rng.permutation(400)[:200].tolist()] + ["é-doc"]
        vocab = BytesVocab(np.array([x.encode() for x in ids], dtype="S"))
        want = [ids.index(j) if j in ids else -1 for j in judged]
        assert vocab.codes_of(lookup).tolist() == want
        assert vocab.codes_of(judged).tolist() == want
    assert BytesVocab(np.zeros(0, "S8")).codes_of(lookup).tolist() == [-1] * len(judged)
    assert len(IdLookup([])) == 0


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 63, reason="long double is not wider than double here")
def test_midpoints_read_off_the_bits_equal_the_arithmetic_test():
    from hcrbench.data.trec_fast import _X87, _midway, _midway_bits

    if not _X87:
        pytest.skip("long double is not x87's 80-bit format here")
    rng = np.random.default_rng(5)
    d = np.concatenate([rng.random(2000) * 40, rng.random(500) * 1e-20, 2.0 ** rng.integers(-60, 60, 200),
                        [1.0, 2.0**53, 0.5]])
    dl = d.astype(np.longdouble)
    lo = np.nextafter(d, -np.inf).astype(np.longdouble)
    hi = np.nextafter(d, np.inf).astype(np.longdouble)
    q = np.concatenate([dl, (dl + lo) / 2, (dl + hi) / 2, np.nextafter((dl + hi) / 2, np.longdouble(np.inf)),
                        np.nextafter((dl + lo) / 2, np.longdouble(-np.inf)), [np.longdouble(0)]])
    qd = q.astype(np.float64)
    assert np.array_equal(_midway_bits(q), _midway(q, qd))
    assert int(_midway_bits(q).sum()) >= 2 * len(d) - 10  # the midpoints are there, and found
