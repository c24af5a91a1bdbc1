"""Rerank (MaxSim and the CrossEncoder plumbing), the run-file retriever, the registry and plugins."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from importlib import metadata

import numpy as np
import pytest

from hcrbench.data import Run, write_run
from hcrbench.errors import InputError
from hcrbench.retrieve import available_retrievers, make_retriever, rrf
from hcrbench.retrieve.rerank import maxsim_scores


def test_maxsim_scores_against_loops():
    rng = np.random.default_rng(0)

    def unit(n):
        x = rng.standard_normal((n, 8))
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    q = unit(3)
    docs = [unit(4), unit(0), unit(1), unit(6)]
    got = maxsim_scores(q, docs)
    ref = [sum(max(float(qi @ dj) for dj in d) for qi in q) if len(d) else 0.0 for d in docs]
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    assert maxsim_scores(q[:0], docs).tolist() == [0.0] * 4


def test_maxsim_rerank_reorders_only_the_top_n(corpus, queries, Fake):
    bm25 = make_retriever("bm25")
    enc = Fake()
    r = make_retriever("rerank", first=bm25, encoder=enc, top_n=2)
    r.index(corpus)
    res = r.search(queries, k=5)
    first = bm25.search(queries, 5).run
    for q, text in queries.items():
        fr = [d for d, _ in first.ranked(q)]
        rr = [d for d, _ in res.run.ranked(q)]
        assert sorted(rr[:2]) == sorted(fr[:2]) and rr[2:] == fr[2:5]  # beyond top_n: first-stage order
        qt = Fake().encode_tokens([text])[0]
        blocks = Fake().encode_tokens([corpus.full_text(corpus.index_of(d)) for d in fr[:2]])
        expect = maxsim_scores(qt.astype(np.float16).astype(np.float32), [b.astype(np.float16) for b in blocks])
        assert [res.run[q][d] for d in fr[:2]] == pytest.approx(expect.tolist(), rel=1e-6)
    reranked = sum(min(2, len(first[q])) for q in first.query_ids)
    first_scored = bm25.search(queries, 5).costs.counters["docs_scored"]
    assert res.costs.counters["docs_scored"] == first_scored + reranked  # both stages count
    assert r.params["trained_reranker"] is False
    # a second search encodes nothing: doc and query token vectors come from the cache
    again = Fake()
    r2 = make_retriever("rerank", first=bm25, encoder=again, top_n=2)
    r2.index(corpus)
    assert r2.search(queries, k=5).run.to_dict() == res.run.to_dict()
    assert again.calls == 0


def test_rerank_fuse_is_rrf_with_first_stage(corpus, queries, Fake):
    bm25 = make_retriever("bm25")
    plain = make_retriever("rerank", first=bm25, encoder=Fake(), top_n=5)
    plain.index(corpus)
    fused = make_retriever("rerank", first=bm25, encoder=Fake(), top_n=5, fuse=True)
    fused.index(corpus)
    ref = rrf([plain.search(queries, 5).run, bm25.search(queries, 5).run], k=60)
    got = fused.search(queries, 5).run
    for q in queries.query_ids:
        assert got[q] == pytest.approx(ref[q])


@pytest.mark.slow  # imports torch + transformers: ~10 s alone, much more on a busy machine
def test_cross_encoder_plumbing(tmp_path, corpus, queries):
    """Plumbing only: a tiny randomly initialised model proves the CrossEncoder path runs end to end."""
    import torch
    import transformers
    from sentence_transformers import CrossEncoder

    from hcrbench.retrieve.encoders import default_model_path

    tok = transformers.BertTokenizerFast.from_pretrained(str(default_model_path()))
    cfg = transformers.BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1,
                                  num_attention_heads=2, intermediate_size=32, num_labels=1)
    torch.manual_seed(0)
    transformers.BertForSequenceClassification(cfg).save_pretrained(tmp_path / "ce")
    tok.save_pretrained(tmp_path / "ce")
    bm25 = make_retriever("bm25")
    r = make_retriever("rerank", method="cross-encoder", model=str(tmp_path / "ce"), first=bm25, top_n=3)
    r.index(corpus)
    res = r.search(queries, k=3)
    ce = CrossEncoder(str(tmp_path / "ce"), device="cpu")
    for q, text in queries.items():
        docs = [d for d, _ in bm25.search(queries.subset([q]), 3).run.ranked(q)]
        expect = ce.predict([(text, corpus.full_text(corpus.index_of(d))) for d in docs])
        assert [res.run[q][d] for d in docs] == pytest.approx(np.asarray(expect).tolist(), rel=1e-4, abs=1e-6)
    assert res.costs.counters["pairs_scored"] == sum(len(res.run[q]) for q in queries.query_ids)


@pytest.mark.slow  # imports torch
def test_cross_encoder_without_weights_is_a_one_line_error(corpus, queries, tmp_path):
    r = make_retriever("rerank", method="cross-encoder", model=str(tmp_path / "missing"), top_n=2)
    r.index(corpus)
    with pytest.raises(InputError) as e:
        r.search(queries, 2)
    assert "method=maxsim" in str(e.value) and "\n" not in str(e.value)


def test_runfile_replays_a_run(tmp_path, corpus, queries):
    run = Run.from_dict({"q1": {"d01": 2.0, "d05": 3.0, "d02": 1.0}, "q9": {"d03": 1.0}}, name="ext")
    write_run(run, tmp_path / "ext.trec")
    r = make_retriever("runfile", path=str(tmp_path / "ext.trec"))
    r.index(corpus)
    res = r.search(queries, k=2)
    assert res.run.query_ids == queries.query_ids
    assert res.run.ranked("q1") == [("d05", 3.0), ("d01", 2.0)]
    assert res.run["q2"] == {}
    assert r.name == "ext"
    with pytest.raises(InputError):
        make_retriever("runfile", path=str(tmp_path / "nope.trec"))
    with pytest.raises(InputError):
        make_retriever("runfile")


def test_runfile_warns_on_unknown_docs(tmp_path, corpus):
    from hcrbench.errors import HcrbenchWarning

    write_run(Run.from_dict({"q1": {"ghost": 1.0}}), tmp_path / "r.trec")
    r = make_retriever("runfile", path=str(tmp_path / "r.trec"))
    with pytest.warns(HcrbenchWarning, match="not in the corpus"):
        r.index(corpus)


def test_a_run_of_several_worlds_counts_only_its_own_queries_unknown_docs(tmp_path):
    """A run file holding two worlds' rankings, checked against one world's corpus: the other world's queries
    (none of whose documents are in it) are not counted; a doc id of its own queries missing from the corpus is,
    per world; every id in its own world's corpus: no warning at all."""
    import warnings

    from hcrbench.data.types import Corpus
    from hcrbench.errors import HcrbenchWarning

    worlds = {w: Corpus([f"{w}-d{i}" for i in range(5)], ["text"] * 5, name=w) for w in ("w02", "w03")}
    ranked = {f"{w}-q{j}": {f"{w}-d{i}": 5.0 - i for i in range(5)} for w in worlds for j in range(3)}
    write_run(Run.from_dict(ranked), tmp_path / "clean.trec")
    for corpus in worlds.values():
        with warnings.catch_warnings():
            warnings.simplefilter("error", HcrbenchWarning)
            r = make_retriever("runfile", path=str(tmp_path / "clean.trec"))
            r.index(corpus)  # the other world's 5 docs of 3 queries: not this world's, not a warning
            assert r.unknown_docs == 0
    ranked["w03-q1"]["w03-ghost"] = 0.5  # one id of a w03 query is in no corpus
    write_run(Run.from_dict(ranked), tmp_path / "ghost.trec")
    r = make_retriever("runfile", path=str(tmp_path / "ghost.trec"))
    with pytest.warns(HcrbenchWarning, match=r"1 doc ids it retrieves for the 3 queries it ranks over the corpus "
                                             r"'w03' are not in it \(its 3 queries with no doc in it"):
        r.index(worlds["w03"])
    assert r.unknown_docs == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", HcrbenchWarning)
        r.index(worlds["w02"])  # w02's own queries are whole
    assert r.unknown_docs == 0


