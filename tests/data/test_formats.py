"""Readers and writers: round trips, streaming details, and every bad input as a one-line error."""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data import (
    Qrels,
    Run,
    load_beir,
    read_corpus,
    read_qrels,
    read_queries,
    read_run,
    write_beir_qrels,
    write_corpus,
    write_qrels,
    write_queries,
    write_run,
)
from hcrbench.data.types import Corpus, Queries
from hcrbench.errors import HcrbenchWarning, InputError


def _err(fn, *args, **kwargs) -> str:
    with pytest.raises(InputError) as ei:
        fn(*args, **kwargs)
    msg = str(ei.value)
    assert "\n" not in msg
    return msg


# ----------------------------------------------------------------------------------------------- good input


def test_read_run_groups_queries_and_ignores_rank_column(tmp_path):
    p = tmp_path / "r.trec"
    p.write_text("q1 Q0 d1 9 1.5 t\nq2 Q0 d2 1 2.0 t\nq1 Q0 d3 1 0.5 t\n")
    run = read_run(p)
    assert run.name == "r"
    assert run.query_ids == ["q1", "q2"]
    assert run["q1"] == {"d1": 1.5, "d3": 0.5}
    assert run.ranked("q1") == [("d1", 1.5), ("d3", 0.5)]


def test_ties_rank_by_docid_descending():
    run = Run.from_dict({"q": {"a": 1.0, "c": 1.0, "b": 2.0}})
    assert [d for d, _ in run.ranked("q")] == ["b", "c", "a"]


def test_gzip_run_by_magic_bytes(tmp_path):
    p = tmp_path / "run.txt"
    with gzip.open(p, "wt") as fh:
        fh.write("q1 Q0 d1 1 3.0 t\n")
    assert read_run(p)["q1"] == {"d1": 3.0}


def test_extra_columns_warn_like_trec_eval(tmp_path):
    p = tmp_path / "r.trec"
    p.write_text("q1 Q0 d1 1 3.0 tag extra junk\n")
    with pytest.warns(HcrbenchWarning, match="more than 6 columns"):
        run = read_run(p)
    assert run["q1"] == {"d1": 3.0}


def test_beir_qrels_with_header(tmp_path):
    p = tmp_path / "test.tsv"
    p.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\n")
    assert read_qrels(p)["q1"] == {"d1": 1, "d2": 2}


def test_dedupe_keeps_first(tmp_path):
    p = tmp_path / "r.trec"
    p.write_text("q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d1 3 1.0 t\n")
    run = read_run(p, dedupe=True)
    assert run["q1"] == {"d1": 3.0, "d2": 2.0}


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.text("abcxyz0123", min_size=1, max_size=4),
        st.dictionaries(
            st.text("abcdefgh-_.0123456789", min_size=1, max_size=6),
            st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
            max_size=8,
        ),
        min_size=1,
        max_size=5,
    )
)
def test_run_round_trip(tmp_path_factory, d):
    d = {q: v for q, v in d.items() if v}
    if not d:
        return
    p = tmp_path_factory.mktemp("rt") / "x.trec.gz"
    run = Run.from_dict(d, name="x")
    write_run(run, p)
    back = read_run(p)
    assert back.to_dict() == run.to_dict()
    assert [back.ranked(q) for q in back.query_ids] == [run.ranked(q) for q in back.query_ids]


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.text("pq0123", min_size=1, max_size=3),
        st.dictionaries(st.text("abcdef012", min_size=1, max_size=5), st.integers(-1, 4), min_size=1,
                        max_size=6),
        min_size=1,
        max_size=5,
    )
)
def test_qrels_round_trip_trec_and_beir(tmp_path_factory, d):
    qrels = Qrels.from_dict(d)
    tmp = tmp_path_factory.mktemp("q")
    write_qrels(qrels, tmp / "q.txt")
    write_beir_qrels(qrels, tmp / "q.tsv")
    assert read_qrels(tmp / "q.txt").to_dict() == d
    assert read_qrels(tmp / "q.tsv").to_dict() == d


def test_write_run_is_deterministic(tmp_path):
    run = Run.from_dict({"q1": {"a": 1.0, "b": 1.0}, "q0": {"c": 0.1}})
    write_run(run, tmp_path / "a.trec.gz")
    write_run(run, tmp_path / "b.trec.gz")
    assert (tmp_path / "a.trec.gz").read_bytes() == (tmp_path / "b.trec.gz").read_bytes()


def test_beir_round_trip(tmp_path):
    corpus = Corpus(["d1", "d2"], ["text one", "text two"], ["T1", ""], [{"domain": "hr"}, {}])
    queries = Queries(["q1"], ["what"], [{"category": "x"}])
    write_corpus(corpus, tmp_path / "corpus.jsonl")
    write_queries(queries, tmp_path / "queries.jsonl")
    write_beir_qrels(Qrels.from_dict({"q1": {"d1": 1}}), tmp_path / "qrels" / "test.tsv")
    ds = load_beir(tmp_path, "test")
    assert ds.corpus.doc_ids == ["d1", "d2"]
    assert ds.corpus.metadata[0] == {"domain": "hr"}
    assert ds.corpus.full_text(0) == "T1 text one"
    assert ds.queries.meta("q1") == {"category": "x"}


