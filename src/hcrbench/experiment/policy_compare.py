"""Single-hop against multi-hop at the same budget, per query, with costs and paired statistics.

``load_policy_bench`` reads a BEIR folder (Meridian, a converted MultiHop-RAG, anything) or a code set (a BEIR
folder with ``linerange/``). ``compare_policies`` chunks it (``none`` = whole documents; ``tokens:N`` /
``structure:N`` for prose; ``lines[:W:S]`` / ``ast[:N]`` for code), indexes one retriever per chunking, runs both
policies, scores them with :func:`hcrbench.metrics.evaluate` (trec_eval semantics: prose chunk runs are mapped to
documents by their best chunk; code chunks are judged by line-range overlap), adds File-R@10 (share of the gold
files among the top 10 units' files) and snippet Jaccard@10 (best token Jaccard of a top-10 chunk with the gold
snippet) for code, and compares multi-hop with single-hop through :func:`hcrbench.stats.compare` (bootstrap CI,
permutation p, Holm over the metrics of one chunking). The result is the ``policy-compare --json`` document
``{"config", "samples", "aggregate"}``; each sample follows the design's record exactly.
"""

from __future__ import annotations

import math
import platform
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hcrbench.data.types import Run
from hcrbench.errors import InputError
from hcrbench.experiment.policy_bench import (  # re-exported: the public names of the comparison
    CHUNKERS,
    PolicyBench,
    Units,
    check_chunker,
    load_policy_bench,
    make_units,
)
from hcrbench.metrics import evaluate
from hcrbench.metrics.evaluate import EvaluationResult, RunEvaluation
from hcrbench.retrieve.policy import Policy, PolicyResult, run_policy
from hcrbench.stats import compare
from hcrbench.stats.multiple import holm
from hcrbench.synth.codeset import snippet_jaccard

__all__ = ["CHUNKERS", "PolicyBench", "Units", "check_chunker", "compare_policies", "embedding_label",
           "load_policy_bench", "make_units"]

METRICS = ("R@5", "R@10", "nDCG@10", "RR")
FILE_R = "File-R@10"
SNIPPET = "SnippetJ@10"
_KEYS = {"R@5": "recall_at_5", "R@10": "recall_at_10", "nDCG@10": "ndcg_at_10", "RR": "mrr",
         FILE_R: "file_recall_at_10", SNIPPET: "snippet_jaccard_at_10"}


def _doc_run(units: Units, run: Run, kind: str) -> Run:
    """What the metrics score: documents (MaxP) for chunked prose, the units themselves otherwise."""
    if units.to_doc is None or kind == "code":
        return run
    from hcrbench.data.chunking import doc_run_from_chunk_run

    return doc_run_from_chunk_run(run, units.to_doc)


def _file_of(units: Units, unit: str) -> str:
    return units.to_doc.get(unit, unit) if units.to_doc is not None else unit


def _file_recall(units: Units, bench: PolicyBench, run: Run, qids: list[str], k: int = 10) -> np.ndarray:
    out = np.zeros(len(qids))
    for i, q in enumerate(qids):
        gold = {d for d, g in (bench.qrels[q].items() if q in bench.qrels else []) if g >= 1}
        if not gold or q not in run:
            continue
        files = {_file_of(units, d) for d, _ in run.ranked(q)[:k]}
        out[i] = len(gold & files) / len(gold)
    return out


def _snippet(units: Units, bench: PolicyBench, run: Run, qids: list[str], k: int = 10) -> np.ndarray:
    out = np.zeros(len(qids))
    text = {d: units.corpus.texts[i] for i, d in enumerate(units.corpus.doc_ids)}
    for i, q in enumerate(qids):
        rs = (bench.line_ranges or {}).get(q)
        if not rs or q not in run or "snippet" not in rs[0]:
            continue
        out[i] = max((snippet_jaccard(text[d], rs[0]["snippet"]) for d, _ in run.ranked(q)[:k]), default=0.0)
    return out


