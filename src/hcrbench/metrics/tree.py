"""Routing and tree-quality measures for tree retrievers, computed from the persisted tree and the routing log.

Everything here reads files the retriever wrote (``hcrbench.data.tree``), never the retriever itself, so the numbers
can be recomputed offline. Definitions:

* **Routing error** at level ``l`` (a node is *correct* for a query when a chunk of a relevant document lies under
  it): among queries whose candidates at ``l`` include a correct node, ``eps_any`` is the share whose beam keeps
  none, ``eps_all`` the share whose beam misses a correct candidate it had room for (beam ⊇ correct candidates when
  they fit, else beam ⊆ correct). ``accuracy`` is the share of queries whose beam held a correct node at every
  level; the
  model predicts it as prod_l (1 - eps_l) and as (1 - mean eps)^d.
* **Path agreement**: the beam and collapsed paths agree on a query when their best chunks come from the same
  document; path-conditional nDCG@10 is reported per query category for agreeing and disagreeing queries; for
  the dual mode's winner-take-all, which path won (overall and per category) and how often it was not the worse.
* **Sibling distinctiveness**: pairwise cosine distance of sibling routing vectors (mean / min / sd over pairs).
* **Summary fidelity**: cosine of a node's summary vector to its centroid, and the share of nodes whose summary
  is closer to their own centroid than to any sibling's (the summary routes to where its chunks are).
* **Purity** per level against a chunk label (Meridian ``domain``): sum over nodes of the majority count / chunks;
  **dendrogram purity** (Heller & Ghahramani 2005) over sampled same-label chunk pairs.
* **Leaf reachability** under simulated routing error ``eps``: at every node the correct child ranks first with
  probability 1 - eps, else uniformly among the others, and survives if it ranks within the beam.
* **Entity link coverage**: share of (document, world entity) pairs whose entity the extractor found (by id or
  name) in the document's chunks.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Hashable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.data.tree import RoutingRecord, Tree


def relevant_chunks(tree: Tree, qrels: Mapping[str, Mapping[str, int]], rel_threshold: int = 1
                    ) -> dict[str, set[int]]:
    """Per query, chunk positions whose document is relevant (grade >= ``rel_threshold``)."""
    by_doc: dict[str, list[int]] = {}
    for i, d in enumerate(tree.chunk_docs):
        by_doc.setdefault(d, []).append(i)
    out: dict[str, set[int]] = {}
    for q, judged in qrels.items():
        out[q] = {c for d, g in judged.items() if g >= rel_threshold for c in by_doc.get(d, [])}
    return out


def correct_nodes(tree: Tree, chunks: set[int]) -> set[int]:
    """Nodes with at least one of ``chunks`` below them (the root included)."""
    leaf = tree.chunk_leaf()
    out: set[int] = set()
    for c in chunks:
        n = int(leaf[c])
        while n >= 0 and n not in out:
            out.add(n)
            p = tree.nodes[n].parent
            n = -1 if p is None else int(p)
    return out


@dataclass
class RoutingErrors:
    """Per-level routing error and cumulative accuracy (see the module docstring)."""

    eps_any: list[float]
    eps_all: list[float]
    n_at_level: list[int]
    accuracy: float
    predicted_product: float
    predicted_power: float
    n_queries: int
    per_query: dict[str, list[bool]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"eps_any": self.eps_any, "eps_all": self.eps_all, "n_at_level": self.n_at_level,
                "accuracy": self.accuracy, "predicted_product": self.predicted_product,
                "predicted_power": self.predicted_power, "n_queries": self.n_queries}


def routing_errors(tree: Tree, log: Sequence[RoutingRecord], qrels: Mapping[str, Mapping[str, int]],
                   rel_threshold: int = 1) -> RoutingErrors:
    """Per-level eps (any / all correct in beam) from the routing log; queries without relevant chunks skipped."""
    rel = relevant_chunks(tree, qrels, rel_threshold)
    depth = max((len(r.levels) for r in log), default=0)
    miss_any = np.zeros(depth)
    miss_all = np.zeros(depth)
    n_at = np.zeros(depth, dtype=np.int64)
    reached, n_q = 0, 0
    per_query: dict[str, list[bool]] = {}
    for rec in log:
        chunks = rel.get(rec.query_id, set())
        if not chunks or not rec.levels:
            continue
        good = correct_nodes(tree, chunks)
        n_q += 1
        ok_path: list[bool] = []
        alive = True
        for li, lv in enumerate(rec.levels):
            cands = [int(c) for c, _ in lv.candidates]
            correct_c = [c for c in cands if c in good]
            beam = set(lv.beam)
            hit = bool(beam & good)
            if alive and correct_c:
                n_at[li] += 1
                miss_any[li] += not hit
                fits = len(correct_c) <= len(beam)
                all_ok = set(correct_c) <= beam if fits else beam <= good
                miss_all[li] += not all_ok
            alive = alive and hit
            ok_path.append(hit)
        per_query[rec.query_id] = ok_path
        reached += alive  # every level kept a correct node
    with np.errstate(invalid="ignore", divide="ignore"):
        eps_any = np.where(n_at > 0, miss_any / np.maximum(n_at, 1), np.nan)
        eps_all = np.where(n_at > 0, miss_all / np.maximum(n_at, 1), np.nan)
    valid = eps_any[~np.isnan(eps_any)]
    prod = float(np.prod(1 - valid)) if len(valid) else float("nan")
    power = float((1 - valid.mean()) ** depth) if len(valid) else float("nan")
    return RoutingErrors([float(x) for x in eps_any], [float(x) for x in eps_all], [int(x) for x in n_at],
                         reached / n_q if n_q else float("nan"), prod, power, n_q, per_query)


# ------------------------------------------------------------------------------------------------ paths


def _top_doc(tree: Tree, chunks: Sequence[int]) -> str | None:
    return tree.chunk_docs[chunks[0]] if chunks else None


def doc_ranking(tree: Tree, chunks: Sequence[int], k: int = 10) -> dict[str, float]:
    """The first ``k`` distinct documents of a chunk ranking as a run (score = descending position)."""
    out: dict[str, float] = {}
    for c in chunks:
        d = tree.chunk_docs[c]
        if d not in out:
            out[d] = float(len(chunks) - len(out))
            if len(out) == k:
                break
    return out


def path_agreement(tree: Tree, log: Sequence[RoutingRecord], qrels: Mapping[str, Mapping[str, int]],
                   categories: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Agreement rate of the beam and collapsed paths and path-conditional nDCG@10 per category."""
    from hcrbench.metrics import evaluate

    both = [r for r in log if r.beam_top_chunks and r.collapsed_top_chunks]
    if not both:
        return {"n_queries": 0, "agreement": float("nan"), "by_category": {}}
    agree = {r.query_id: _top_doc(tree, r.beam_top_chunks) == _top_doc(tree, r.collapsed_top_chunks)
             for r in both}
    judged = {q: dict(v) for q, v in qrels.items() if q in agree}
    runs = {name: {r.query_id: doc_ranking(tree, getattr(r, attr)) for r in both if r.query_id in judged}
            for name, attr in (("beam", "beam_top_chunks"), ("collapsed", "collapsed_top_chunks"),
                               ("returned", "top_chunks"))}
    by_cat: dict[str, dict[str, Any]] = {}
    winners = {r.query_id: r.path.split(":", 1)[1] for r in both if r.path.startswith("dual-wta:")}
    per_q: dict[str, dict[str, float]] = {}
    if judged:
        res = evaluate(judged, runs, "nDCG@10", missing="zero")
        pq = res.per_query
        for _, row in pq.iterrows():
            q = row["query_id"]
            per_q.setdefault(q, {})[row["run"]] = float(row["nDCG@10"])
            cat = (categories or {}).get(q, "all")
            key = f"{cat}|{'agree' if agree[q] else 'disagree'}"
            slot = by_cat.setdefault(key, {"n": 0, "beam": [], "collapsed": [], "returned": []})
            slot[row["run"]].append(float(row["nDCG@10"]))
        for slot in by_cat.values():
            slot["n"] = len(slot["beam"])
            for name in ("beam", "collapsed", "returned"):
                slot[name] = float(np.mean(slot[name])) if slot[name] else float("nan")
    out = {"n_queries": len(both), "agreement": float(np.mean(list(agree.values()))),
           "by_category": dict(sorted(by_cat.items()))}
    if winners:
        out["winner"] = _winner_stats(winners, per_q, categories)
    return out


