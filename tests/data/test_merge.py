"""merge_runs / ranked_order: trec_eval's order (float32 score desc, doc id desc by code point = strcmp on UTF-8)
on generated runs with ties, and the merged file equal to the concatenation of the shards, query by query."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hcrbench.data import Run, read_run
from hcrbench.data.merge import merge_runs, ranked_order

DOCS = ["a", "B", "b", "é", "Z9", "z", "d-1", "d_1", "ü", "10", "9", "日本"]
SCORES = [0.0, -0.0, 1.0, 1.0 + 1e-9, 2.5, -3.0, 1e30, 1e30 * (1 + 1e-12), 0.1 + 0.2, 0.3]

runs = st.dictionaries(st.sampled_from(["q1", "q2", "10", "9", "é"]),
                       st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1), min_size=1)


@settings(max_examples=100, deadline=None)
@given(runs)
def test_ranked_order_is_run_ranked(d):
    run = Run.from_dict(d)
    order = ranked_order(run)
    q = run.entry_query_index()[order]
    got: dict[str, list] = {}
    for i, e in zip(q.tolist(), order.tolist()):
        got.setdefault(run.query_ids[i], []).append((run.doc_vocab[run.doc_index[e]], float(run.scores[e])))
    assert got == {qid: run.ranked(qid) for qid in run.query_ids}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(runs, min_size=1, max_size=4), st.sampled_from([None, 1, 3]), st.sampled_from([64, 1 << 20]))
def test_merged_equals_concatenation(tmp_path_factory, shards, depth, batch):
    tmp = tmp_path_factory.mktemp("merge")
    seen: set = set()
    paths, lines = [], []
    for i, d in enumerate(shards):
        shard = [f"{q} Q0 {doc} 1 {s!r} t{i}\n" for q, docs in d.items() for doc, s in docs.items()
                 if (q, doc) not in seen and not seen.add((q, doc))]  # a doc in one shard only
        p = tmp / f"s{i}.trec"
        p.write_text("# shard\n" + "".join(shard), encoding="utf-8")
        paths.append(p)
        lines += shard
    if not lines:
        return
    (tmp / "all.trec").write_text("".join(lines), encoding="utf-8")
    out = tmp / "merged.trec"
    summary = merge_runs(paths, out, depth=depth, batch_bytes=batch)
    whole, merged = read_run(tmp / "all.trec"), read_run(out)
    assert sorted(merged.query_ids) == sorted(whole.query_ids)
    for q in whole.query_ids:
        assert merged.ranked(q) == whole.ranked(q)[:depth]
    assert summary.lines_read == len(lines) and summary.lines_written == merged.n_entries
    text = out.read_text(encoding="utf-8").splitlines()
    for q in whole.query_ids:  # ranks 1..n in file order per query
        ranks = [int(ln.split()[3]) for ln in text if ln.split()[0] == q]
        assert ranks == list(range(1, len(ranks) + 1))


def test_gzip_shards_and_output(tmp_path: Path):
    import gzip

    a, b = tmp_path / "a.trec.gz", tmp_path / "b.trec"
    with gzip.open(a, "wt") as fh:
        fh.write("q1 Q0 d1 1 2.0 x\nq2 Q0 d1 1 1.0 x\n")
    b.write_text("q1 Q0 d2 1 2.0 y\nq1 Q0 d0 2 3.0 y\n")
    merge_runs([a, b], tmp_path / "m.trec.gz", tag="rag")
    with gzip.open(tmp_path / "m.trec.gz", "rt") as fh:
        lines = sorted(fh.read().splitlines())
    assert lines == ["q1 Q0 d0 1 3.0 rag", "q1 Q0 d1 3 2.0 rag", "q1 Q0 d2 2 2.0 rag", "q2 Q0 d1 1 1.0 rag"]