def embedding_label(params: dict[str, Any]) -> str:
    """The embedding a system uses (``model (backend)``), ``none`` for lexical systems, ``+`` joins several."""
    found: list[str] = []

    def walk(p: Any) -> None:
        if isinstance(p, dict):
            if isinstance(p.get("model"), str):
                found.append(f"{p['model']} ({p.get('backend', '?')})")
            for v in p.values():
                walk(v)

    walk(params)
    return " + ".join(dict.fromkeys(found)) or "none"


def _r(x: float | None, nd: int | None = None) -> float | None:
    """A JSON number: None for NaN/inf; full precision unless ``nd`` digits are asked for (cost means)."""
    if x is None or not math.isfinite(float(x)):
        return None
    return float(x) if nd is None else round(float(x), nd)


def _ratio(a: float, b: float) -> float | None:
    return _r(a / b) if b else None


@dataclass
class _Done:
    units: Units
    results: dict[str, PolicyResult]
    evaluation: EvaluationResult  # runs named by policy, metrics METRICS (+ FILE_R, SNIPPET for code)


def _evaluate(bench: PolicyBench, units: Units, results: dict[str, PolicyResult]) -> EvaluationResult:
    runs = {name: _doc_run(units, r.run, bench.kind).rename(name) for name, r in results.items()}
    ev = evaluate(units.eval_qrels, runs, list(METRICS))
    if bench.kind != "code":
        return ev
    metrics = [*ev.metrics, FILE_R, SNIPPET]
    out = {}
    for name, r in ev.runs.items():
        values = dict(r.values)
        values[FILE_R] = _file_recall(units, bench, results[name].run, list(r.query_ids))
        values[SNIPPET] = _snippet(units, bench, results[name].run, list(r.query_ids))
        out[name] = RunEvaluation(name, list(r.query_ids), values, r.ledger, r.measures)
    return EvaluationResult(metrics, out, ev.rel_threshold, ev.missing)