def _winner_stats(winners: Mapping[str, str], per_q: Mapping[str, Mapping[str, float]],
                  categories: Mapping[str, str] | None) -> dict[str, Any]:
    """Which path the dual mode's winner-take-all kept, overall and per category, and how often the kept path
    scored at least as well as the other (``kept_not_worse``; 1.0 = the confidence rule never picked the worse
    path) among judged queries, plus the oracle (best path per query) nDCG@10 beside the returned one."""
    counts: dict[str, dict[str, int]] = {}
    for q, w in winners.items():
        cat = (categories or {}).get(q, "all")
        for key in ("all", cat) if cat != "all" else ("all",):
            slot = counts.setdefault(key, {"beam": 0, "collapsed": 0})
            slot[w] = slot.get(w, 0) + 1
    judged = [q for q in winners if q in per_q and {"beam", "collapsed"} <= set(per_q[q])]
    ok = [per_q[q][winners[q]] >= per_q[q]["collapsed" if winners[q] == "beam" else "beam"] for q in judged]
    oracle = [max(per_q[q]["beam"], per_q[q]["collapsed"]) for q in judged]
    kept = [per_q[q][winners[q]] for q in judged]
    return {"counts": dict(sorted(counts.items())),
            "kept_not_worse": float(np.mean(ok)) if ok else float("nan"),
            "kept_ndcg10": float(np.mean(kept)) if kept else float("nan"),
            "oracle_ndcg10": float(np.mean(oracle)) if oracle else float("nan"), "n_judged": len(judged)}


