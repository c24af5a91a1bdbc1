"""The runner's context step: token-budgeted contexts for every system, judged for sufficiency@B.

For each system's (document-level) run, the top documents are expanded to context chunks in rank order
(``context.chunk_tokens`` per chunk, sentence-respecting, no overlap), ``selection`` picks chunks under each budget
of ``budgets`` plus unconstrained, and each context is judged three ways (:mod:`hcrbench.metrics.sufficiency`).
Rates get percentile-bootstrap CIs, systems are compared with the baseline at every budget by the exact McNemar
test (Holm across budgets, per system). Per-query contexts go to ``contexts/<system>.jsonl``; the summary becomes
``eval.json``'s ``sufficiency`` key, which ``hcrbench run`` then draws (:mod:`hcrbench.report.curves`, a stage
above this one, writes ``curves/``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.context import ChunkIndex, Selection, TfidfSimilarity, greedy_positions, select
from hcrbench.data.beir import write_jsonl
from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.evidence import QueryEvidence, read_evidence
from hcrbench.data.tokens import get_counter
from hcrbench.data.types import Run
from hcrbench.errors import InputError
from hcrbench.experiment.config import ExperimentConfig, locate
from hcrbench.experiment.dataset import ExperimentData
from hcrbench.metrics.sufficiency import (
    KINDS,
    detection,
    failure_band,
    is_budget_feasible,
    judge,
    token_efficiency,
)
from hcrbench.stats import bootstrap_ci, holm
from hcrbench.stats._arrays import derive_seed
from hcrbench.stats.mcnemar import mcnemar_exact

#: How an unconstrained budget is written in JSON keys and tables.
UNCONSTRAINED = "all"


def budget_key(b: int | None) -> str:
    return UNCONSTRAINED if b is None else str(b)


def impossible_rule(scores: list[float], tokens: list[int], budget: int, tau: float = 0.8) -> bool:
    """A naive, retrieval-side "budget-impossible" flag (no ground truth): the candidates scoring at least
    ``tau`` of the way from the pool's lowest to its highest score need more than ``budget`` tokens together."""
    if not scores:
        return False
    s = np.asarray(scores, dtype=np.float64)
    lo, hi = float(s.min()), float(s.max())
    if hi <= lo:
        return int(np.sum(tokens)) > budget
    top = (s - lo) / (hi - lo) >= tau
    return int(np.asarray(tokens)[top].sum()) > budget


def _evidence(cfg: ExperimentConfig, data: ExperimentData, config_path: Path, text: str
              ) -> dict[str, QueryEvidence] | None:
    if cfg.context.evidence is not None:
        p = Path(cfg.context.evidence).expanduser()
        p = p if p.is_absolute() else config_path.parent / p
        if not p.is_file():
            raise InputError(f"file not found: {p}", path=config_path, line=locate(text, ("context", "evidence")),
                             field="context.evidence")
        return read_evidence(p)
    p = Path(data.root) / "evidence.jsonl"
    return read_evidence(p) if p.is_file() else None


def _rate(values: list[bool], seed: int, n_resamples: int) -> dict[str, Any]:
    x = np.asarray(values, dtype=np.float64)
    ci = bootstrap_ci(x, n_resamples=n_resamples, seed=seed)
    return {"rate": ci.estimate, "low": ci.low, "high": ci.high, "n": int(x.size)}


