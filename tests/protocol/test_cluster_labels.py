"""One clustering path: the kill interval and its replay read the same cluster labels, and a query without a
label is its own cluster instead of dropping every other query's cluster (the independent-queries t that runs
above nominal when queries are clustered)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from hcrbench.protocol.inputs import cluster_labels
from hcrbench.protocol.operating_inputs import cluster_index
from hcrbench.protocol.subject import query_cluster_ids


def _data(tmp_path, labelled: int, n: int = 40):
    qids = [f"q{i}" for i in range(n)]
    if labelled:
        (tmp_path / "queries.meta.jsonl").write_text("".join(
            f'{{"query_id": "{q}", "cluster": "c{i // 8}"}}\n' for i, q in enumerate(qids[:labelled])))
    return qids, SimpleNamespace(queries=SimpleNamespace(query_ids=qids, meta=lambda q: {}), root=tmp_path)


def test_a_partly_labelled_suite_keeps_its_clusters(tmp_path):
    qids, data = _data(tmp_path, labelled=32)
    labels, known = cluster_labels(data, qids)
    assert known
    assert labels[:32] == [f"c{i // 8}" for i in range(32)]
    assert labels[32:] == [("query", q) for q in qids[32:]]  # each unlabelled query its own cluster
    run = SimpleNamespace(query_ids=qids, values={"nDCG@10": np.zeros(len(qids))})
    ctx = SimpleNamespace(data=data, metric="nDCG@10")
    ids, known2 = query_cluster_ids(ctx, run, run)  # type: ignore[arg-type]
    idx = cluster_index(ctx, run, run)
    assert known2 and ids == labels
    assert idx is not None and len(set(idx.tolist())) == 4 + 8  # the replay resamples the same 12 clusters


def test_no_label_at_all_is_the_paired_t(tmp_path):
    qids, data = _data(tmp_path, labelled=0)
    labels, known = cluster_labels(data, qids)
    assert not known and labels == [("query", q) for q in qids]
    run = SimpleNamespace(query_ids=qids, values={"nDCG@10": np.zeros(len(qids))})
    assert cluster_index(SimpleNamespace(data=data, metric="nDCG@10"), run, run) is None