# ------------------------------------------------------------------------------------------------ tree quality


def _stats(x: Sequence[float]) -> dict[str, float]:
    a = np.asarray(x, dtype=np.float64)
    if len(a) == 0:
        return {"mean": float("nan"), "min": float("nan"), "sd": float("nan"), "n": 0}
    return {"mean": float(a.mean()), "min": float(a.min()), "sd": float(a.std(ddof=1)) if len(a) > 1 else 0.0,
            "n": len(a)}


def sibling_distinctiveness(tree: Tree, vectors: np.ndarray) -> dict[str, float]:
    """Cosine distance between every pair of siblings' routing vectors (rows of ``vectors`` by node id)."""
    v = np.asarray(vectors, dtype=np.float64)
    v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
    dists: list[float] = []
    for n in tree.nodes:
        if len(n.children) >= 2:
            s = v[n.children] @ v[n.children].T
            iu = np.triu_indices(len(n.children), 1)
            dists.extend((1.0 - s[iu]).tolist())
    return _stats(dists)


def summary_fidelity(tree: Tree, summary_vecs: np.ndarray, centroids: np.ndarray) -> dict[str, float]:
    """Cosine of each node's summary vector to its centroid, and the share closest to their own centroid among
    their siblings' centroids."""
    s = np.asarray(summary_vecs, dtype=np.float64)
    c = np.asarray(centroids, dtype=np.float64)
    s = s / np.maximum(np.linalg.norm(s, axis=1, keepdims=True), 1e-12)
    c = c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-12)
    cos, own = [], []
    for n in tree.nodes:
        if len(n.children) >= 2:
            sims = s[n.children] @ c[n.children].T
            own.extend((np.argmax(sims, axis=1) == np.arange(len(n.children))).tolist())
        if n.parent is not None:
            cos.append(float(s[n.node_id] @ c[n.node_id]))
    return {"cosine_mean": float(np.mean(cos)) if cos else float("nan"),
            "own_centroid_rate": float(np.mean(own)) if own else float("nan")}


def level_purity(tree: Tree, labels: Sequence[str]) -> dict[int, float]:
    """Per level, sum over nodes of their majority label count / all chunks (chunk ``labels`` by position)."""
    out: dict[int, float] = {}
    total = len(labels)
    for level in range(1, tree.depth + 1):
        agree = 0
        for nid in tree.level_nodes(level):
            chunks = tree.leaf_chunks(nid)
            if chunks:
                _, counts = np.unique([labels[c] for c in chunks], return_counts=True)
                agree += int(counts.max())
        out[level] = agree / total if total else float("nan")
    return out