def test_registry_lists_builtins_and_rejects_unknown():
    assert {"bm25", "dense", "hybrid", "rerank", "runfile"} <= set(available_retrievers())
    with pytest.raises(InputError, match="unknown system"):
        make_retriever("bm99")


def test_builtins_import_no_heavy_library():
    code = ("import sys, hcrbench.retrieve as r; r.available_retrievers(); "
            "print([m for m in ('torch', 'bm25s', 'faiss', 'sentence_transformers') if m in sys.modules])")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_missing_extra_is_named(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sentence_transformers" else real(name, *a))
    with pytest.raises(InputError) as e:  # torch asked for by name: the message names the command that works
        make_retriever("dense", backend="torch")
    assert "backend=torch needs torch and sentence-transformers" in str(e.value) and "pip install" in str(e.value)
    if real("onnxruntime") is not None:  # the default (auto) takes the backend that is installed
        assert make_retriever("dense").params["backend"] == "onnx"


def test_plugin_entry_point(tmp_path, monkeypatch, corpus, queries):
    """The 5-line recipe of docs/baselines.md: a class with name/index/search/params and an entry point."""
    (tmp_path / "my_plugin.py").write_text(textwrap.dedent("""
        from hcrbench.data import Run, RunResult

        class FirstDoc:
            name = "firstdoc"
            def __init__(self, boost: float = 1.0):
                self.boost = boost
            params = property(lambda self: {"boost": self.boost})
            def index(self, corpus):
                self.ids = corpus.doc_ids
            def search(self, queries, k=100):
                return RunResult(Run.from_dict({q: {self.ids[0]: self.boost} for q in queries.query_ids}))
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = metadata.EntryPoint(name="firstdoc", value="my_plugin:FirstDoc", group="hcrbench.retrievers")
    real = metadata.entry_points
    monkeypatch.setattr(metadata, "entry_points",
                        lambda **kw: [ep] if kw.get("group") == "hcrbench.retrievers" else real(**kw))
    assert "firstdoc" in available_retrievers()
    r = make_retriever("firstdoc", boost=2.0)
    r.index(corpus)
    assert r.search(queries, 1).run["q1"] == {"d01": 2.0}
    with pytest.raises(InputError, match="unknown parameter 'bost'"):
        make_retriever("firstdoc", bost=2.0)
    bad = metadata.EntryPoint(name="broken", value="no_such_module:X", group="hcrbench.retrievers")
    monkeypatch.setattr(metadata, "entry_points", lambda **kw: [bad])
    with pytest.raises(InputError, match="failed to load"):
        make_retriever("broken")
