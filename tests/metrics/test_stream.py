"""evaluate_stream (a run read a batch of whole queries at a time) gives exactly evaluate's numbers and ledger, and
pytrec_eval's; on grouped runs, on scattered (spilled) runs, on trec_eval's own regression files."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hcrbench.data import Qrels, read_qrels, read_run
from hcrbench.data.trec_stream import RunNotGrouped, iter_run_batches
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.metrics import evaluate
from hcrbench.metrics.stream import evaluate_stream

#: Every kind the per-query kernels compute (alpha_nDCG aside: it needs subtopics), cut-offs included.
ALL = ["nDCG@10", "nDCG", "P@5", "R@100", "RR", "AP", "AP@10", "Rprec", "Success@3", "Judged@10", "Unjudged@10",
       "NumRel", "NumRet", "NumRelRet", "Bpref", "infAP", "GMAP", "IPrec@0.3", "11pt_avg", "SetP", "SetR", "SetF",
       "ERR@10", "nERR@10", "RBP", "DCG@10", "F1@10", "Hits@10"]


def _same(a, b) -> None:
    """Bit-identical values, query order and ledger."""
    assert a.metrics == b.metrics
    for name in a.runs:
        ra, rb = a.runs[name], b.runs[name]
        assert ra.query_ids == rb.query_ids
        for m in a.metrics:
            np.testing.assert_array_equal(ra.values[m], rb.values[m], err_msg=m)
        assert ra.ledger.to_dict() == rb.ledger.to_dict()


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines))
    return path


def _run_lines(rng: random.Random, n_queries: int, depth: int, prefix: str = "") -> list[str]:
    lines = []
    for q in range(n_queries):
        docs = rng.sample(range(depth * 3), depth)
        for r, d in enumerate(docs):
            score = rng.choice([1.0, 2.0, 0.5, round(rng.random(), 2)])  # ties on purpose
            lines.append(f"{prefix}q{q} Q0 d{d} {r + 1} {score} tag\n")
    return lines


def _qrels(tmp: Path, rng: random.Random, n_queries: int, depth: int) -> Path:
    lines = [f"q{q} 0 d{d} {rng.choice([-1, 0, 1, 2, 3])}\n" for q in range(n_queries + 2)  # 2 not in the run
             for d in rng.sample(range(depth * 3), min(12, depth * 3))]
    return _write(tmp / "qrels.txt", lines)


@pytest.mark.parametrize("missing", ["zero", "skip"])
@pytest.mark.parametrize("batch", [1, 700, 5000, 1 << 26])
def test_grouped_run_equals_in_memory(tmp_path, batch, missing):
    rng = random.Random(7)
    qrels = _qrels(tmp_path, rng, 30, 40)
    run = _write(tmp_path / "run.trec", ["# a comment line\n", *_run_lines(rng, 30, 40), "\n", "zz Q0 d1 1 1 x\n"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        whole = evaluate(qrels, run, ALL, missing=missing)
        streamed = evaluate_stream(qrels, run, ALL, missing=missing, batch_bytes=batch)
    _same(whole, streamed)
    assert whole.runs["run"].ledger.ignored == ["zz"]


@pytest.mark.parametrize("block", [23, 64, 300, 4096])
@pytest.mark.parametrize("batch", [1, 500, 3000])
def test_small_blocks_many_batches(tmp_path, monkeypatch, block, batch):
    """Blocks far smaller than a query (a query spans many blocks) and batches of many blocks: every cut."""
    import hcrbench.data.trec_fast as trec_fast

    rng = random.Random(block)
    qrels = _qrels(tmp_path, rng, 12, 25)
    lines = _run_lines(rng, 12, 25)
    lines[40:40] = ["# comment\n", "\n"]
    run = _write(tmp_path / "run.trec", lines)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        whole = evaluate(qrels, run, ALL)
        monkeypatch.setattr(trec_fast, "BLOCK", block)
        batches = list(iter_run_batches(run, batch_bytes=batch))
        assert sum(b.run.n_entries for b in batches) == 12 * 25
        assert sorted(q for b in batches for q in b.run.query_ids) == sorted(f"q{i}" for i in range(12))
        if batch < 3000:
            assert len(batches) > 1
        _same(whole, evaluate_stream(qrels, run, ALL, batch_bytes=batch))
        shuffled = lines[:]
        random.Random(1).shuffle(shuffled)
        scattered = _write(tmp_path / "scattered.trec", shuffled)
        _same(whole, evaluate_stream(qrels, scattered, ALL, batch_bytes=batch, names=["run"]))


def test_scattered_run_is_spilled_and_equals_in_memory(tmp_path):
    rng = random.Random(3)
    qrels = _qrels(tmp_path, rng, 20, 30)
    lines = _run_lines(rng, 20, 30)
    rng.shuffle(lines)  # every query's lines all over the file
    run = _write(tmp_path / "run.trec", lines)
    with pytest.raises(RunNotGrouped):
        list(iter_run_batches(run, batch_bytes=2000))
    spill_dir = tmp_path / "spill"
    spill_dir.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        streamed = evaluate_stream(qrels, run, ALL, batch_bytes=2000, tmp_dir=spill_dir)
        whole = evaluate(qrels, run, ALL)
    _same(whole, streamed)
    assert list(spill_dir.iterdir()) == []  # the bucket files are gone


def test_batches_hold_whole_queries_once(tmp_path):
    rng = random.Random(1)
    lines = _run_lines(rng, 25, 17)
    run = _write(tmp_path / "run.trec", lines)
    for spill in (False, True):
        seen: list[str] = []
        n = 0
        for batch in iter_run_batches(run, batch_bytes=600, spill=spill):
            seen += batch.run.query_ids
            n += batch.run.n_entries
            assert all(len(batch.run[q]) == 17 for q in batch.run.query_ids)
        assert sorted(seen) == sorted(f"q{i}" for i in range(25)) and n == len(lines)


@pytest.mark.parametrize("case", [("out.test.aq", "qrels.test", "results.test", "skip"),
                                  ("out.test.aqc", "qrels.test", "results.trunc", "zero")])
def test_trec_eval_conformance_files(conformance_dir, case, tmp_path):
    _, qrels_file, run_file, missing = case
    qrels = read_qrels(conformance_dir / qrels_file)
    run_path = conformance_dir / run_file
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        whole = evaluate(qrels, read_run(run_path), ALL, missing=missing)
        for batch in (3000, 20000):
            _same(whole, evaluate_stream(qrels, run_path, ALL, missing=missing, batch_bytes=batch,
                                         names=[whole.metrics and next(iter(whole.runs))]))
        lines = run_path.read_text().splitlines(keepends=True)
        random.Random(0).shuffle(lines)
        shuffled = _write(tmp_path / run_file, lines)
        _same(whole, evaluate_stream(qrels, shuffled, ALL, missing=missing, batch_bytes=5000,
                                     names=[next(iter(whole.runs))]))


def test_equals_pytrec_eval(conformance_dir):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = conformance_dir / "qrels.test", conformance_dir / "results.test"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        res = evaluate_stream(qrels_path, run_path, ["AP", "nDCG@10", "P@5", "RR", "Bpref"], missing="skip",
                              batch_bytes=4000)
    qrels = read_qrels(qrels_path).to_dict()
    run = read_run(run_path).to_dict()
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "recip_rank", "bpref"}).evaluate(run)
    r = next(iter(res.runs.values()))
    for ours, theirs in [("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("P@5", "P_5"), ("RR", "recip_rank"),
                         ("Bpref", "bpref")]:
        got = dict(zip(r.query_ids, r.values[ours].tolist()))
        assert set(got) == set(ref)
        for q in ref:
            assert got[q] == pytest.approx(ref[q][theirs], abs=1e-12), (ours, q)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_generated_runs_equal_in_memory(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("gen")
    n_q = data.draw(st.integers(1, 6))
    qrels = {f"q{i}": data.draw(st.dictionaries(st.sampled_from([f"d{j}" for j in range(8)]),
                                                st.integers(-1, 3), min_size=1, max_size=6)) for i in range(n_q)}
    lines = []
    for i in range(n_q + 1):
        docs = data.draw(st.lists(st.sampled_from([f"d{j}" for j in range(10)]), unique=True, max_size=9))
        scores = data.draw(st.lists(st.sampled_from([0.0, -0.0, 1.0, 1.0 + 1e-9, 0.5, 3.25, -2.0]),
                                    min_size=len(docs), max_size=len(docs)))
        lines += [f"q{i} Q0 {d} {r} {s!r} t\n" for r, (d, s) in enumerate(zip(docs, scores))]
    lines.append("q0 Q0 extra 1 1.0 t\n")
    if data.draw(st.booleans()):
        lines = data.draw(st.permutations(lines))
    run = _write(tmp / "run.trec", lines)
    batch = data.draw(st.sampled_from([1, 60, 200, 1 << 20]))
    block = data.draw(st.sampled_from([16, 64, 1 << 22]))  # a query over many blocks, or one block for all
    missing = data.draw(st.sampled_from(["zero", "skip"]))
    kwargs = {"missing": missing, "max_docs": data.draw(st.sampled_from([None, 3])),
              "judged_only": data.draw(st.booleans())}
    q = Qrels.from_dict(qrels)
    import hcrbench.data.trec_fast as trec_fast

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        try:
            whole = evaluate(q, run, ALL, **kwargs)
        except InputError as e:
            whole, error = None, e
        saved, trec_fast.BLOCK = trec_fast.BLOCK, block
        try:
            if whole is None:
                with pytest.raises(InputError) as got:
                    evaluate_stream(q, run, ALL, batch_bytes=batch, **kwargs)
                assert got.value.problem == error.problem
            else:
                _same(whole, evaluate_stream(q, run, ALL, batch_bytes=batch, **kwargs))
        finally:
            trec_fast.BLOCK = saved


def test_bad_line_is_named_with_the_files_own_line_number(tmp_path):
    rng = random.Random(5)
    lines = _run_lines(rng, 10, 20)
    lines[150] = "q7 Q0 dX 1 notanumber tag\n"
    run = _write(tmp_path / "run.trec", lines)
    qrels = _qrels(tmp_path, rng, 10, 20)
    with pytest.raises(InputError) as e:
        evaluate_stream(qrels, run, "AP", batch_bytes=500)
    assert e.value.line == 151 and e.value.field == "score"


def test_duplicate_line_is_named_grouped_and_spilled(tmp_path):
    rng = random.Random(6)
    lines = _run_lines(rng, 10, 20)
    lines.insert(120, lines[110])
    qrels = _qrels(tmp_path, rng, 10, 20)
    with pytest.raises(InputError) as whole:
        read_run(_write(tmp_path / "run.trec", lines))
    for shuffle in (False, True):
        if shuffle:  # the two copies keep their order; the file's line numbers change
            lines = lines[100:] + lines[:100]
        path = _write(tmp_path / "run.trec", lines)
        with pytest.raises(InputError) as reread:
            read_run(path)
        with pytest.raises(InputError) as e:
            evaluate_stream(qrels, path, "AP", batch_bytes=400)
        assert (e.value.line, e.value.problem) == (reread.value.line, reread.value.problem)
    assert whole.value.line == 121
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        _same(evaluate(qrels, read_run(path, dedupe=True), "AP"),
              evaluate_stream(qrels, path, "AP", batch_bytes=400, dedupe=True))