def dendrogram_purity(tree: Tree, labels: Sequence[str], *, n_pairs: int = 2000, seed: int = 0) -> float:
    """Mean over sampled same-label chunk pairs of the label purity of their lowest common ancestor."""
    rng = np.random.default_rng(seed)
    labels = list(labels)
    leaf = tree.chunk_leaf()
    by_label: dict[str, list[int]] = {}
    for i, lab in enumerate(labels):
        by_label.setdefault(lab, []).append(i)
    usable = sorted(lab for lab, v in by_label.items() if len(v) >= 2)
    if not usable:
        return float("nan")
    weights = np.array([len(by_label[lab]) ** 2 for lab in usable], dtype=np.float64)
    cache: dict[tuple[int, str], float] = {}
    vals = []
    for _ in range(n_pairs):
        lab = usable[int(rng.choice(len(usable), p=weights / weights.sum()))]
        a, b = rng.choice(by_label[lab], size=2, replace=False)
        pa, pb = tree.ancestors(int(leaf[a])), tree.ancestors(int(leaf[b]))
        lca = 0
        for x, y in zip(pa, pb):
            if x != y:
                break
            lca = x
        key = (lca, lab)
        if key not in cache:
            chunks = tree.leaf_chunks(lca)
            cache[key] = sum(labels[c] == lab for c in chunks) / len(chunks)
        vals.append(cache[key])
    return float(np.mean(vals))


def leaf_reachability(tree: Tree, beam_width: int, eps: float, *, n_trials: int = 20, seed: int = 0) -> float:
    """Share of chunks whose root-to-leaf path survives simulated routing error ``eps`` with beam ``beam_width``."""
    rng = np.random.default_rng(seed)
    leaf = tree.chunk_leaf()
    ok = 0
    total = 0
    for c in range(len(leaf)):
        path = tree.ancestors(int(leaf[c]))
        for _ in range(n_trials):
            alive = True
            for parent, _child in itertools.pairwise(path):
                nsib = len(tree.nodes[parent].children)
                if nsib <= beam_width or rng.random() >= eps:
                    continue  # correct child ranked first (or every child fits in the beam)
                rank = 2 + int(rng.integers(0, nsib - 1))  # wrong child first: true child ranks 2..nsib
                if rank > beam_width:
                    alive = False
                    break
            ok += alive
            total += 1
    return ok / total if total else float("nan")


# ------------------------------------------------------------------------------------------------ entities


def world_surface_forms(world: Mapping[str, Any]) -> dict[str, set[str]]:
    """Meridian ``world.json``: entity id -> lower-cased forms a text may use (the id, the name, the code name)."""
    out: dict[str, set[str]] = {}
    for _key, val in world.items():
        if not isinstance(val, list):
            continue
        for ent in val:
            if isinstance(ent, dict) and "id" in ent:
                forms = {str(ent["id"]).lower()}
                for f in ("name", "code_name", "title"):
                    if isinstance(ent.get(f), str):
                        forms.add(ent[f].lower())
                out[str(ent["id"])] = forms
    return out


def entity_link_coverage(tree: Tree, doc_entities: Mapping[str, Sequence[str]],
                         forms: Mapping[str, set[str]]) -> dict[str, float]:
    """Share of (document, entity) pairs of the world whose entity the extractor found in the document's chunks."""
    if tree.chunk_entities is None:
        return {"coverage": float("nan"), "pairs": 0}
    found: dict[str, set[str]] = {}
    for d, ents in zip(tree.chunk_docs, tree.chunk_entities):
        found.setdefault(d, set()).update(ents)
    pairs = hits = 0
    for d, ents in doc_entities.items():
        if d not in found:
            continue
        for e in ents:
            f = forms.get(e, {e.lower()})
            pairs += 1
            hits += bool(f & found[d])
    return {"coverage": hits / pairs if pairs else float("nan"), "pairs": pairs}


# ------------------------------------------------------------------------------------------------ all at once