def compare_policies(bench: PolicyBench, make: Callable[[], Any], system: str, chunkers: list[str],
                     single: Policy, multi: Policy, *, seed: int = 0, n_resamples: int = 10_000,
                     params: dict[str, Any] | None = None,
                     progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The ``policy-compare`` document for ``bench``: one retriever from ``make()`` per chunking, two policies."""
    if single.name == multi.name:
        raise InputError(f"the two policies are the same ({single.name})", field="--max-hops")
    done: dict[str, _Done] = {}
    label = "none"
    sys_params: dict[str, Any] = {}
    for chunker in chunkers:
        units = make_units(bench, chunker)
        if progress:
            progress(f"{_chunker_label(chunker)}: indexing {len(units.corpus):,} units with {system}")
        retriever = make()
        retriever.index(units.corpus)
        sys_params = retriever.params
        label = embedding_label(sys_params)
        results = {}
        for pol in (single, multi):
            if progress:
                progress(f"{chunker}: {pol.name} over {len(bench.queries)} queries")
            results[pol.name] = run_policy(retriever, units.corpus, bench.queries, pol, units.exclude)
        done[chunker] = _Done(units, results, _evaluate(bench, units, results))
    samples = _samples(bench, done, system, label, single, multi)
    aggregate = _aggregate(bench, done, label, single, multi, seed=seed, n_resamples=n_resamples)
    config = {
        "benchmark": bench.name, "kind": bench.kind, "split": bench.split, "n_queries": len(bench.queries),
        "n_documents": len(bench.corpus), "system": system, "system_params": sys_params,
        "user_params": params or {}, "embedding": label, "chunkers": chunkers,
        "units": {c: {"n_units": len(d.units.corpus), **d.units.params} for c, d in done.items()},
        "single_hop": single.to_dict(), "multi_hop": multi.to_dict(), "metrics": list(METRICS),
        "seed": seed, "resamples": n_resamples, "python_version": platform.python_version(),
        "relevance": ("line-range overlap of chunks (RepoEval); files for File-R@10"
                      if bench.kind == "code" else "document qrels; chunk runs mapped to documents by best chunk"),
    }
    return {"config": config, "samples": samples, "aggregate": aggregate}


def _side(ev: RunEvaluation, i: int, res: PolicyResult, q: str, code: bool, multi: bool) -> dict[str, Any]:
    c = res.costs[q]
    out: dict[str, Any] = {"recall_at_5": _r(ev.values["R@5"][i]), "recall_at_10": _r(ev.values["R@10"][i]),
                           "ndcg_at_10": _r(ev.values["nDCG@10"][i]), "mrr": _r(ev.values["RR"][i])}
    if code:
        out["file_recall_at_10"] = _r(ev.values[FILE_R][i])
    out["embedding_calls"] = c.embedding_calls
    out["chunks_examined"] = c.chunks_examined
    if multi:
        out["hops_used"] = c.hops_used
    return out


def _samples(bench: PolicyBench, done: dict[str, _Done], system: str, label: str, single: Policy,
             multi: Policy) -> list[dict[str, Any]]:
    code = bench.kind == "code"
    out = []
    for chunker, d in done.items():
        e1, e2 = d.evaluation.runs[single.name], d.evaluation.runs[multi.name]
        for i, q in enumerate(e1.query_ids):
            j = e2.query_ids.index(q) if e2.query_ids[i] != q else i
            s1 = _side(e1, i, d.results[single.name], q, code, False)
            s2 = _side(e2, j, d.results[multi.name], q, code, True)
            r1, r2 = e1.values["R@10"][i], e2.values["R@10"][j]
            delta = {"delta_recall_10": _r(r2 - r1),
                     "delta_file_recall_10": _r(s2["file_recall_at_10"] - s1["file_recall_at_10"]) if code else None,
                     "delta_ndcg_10": _r(e2.values["nDCG@10"][j] - e1.values["nDCG@10"][i]),
                     "pct_improvement": _r(100.0 * (r2 - r1) / r1) if r1 > 0 else None}
            cost = {"embed_call_ratio": _ratio(s2["embedding_calls"], s1["embedding_calls"]),
                    "chunks_examined_ratio": _ratio(s2["chunks_examined"], s1["chunks_examined"])}
            sid = q if len(done) == 1 else f"{q}@{chunker}"
            out.append({"sample_id": sid, "benchmark": bench.name, "system": system, "embedding": label,
                        "single_hop": s1, "multi_hop": s2, "delta": delta, "cost": cost})
    return out


def _mean_cost(res: PolicyResult, qids: list[str], key: str) -> float:
    return float(np.mean([getattr(res.costs[q], key) for q in qids])) if qids else float("nan")


def _aggregate(bench: PolicyBench, done: dict[str, _Done], label: str, single: Policy, multi: Policy, *,
               seed: int, n_resamples: int) -> dict[str, Any]:
    rows, deltas, strata, chunker_rows = [], [], [], []
    for chunker, d in done.items():
        ev = d.evaluation
        for pol in (single, multi):
            r = ev.runs[pol.name]
            qids = list(r.query_ids)
            row: dict[str, Any] = {"chunker": chunker, "embedding": label, "policy": pol.name, "n": len(qids)}
            for m in ev.metrics:
                row[_KEYS[m]] = _r(float(np.mean(r.values[m])) if len(qids) else float("nan"))
            for key in ("embedding_calls", "chunks_examined", "retrieval_passes", "hops_used"):
                row[key] = _r(_mean_cost(d.results[pol.name], qids, key), 4)
            rows.append(row)
        s_cost = {k: _mean_cost(d.results[single.name], ev.runs[single.name].query_ids, k)
                  for k in ("embedding_calls", "chunks_examined", "retrieval_passes")}
        m_cost = {k: _mean_cost(d.results[multi.name], ev.runs[multi.name].query_ids, k) for k in s_cost}
        cost = {"embed_call_ratio": _ratio(m_cost["embedding_calls"], s_cost["embedding_calls"]),
                "chunks_examined_ratio": _ratio(m_cost["chunks_examined"], s_cost["chunks_examined"]),
                "retrieval_pass_ratio": _ratio(m_cost["retrieval_passes"], s_cost["retrieval_passes"])}
        for c in compare(ev, baseline=single.name, n_resamples=n_resamples, seed=seed):
            deltas.append({"chunker": chunker, "embedding": label, "policy": c.run, **c.to_dict(),
                           "metric_key": _KEYS[c.metric], **cost})
        by: dict[str, list[str]] = {}
        for q in ev.runs[single.name].query_ids:
            by.setdefault(bench.strata.get(q, "all"), []).append(q)
        rows_s = []
        for stratum in sorted(by):
            qs = by[stratum]
            sub = _subset(ev, qs)
            c = compare(sub, baseline=single.name, metrics=["R@10"], n_resamples=n_resamples, seed=seed)[0]
            rows_s.append({"chunker": chunker, "stratum": stratum, "n": len(qs), "metric": "R@10",
                           "single": _r(c.mean_baseline), "multi": _r(c.mean_run), "delta": _r(c.delta),
                           "ci_low": _r(c.ci_low), "ci_high": _r(c.ci_high), "p": _r(c.p),
                           "helped": c.helped, "hurt": c.hurt, "tied": c.tied})
        for r_, ph in zip(rows_s, holm([r_["p"] if r_["p"] is not None else 1.0 for r_ in rows_s])):
            r_["p_holm"] = _r(float(ph))  # Holm over the strata of this chunking
        strata.extend(rows_s)
    if len(done) > 1:
        chunker_rows = _chunker_comparison(done, single, seed=seed, n_resamples=n_resamples)
    native = _native_scores(bench, done, (single, multi))
    return {"rows": rows, "deltas": deltas, "strata": strata, "chunkers": chunker_rows, "native": native,
            "holm_family": "per chunking: every metric of the multi-hop policy against single-hop; strata: "
                           "R@10 per stratum, Holm over the strata of one chunking; chunkers: every metric of "
                           "each chunking against the first, single-hop"}


def _native_scores(bench: PolicyBench, done: dict[str, _Done], policies: tuple[Policy, ...]
                   ) -> list[dict[str, Any]]:
    """MultiHop-RAG's own scores (its script's Hits@4/10, MAP@10, MRR@10 over fact matches), when the queries
    carry evidence facts; empty otherwise."""
    from hcrbench.data.multihop_rag import multihop_rag_scores

    qids = [q for q in bench.queries.query_ids if q in bench.qrels]
    facts = [bench.queries.meta(q).get("facts") for q in qids]
    if not any(isinstance(f, list) and f for f in facts):
        return []
    out = []
    for chunker, d in done.items():
        c = d.units.corpus
        for pol in policies:
            run = d.results[pol.name].run
            texts = [[c.full_text(c.index_of(u)) for u, _ in (run.ranked(q)[:10] if q in run else [])] for q in qids]
            sc = multihop_rag_scores(texts, [f if isinstance(f, list) else [] for f in facts])
            out.append({"chunker": chunker, "policy": pol.name, "n": sc["n"],
                        **{k: _r(sc[k]) for k in ("MAP@10", "MRR@10", "Hits@4", "Hits@10")}})
    return out


def _subset(ev: EvaluationResult, qids: list[str]) -> EvaluationResult:
    out = {}
    for name, r in ev.runs.items():
        pos = {q: i for i, q in enumerate(r.query_ids)}
        idx = [pos[q] for q in qids]
        out[name] = RunEvaluation(name, list(qids), {m: v[idx] for m, v in r.values.items()}, r.ledger, r.measures)
    return EvaluationResult(ev.metrics, out, ev.rel_threshold, ev.missing)


def _chunker_comparison(done: dict[str, _Done], single: Policy, *, seed: int, n_resamples: int
                        ) -> list[dict[str, Any]]:
    """Each chunking against the first on the single-hop policy (paired over the same queries)."""
    first = next(iter(done.values())).evaluation
    runs = {}
    for chunker, d in done.items():
        r = d.evaluation.runs[single.name]
        runs[chunker] = RunEvaluation(chunker, list(r.query_ids), r.values, r.ledger, r.measures)
    ev = EvaluationResult(first.metrics, runs, first.rel_threshold, first.missing)
    return [{"policy": single.name, **c.to_dict(), "metric_key": _KEYS[c.metric]}
            for c in compare(ev, baseline=next(iter(done)), n_resamples=n_resamples, seed=seed)]


def _chunker_label(chunker: str) -> str:
    """How a chunker is named to a person: ``none`` is whole documents ("no chunking")."""
    return "no chunking" if chunker == "none" else f"chunker {chunker}"