def context_step(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], baseline: str, out: Path,
                 config_path: Path, text: str) -> tuple[dict[str, Any], dict[str, float]] | None:
    """Select, judge and summarise contexts for every run: ``(eval.json's "sufficiency", timings)``, or ``None``
    when the config sets no budgets. Timings (wall clock, for the manifest) stay out of the deterministic summary."""
    if not cfg.budgets:
        return None
    cc = cfg.context
    counter = get_counter(cc.token_counter)
    evidence = _evidence(cfg, data, config_path, text)
    t0 = time.perf_counter()
    chunked = chunk_corpus(data.corpus, max_tokens=cc.chunk_tokens, overlap=0, counter=counter)
    index = ChunkIndex(chunked)
    sim = TfidfSimilarity(chunked.corpus.doc_ids, chunked.corpus.texts) if cfg.selection != "greedy" else None
    prep_seconds = time.perf_counter() - t0
    doc_texts = dict(zip(data.corpus.doc_ids, data.corpus.texts))
    budgets: list[int | None] = [*cfg.budgets, None]
    qids = list(data.queries.query_ids)
    rel_docs = {q: [d for d, g in data.qrels[q].items() if g >= cfg.rel_threshold]
                for q in qids if q in data.qrels}
    ref = cc.reference_budget
    feasible = {q: is_budget_feasible(e, ref, counter) for q, e in (evidence or {}).items()
                if e.facts and q in data.queries}
    kinds_seen: set[str] = set()
    per_system: dict[str, Any] = {}
    outcomes: dict[str, dict[str, dict[str, list[bool | None]]]] = {}
    for name, run in runs.items():
        rows: list[dict[str, Any]] = []
        judged: dict[str, dict[str, list[bool | None]]] = {budget_key(b): {k: [] for k in KINDS} for b in budgets}
        mean_tokens = {budget_key(b): 0.0 for b in budgets}
        flags: dict[str, bool] = {}
        t_sel = 0.0
        qvecs = dict(zip(qids, sim.query_vectors([data.queries[q] for q in qids]))) if sim is not None else {}
        t1 = time.perf_counter()
        # greedy: the whole run expanded at once (arrays only), candidates built for the kept chunks
        expanded = index.run_positions(run, cc.candidates) if sim is None else {}
        t_sel += time.perf_counter() - t1
        nothing = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
        for q in qids:
            ev = evidence.get(q) if evidence is not None else None
            t1 = time.perf_counter()
            if sim is None:
                pos, scores = expanded.get(q, nothing)
                tokens = index.tokens[pos]
                selections = []
                for b in budgets:
                    keep = greedy_positions(tokens, b, stop_at_overflow=cc.stop_at_overflow)
                    chosen = [index.candidate(int(pos[i]), float(scores[i]), i) for i in keep]
                    selections.append(Selection(q, b, "greedy", chosen, counter.name, int(pos.size),
                                                {"stop_at_overflow": cc.stop_at_overflow}))
                flag_scores, flag_tokens = scores.tolist(), tokens.tolist()
            else:
                cands = index.expand(run.ranked(q) if q in run else [], cc.candidates)
                sims = sim.matrices(data.queries[q], [c.chunk_id for c in cands], qvecs[q])
                selections = [select(q, cands, b, cfg.selection, token_counter=counter.name, sims=sims,
                                     stop_at_overflow=cc.stop_at_overflow, mmr_lambda=cc.mmr_lambda)
                              for b in budgets]
                flag_scores, flag_tokens = [c.score for c in cands], [c.n_tokens for c in cands]
            t_sel += time.perf_counter() - t1
            flags[q] = impossible_rule(flag_scores, flag_tokens, ref)
            for b, s in zip(budgets, selections):
                verdict = judge(s.chunks, s.text(), ev, rel_docs.get(q), doc_texts)
                key = budget_key(b)
                mean_tokens[key] += s.n_tokens / max(len(qids), 1)
                row = {"query_id": q, "budget": b, "chunks": s.chunk_ids, "n_tokens": s.n_tokens}
                for k in KINDS:
                    v = verdict.get(k)
                    judged[key][k].append(v)
                    row[k] = v
                    if v is not None:
                        kinds_seen.add(k)
                rows.append(row)
        write_jsonl(out / "contexts" / f"{name}.jsonl", rows)
        outcomes[name] = judged
        per_system[name] = {"mean_tokens": {k: round(v, 2) for k, v in mean_tokens.items()},
                            "selection_seconds_per_query": t_sel / max(len(qids), 1),
                            "impossible_flags": flags}
    kinds = [k for k in KINDS if k in kinds_seen]
    headline = kinds[0] if kinds else None
    categories = {q: str(data.queries.meta(q).get("category")) for q in qids
                  if data.queries.meta(q).get("category") is not None}
    doc: dict[str, Any] = {
        "token_counter": counter.name, "selection": cfg.selection,
        "params": {"chunk_tokens": cc.chunk_tokens, "candidates": cc.candidates,
                   "stop_at_overflow": cc.stop_at_overflow, "mmr_lambda": cc.mmr_lambda,
                   "similarity": sim.name if sim is not None else None},
        "budgets": [budget_key(b) for b in budgets], "reference_budget": ref, "kinds": kinds, "headline": headline,
        "proxy_kinds": ["relevant_passage"], "baseline": baseline, "n_queries": len(qids),
        "evidence": evidence is not None, "systems": {},
        "comparisons": [], "token_efficiency": {},
    }
    n_res = min(cfg.n_resamples, 10_000)
    for name, judged in outcomes.items():
        entry: dict[str, Any] = {"mean_tokens": per_system[name]["mean_tokens"], "rates": {}, "by_category": {}}
        for key, by_kind in judged.items():
            entry["rates"][key] = {}
            for k in kinds:
                vals = [bool(v) for v in by_kind[k] if v is not None]
                if vals:
                    entry["rates"][key][k] = _rate(vals, derive_seed(cfg.seed, name, key, k), n_res)
            if headline is not None:
                for cat in sorted(set(categories.values())):
                    vals = [bool(v) for q, v in zip(qids, by_kind[headline]) if v is not None
                            and categories.get(q) == cat]
                    if vals:
                        entry["by_category"].setdefault(cat, {})[key] = _rate(
                            vals, derive_seed(cfg.seed, name, key, headline, cat), n_res)
        if headline is not None and feasible and budget_key(ref) in judged:
            vals = [v for q, v in zip(qids, judged[budget_key(ref)][headline]) if v is not None and feasible.get(q)]
            if vals:
                fail = 1.0 - float(np.mean(vals))
                entry["failure_on_feasible"] = {"budget": ref, "kind": headline, "rate": fail,
                                                "band": failure_band(fail), "n": len(vals)}
        if feasible:
            entry["impossible_detection"] = {"rule": "top-scoring candidates (>= 0.8 of the score range) "
                                                     f"need more than {ref} tokens",
                                             **detection(per_system[name]["impossible_flags"], feasible).to_dict()}
        doc["systems"][name] = entry
    if headline is not None:
        for name in outcomes:
            if name == baseline:
                continue
            tests = []
            for b in budgets:
                key = budget_key(b)
                pairs = [(x, y) for x, y in zip(outcomes[name][key][headline], outcomes[baseline][key][headline])
                         if x is not None and y is not None]
                if pairs:
                    r = mcnemar_exact([x for x, _ in pairs], [y for _, y in pairs])
                    tests.append({"system": name, "baseline": baseline, "kind": headline, "budget": key,
                                  "test": "mcnemar-exact", **r.to_dict()})
            for t, p in zip(tests, holm([t["pvalue"] for t in tests]) if tests else []):
                t["pvalue_holm"] = float(p)
                t["holm_family"] = f"{name} vs {baseline}: budgets"
            doc["comparisons"].extend(tests)
            curve = {s: {int(k): v[headline]["rate"] for k, v in doc["systems"][s]["rates"].items()
                         if k != UNCONSTRAINED and headline in v} for s in (name, baseline)}
            doc["token_efficiency"][name] = {
                "meaning": f"smallest budget at which {baseline} matches {name}'s {headline} at {ref} tokens",
                **token_efficiency(curve[baseline], curve[name], ref)}
    timings = {"context_prep_seconds": round(prep_seconds, 3)}
    for name in outcomes:
        timings[f"selection_seconds_per_query.{name}"] = round(per_system[name]["selection_seconds_per_query"], 6)
    return doc, timings