def tree_report(tree: Tree, log: Sequence[RoutingRecord], qrels: Mapping[str, Mapping[str, int]], *,
                categories: Mapping[str, str] | None = None, labels: Sequence[str] | None = None,
                routing_vectors: np.ndarray | None = None, centroids: np.ndarray | None = None,
                doc_entities: Mapping[str, Sequence[str]] | None = None,
                forms: Mapping[str, set[str]] | None = None, rel_threshold: int = 1, seed: int = 0,
                reach_eps: Sequence[float] = (0.05, 0.1, 0.2),
                shared: tuple[MutableMapping[Hashable, Any], Hashable] | None = None) -> dict[str, Any]:
    """Every routing and tree measure this module has, as one JSON-able dict (missing inputs give no entry).
    ``shared``: ``(memo, key)`` where ``key`` names the tree, its vectors, labels, entities and forms exactly
    (the caller's file digests): the measures of the tree alone (:func:`tree_measures`) are computed once per
    key and beam width (systems that differ only in how they search share one tree)."""
    err = routing_errors(tree, log, qrels, rel_threshold)
    beam_width = max((len(lv.beam) for r in log for lv in r.levels), default=0)
    n = max(len(log), 1)
    out: dict[str, Any] = {
        "n_queries_logged": len(log),
        "paths": {p: sum(r.path == p for r in log) for p in sorted({r.path for r in log})},
        "routing": err.to_dict(),
        "cost": {"nodes_scored_per_query": sum(r.nodes_scored for r in log) / n,
                 "chunks_scored_per_query": sum(r.chunks_scored for r in log) / n,
                 "reranked_per_query": sum(r.reranked for r in log) / n,
                 "links_followed_per_query": sum(len(r.links) for r in log) / n,
                 "n_chunks": len(tree.chunk_ids)},
        "path_agreement": path_agreement(tree, log, qrels, categories),
    }
    args = dict(labels=labels, routing_vectors=routing_vectors, centroids=centroids, doc_entities=doc_entities,
                forms=forms, seed=seed, reach_eps=tuple(reach_eps))
    if shared is None:
        alone = tree_measures(tree, beam_width, **args)  # type: ignore[arg-type]
    else:
        memo, key = shared
        full = (key, beam_width, seed, tuple(reach_eps))
        if full not in memo:
            memo[full] = tree_measures(tree, beam_width, **args)  # type: ignore[arg-type]
        alone = copy.deepcopy(memo[full])  # each report its own dicts
    out["tree"] = alone["tree"]
    if "entity_links" in alone:
        out["entity_links"] = alone["entity_links"]
    return out


def tree_measures(tree: Tree, beam_width: int, *, labels: Sequence[str] | None = None,
                  routing_vectors: np.ndarray | None = None, centroids: np.ndarray | None = None,
                  doc_entities: Mapping[str, Sequence[str]] | None = None,
                  forms: Mapping[str, set[str]] | None = None, seed: int = 0,
                  reach_eps: Sequence[float] = (0.05, 0.1, 0.2)) -> dict[str, Any]:
    """The measures of the tree alone (no routing log but its beam width): ``{"tree": {...}, "entity_links":
    ...}`` as :func:`tree_report` files them."""
    out: dict[str, Any] = {
        "tree": {"depth": tree.depth, "n_nodes": len(tree.nodes),
                 "leaf_reachability": {str(e): leaf_reachability(tree, beam_width or 1, e, n_trials=5, seed=seed)
                                       for e in reach_eps} if beam_width else {}},
    }
    if routing_vectors is not None:
        out["tree"]["sibling_distinctiveness"] = sibling_distinctiveness(tree, routing_vectors)
        if centroids is not None:
            out["tree"]["summary_fidelity"] = summary_fidelity(tree, routing_vectors, centroids)
    if labels is not None:
        out["tree"]["purity_per_level"] = {str(k): v for k, v in level_purity(tree, labels).items()}
        out["tree"]["dendrogram_purity"] = dendrogram_purity(tree, labels, seed=seed)
    if doc_entities is not None:
        out["entity_links"] = entity_link_coverage(tree, doc_entities, forms or {})
    return out