def test_qrels_n_relevant_handles_empty_and_threshold():
    q = Qrels.from_dict({"a": {"d1": 0, "d2": 2}, "b": {}, "c": {"d": 1}})
    assert q.n_relevant(1).tolist() == [1, 0, 1]
    assert q.n_relevant(2).tolist() == [1, 0, 0]


def test_subset_keeps_order_and_values():
    run = Run.from_dict({"a": {"x": 1.0}, "b": {"y": 2.0, "z": 3.0}})
    sub = run.subset(["b", "missing"])
    assert sub.query_ids == ["b"] and sub["b"] == {"y": 2.0, "z": 3.0}
    assert np.array_equal(sub.offsets, [0, 2])


# ----------------------------------------------------------------------------------------------- bad input

BAD_RUNS = [
    ("q1 Q0 d1 1 3.0\n", ":1: columns: expected 6 columns"),
    ("q1 Q0 d1 1 3.0 t\nq1 Q0 d2 2 abc t\n", ":2: score: score is not a number: 'abc'"),
    ("q1 Q0 d1 1 nan t\n", ":1: score: score must be finite"),
    ("q1 Q0 d1 1 inf t\n", ":1: score: score must be finite"),
    ("q1 Q0 d1 1 1 t\nq1 Q0 d2 1 1 t\nq1 Q0 d1 1 1 t\n", ":3: docid: doc 'd1' appears twice for query 'q1'"),
    ("", ": file is empty"),
    ("\n  \n", ": file is empty"),
]


@pytest.mark.parametrize(("content", "expected"), BAD_RUNS)
def test_bad_run_lines(tmp_path, content, expected):
    p = tmp_path / "bad.trec"
    p.write_text(content)
    msg = _err(read_run, p)
    assert msg.startswith(str(p))
    assert expected in msg


BAD_QRELS = [
    ("q1 0 d1\n", None),  # 3 columns and non-integer last column: treated as BEIR header -> no judgments
    ("q1 0 d1 1\nq1 0 d2\n", ":2: columns: expected 4 (qid iter docid rel) columns, found 3"),
    ("q1 0 d1 x\n", ":1: rel: relevance must be an integer, got 'x'"),
    ("q1 0 d1 1.5\n", ":1: rel: relevance must be an integer"),
    ("q1 0 d1 1\nq1 0 d1 2\n", ":2: docid: duplicate judgment for query 'q1' doc 'd1'"),
    ("", ": file is empty"),
]


@pytest.mark.parametrize(("content", "expected"), BAD_QRELS)
def test_bad_qrels_lines(tmp_path, content, expected):
    p = tmp_path / "bad.qrels"
    p.write_text(content)
    msg = _err(read_qrels, p)
    assert msg.startswith(str(p))
    if expected:
        assert expected in msg


def test_bad_utf8_names_line(tmp_path):
    p = tmp_path / "bad.trec"
    p.write_bytes(b"q1 Q0 d1 1 1.0 t\nq1 Q0 d\xff2 2 0.5 t\n")
    assert ":2: invalid UTF-8" in _err(read_run, p)


def test_missing_file(tmp_path):
    assert "file not found" in _err(read_run, tmp_path / "nope.trec")


def test_beir_missing_file_names_it(tmp_path):
    (tmp_path / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\n')
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "x"}\n')
    msg = _err(load_beir, tmp_path, "test")
    assert "missing qrels/test.tsv" in msg
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    assert "available splits: dev" in _err(load_beir, tmp_path, "test")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("not json", ":1: invalid JSON"),
        ("[1, 2]", ":1: expected a JSON object"),
        ('{"text": "x"}', ":1: _id: missing id"),
        ('{"_id": "d1"}', ":1: text: missing field 'text'"),
        ('{"_id": "d1", "text": 3}', ":1: text: 'text' must be a string"),
    ],
)
def test_bad_corpus_lines(tmp_path, line, expected):
    p = tmp_path / "corpus.jsonl"
    p.write_text(line + "\n")
    assert expected in _err(read_corpus, p)


def test_duplicate_doc_and_query_ids(tmp_path):
    p = tmp_path / "corpus.jsonl"
    p.write_text('{"_id": "d1", "text": "x"}\n{"_id": "d1", "text": "y"}\n')
    assert ":2: _id: duplicate doc id 'd1' (first on line 1)" in _err(read_corpus, p)
    p = tmp_path / "queries.jsonl"
    p.write_text('{"_id": "q", "text": "x"}\n{"_id": "q", "text": "y"}\n')
    assert ":2: _id: duplicate query id" in _err(read_queries, p)


def test_shared_scifact_loads(shared_dir):
    ds = load_beir(shared_dir / "datasets" / "scifact", "test")
    assert (len(ds.corpus), len(ds.queries), len(ds.qrels), ds.qrels.n_entries) == (5183, 300, 300, 339)


def test_conformance_trunc_reads_with_warning(conformance_dir):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        run = read_run(conformance_dir / "results.trunc")
    assert any(issubclass(x.category, HcrbenchWarning) for x in w)
    assert set(run.query_ids) == {"301", "303"}
