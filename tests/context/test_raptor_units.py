"""RAPTOR delivers its own nodes: leaf chunks as document spans and summaries as text units, ranked as its
collapsed-tree retrieval chose them; an experiment's contexts are built from them and feasibility is counted in
RAPTOR's own chunks."""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pytest

pytest.importorskip("umap")
pytest.importorskip("sklearn")

TOPICS = [["cat", "purr", "feline", "whisker", "milk", "kitten"], ["stock", "market", "bond", "rate", "trader"],
          ["python", "code", "compiler", "syntax", "module"], ["rain", "wind", "storm", "coast", "thunder"]]


class Bow:
    """Deterministic bag-of-words encoder (hashed word vectors), no weights."""

    model_id = "bow-raptor-units"

    def encode(self, texts):
        out = np.zeros((len(texts), 32), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                seed = int.from_bytes(hashlib.sha256(w.encode()).digest()[:8], "little")
                out[i] += np.random.default_rng(seed).standard_normal(32)
            n = np.linalg.norm(out[i])
            out[i] /= n or 1.0
        return out


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HCRBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")


def _corpus():
    from hcrbench.data import Corpus

    rng = np.random.default_rng(0)
    texts = [" ".join(" ".join(rng.choice(TOPICS[d % 4], 8)).capitalize() + "." for _ in range(12))
             for d in range(16)]
    return Corpus([f"d{d:02d}" for d in range(16)], texts, [""] * 16)


def test_raptor_exposes_its_context_nodes_first_with_spans_and_summary_texts():
    from hcrbench.context.units import unit_rows
    from hcrbench.data import Queries
    from hcrbench.retrieve import make_retriever

    corpus = _corpus()
    r = make_retriever("raptor", encoder=Bow(), max_clusters=6, top_k=4, max_tokens=400)
    r.index(corpus)
    assert r.tree.num_layers >= 1  # there are summary nodes to deliver
    q = Queries.from_dict({"q1": "cat purr kitten", "q2": "storm thunder coast"})
    r.search(q, k=20)
    texts = dict(zip(corpus.doc_ids, corpus.texts))
    rows = {row["query_id"]: row["units"] for row in unit_rows(r.unit_run, r.unit_corpus)}
    for entry in r.query_log:
        got = rows[entry["query_id"]]
        context = [n["id"] for n in entry["nodes"]]
        ids = [u[0] for u in got]
        want = [r.unit_corpus.doc_ids[n] for n in context]
        assert ids[: len(want)] == want  # its collapsed-tree context first, in its order
        assert len(ids) == 20 and len(set(ids)) == 20  # then filled to k nodes, no repeats
        for u in got:
            if u[1] is None:  # a summary node: its own text
                assert u[0].startswith("raptor:node") and u[5] == r.tree.texts[int(u[0][11:])]
            else:  # a leaf: a span of its document, the chunk RAPTOR indexed
                assert u[0].startswith(u[1] + "#") and texts[u[1]][u[2]:u[3]].strip()
        assert any(u[1] is None for u in got) and any(u[1] is not None for u in got)


def test_raptor_contexts_in_an_experiment_are_its_own_nodes(tmp_path, tiny):
    from hcrbench.context.units import read_unit_set, read_units
    from hcrbench.experiment import run_experiment
    from hcrbench.retrieve import make_retriever
    from hcrbench.retrieve.base import register_retriever

    register_retriever("test-raptor-bow")(
        lambda: make_retriever("raptor", encoder=Bow(), chunk_tokens=8, max_clusters=4, reduction_dimension=2,
                               top_k=6, max_tokens=200))
    cfg = tmp_path / "r.toml"
    cfg.write_text(f'name = "r"\noutput_dir = "r"\nmetrics = ["nDCG@10"]\nk = 5\nn_resamples = 100\n'
                   f'budgets = [12, 40]\n[context]\nchunk_tokens = 8\nreference_budget = 40\n[dataset]\npath = "{tiny}"\n'
                   '[[systems]]\nname = "raptor"\ntype = "test-raptor-bow"\n')
    res = run_experiment(cfg, progress=False)
    s = res.sufficiency
    e = s["systems"]["raptor"]
    assert e["delivers"] == "units" and e["unit_set"] == "units:raptor"
    ufile = tmp_path / "r" / "logs" / "raptor.units.jsonl"
    units = read_units(ufile)
    assert units.keys() == {"q1", "q2", "q3", "q4"}
    own = {u[0] for lst in units.values() for u in lst}
    assert any(u.startswith("raptor:node") for u in own)  # summaries are delivered too
    leaves = read_unit_set(ufile)
    assert leaves and all("#" in u for u, *_ in leaves)  # the unit set: RAPTOR's own chunks (spans only)
    assert s["feasibility"]["unit_sets"]["units:raptor"]["params"] == {"declared": len(leaves)}
    rows = [json.loads(x) for x in (tmp_path / "r" / "contexts" / "raptor.jsonl").read_text().splitlines()]
    chosen = [c for r in rows for c in r["chunks"]]
    assert chosen and set(chosen) <= own  # every context is built from RAPTOR's own nodes
    assert s["oracle"] == "oracle" and s["systems"]["oracle"]["unit_set"] == "units:raptor"
    assert s["systems"]["oracle"]["failure_on_feasible"]["rate"] == 0.0  # the control passes in RAPTOR's units
