"""The context step's judging helpers (:mod:`hcrbench.experiment.context_step`): one system's contexts selected
under every budget and judged, the rates with their intervals, what a system ranked as spans, the feasibility
summary, and the comparisons of every system with the baseline (exact McNemar, Holm across budgets) and the
token-efficiency ratios."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.context import Candidate, ChunkIndex, VectorSimilarity, ranking_signals, select
from hcrbench.context.delivery import UnitSet
from hcrbench.data.beir import write_jsonl
from hcrbench.data.evidence import QueryEvidence
from hcrbench.data.types import Run
from hcrbench.experiment.config import ExperimentConfig
from hcrbench.experiment.context_efficiency import efficiency_interval
from hcrbench.experiment.dataset import ExperimentData
from hcrbench.metrics.failures import Span, whole_documents
from hcrbench.metrics.sufficiency import KINDS, QuerySufficiency, judge, token_efficiency
from hcrbench.stats import bootstrap_ci, holm
from hcrbench.stats._arrays import derive_seed
from hcrbench.stats.mcnemar import mcnemar_exact

#: How an unconstrained budget is written in JSON keys and tables.
UNCONSTRAINED = "all"
#: The control row's name in ``systems`` (``oracle-control`` when a system is already called ``oracle``).
ORACLE = "oracle"
#: The perfect document ranking's name (``perfect-control`` when a system is already called ``perfect``).
PERFECT = "perfect"


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


def rate(values: list[bool], seed: int, n_resamples: int) -> dict[str, Any]:
    x = np.asarray(values, dtype=np.float64)
    ci = bootstrap_ci(x, n_resamples=n_resamples, seed=seed)
    return {"rate": ci.estimate, "low": ci.low, "high": ci.high, "n": int(x.size)}



def judge_system(name: str, cands_for: Any, method: str, budgets: list[int | None], qids: list[str],
                  data: ExperimentData, cfg: ExperimentConfig, sim: VectorSimilarity | None, qvecs: dict[str, Any],
                  evidence: dict[str, QueryEvidence] | None, rel_docs: dict[str, list[str]],
                  doc_texts: dict[str, str], counter_name: str, ref: int, out: Path,
                  judged_before: dict[tuple[Any, ...], QuerySufficiency] | None = None
                  ) -> tuple[dict[str, dict[str, list[bool | None]]], dict[str, Any]]:
    """Select under every budget and judge every context of one system; writes ``contexts/<name>.jsonl``.
    ``judged_before``: the judgements of the step's earlier contexts, by query and units (the same units of
    the same query get the same three judgements: most contexts recur across budgets and systems)."""
    cc = cfg.context
    # the ranking's signals: a unit loses its rank gain by the share of its text already delivered (beta = alpha),
    # by marginal gain (per token, a short unit far down the ranking would go before the ranking's first)
    by_ranking = cc.selection_signals == "ranking"
    judged: dict[str, dict[str, list[bool | None]]] = {budget_key(b): {k: [] for k in KINDS} for b in budgets}
    mean_tokens = {budget_key(b): 0.0 for b in budgets}
    flags: dict[str, bool] = {}
    at_ref: dict[str, list[Candidate]] = {}
    rows: list[dict[str, Any]] = []
    t_sel = 0.0
    for q in qids:
        ev = evidence.get(q) if evidence is not None else None
        t1 = time.perf_counter()
        selections = []
        pool: list[Candidate] = cands_for(q, None)

        def sims_of(cands: list[Candidate], q: str = q) -> tuple[np.ndarray, np.ndarray] | None:
            if method == "greedy":
                return None
            if by_ranking:
                return ranking_signals(cands)
            if sim is None:
                return None
            return sim.matrices(data.queries[q], [c.chunk_id for c in cands], qvecs.get(q))

        pool_sims = sims_of(pool)
        for b in budgets:
            cands = cands_for(q, b)
            sims = pool_sims if cands is pool else sims_of(cands)
            selections.append(select(q, cands, b, method, token_counter=counter_name, sims=sims,
                                     stop_at_overflow=cc.stop_at_overflow, mmr_lambda=cc.mmr_lambda,
                                     beta=1.0 if by_ranking else None, per_token=not by_ranking))
        t_sel += time.perf_counter() - t1
        flags[q] = impossible_rule([c.score for c in pool], [c.n_tokens for c in pool], ref)
        for b, s in zip(budgets, selections):
            if b == ref:
                at_ref[q] = s.chunks
            key = (q, tuple((c.doc_id, c.start, c.end, c.text) for c in s.chunks))
            verdict = judged_before.get(key) if judged_before is not None else None
            if verdict is None:
                verdict = judge(s.chunks, s.pieces(), ev, rel_docs.get(q), doc_texts)
                if judged_before is not None:
                    judged_before[key] = verdict
            key = budget_key(b)
            mean_tokens[key] += s.n_tokens / max(len(qids), 1)
            row = {"query_id": q, "budget": b, "chunks": s.chunk_ids, "n_tokens": s.n_tokens,
                   "spans": [[c.doc_id, c.start, c.end] if c.doc_id else [None, None, None, c.text]
                             for c in s.chunks]}
            for k in KINDS:
                row[k] = verdict.get(k)
                judged[key][k].append(row[k])
            rows.append(row)
    write_jsonl(out / "contexts" / f"{name}.jsonl", rows)
    return judged, {"mean_tokens": {k: round(v, 2) for k, v in mean_tokens.items()},
                    "selection_seconds_per_query": t_sel / max(len(qids), 1), "impossible_flags": flags,
                    "at_ref": at_ref}


def ranked_spans(run: Run, units: dict[str, list[Any]] | None, k: int, doc_texts: dict[str, str],
                  index: ChunkIndex | None = None) -> dict[str, list[Span]]:
    """What a system ranked within its top ``k``, as spans: its units (those that are spans of a document), else its
    documents whole, or the context chunks a run names by chunk id (the failure anatomy's "stated in the ranked
    top k")."""
    if units is not None:
        return {q: [Span(d, s, e) for _, d, s, e, *_ in us[:k] if d is not None and s is not None and e is not None]
                for q, us in units.items()}
    out: dict[str, list[Span]] = {}
    for q in run.query_ids:
        spans: list[Span] = []
        for ident, _ in run.ranked(q)[:k]:
            if ident in doc_texts:
                spans.extend(whole_documents([ident], doc_texts))
            elif index is not None and ident in index.chunked.corpus:
                c = index.candidate(index.position(ident), 0.0, 0)
                spans.append(Span(c.doc_id, c.start, c.end))
        out[q] = spans
    return out


def _share(values: list[bool]) -> dict[str, Any]:
    return {"n": len(values), "feasible": int(sum(values)),
            "share": round(float(np.mean(values)), 4) if values else None}


def feasibility_doc(unit_sets: dict[str, UnitSet], covers: dict[str, dict[str, dict[str, Any]]],
                     sentence: dict[str, bool], budgets: list[int | None], ref: int,
                     categories: dict[str, str]) -> dict[str, Any]:
    """``eval.json["sufficiency"]["feasibility"]``: per unit set the cheapest cover of every query, the feasible
    share at every budget and, at the reference budget, per query category, beside the sentence-level count."""
    cats = sorted(set(categories.values()))

    def by_cat(flags: dict[str, bool]) -> dict[str, Any]:
        return {c: _share([v for q, v in flags.items() if categories.get(q) == c]) for c in cats}

    doc: dict[str, Any] = {"reference_budget": ref,
                           "sentence": {"meaning": "the generator's minimal sentence evidence fits the budget",
                                        "all": _share(list(sentence.values())), "by_category": by_cat(sentence)},
                           "unit_sets": {}}
    for name, us in unit_sets.items():
        cov = covers[name]
        at_ref = {q: c["cover_tokens"] is not None and c["cover_tokens"] <= ref for q, c in cov.items()}
        doc["unit_sets"][name] = {
            "params": us.params,
            "cover_tokens": {q: c["cover_tokens"] for q, c in cov.items()},
            "inexact": sorted(q for q, c in cov.items() if not c["exact"]),
            "feasible_share": {budget_key(b): _share([c["cover_tokens"] is not None and
                                                      (b is None or c["cover_tokens"] <= b)
                                                      for c in cov.values()]) for b in budgets},
            "all": _share(list(at_ref.values())), "by_category": by_cat(at_ref)}
    return doc


def compare_budgets(doc: dict[str, Any], outcomes: dict[str, Any], baseline: str, controls: tuple[str, ...],
             budgets: list[int | None], headline: str, ref: int, n_resamples: int = 2000, seed: int = 0) -> None:
    """Exact McNemar of every system (not the controls) against the baseline at every budget, Holm across budgets;
    the token-efficiency ratio of each against the baseline, and the design's (the system under test against the
    protocol's flat system), each with a bootstrap interval."""
    for name in outcomes:
        if name == baseline or name in controls or baseline not in outcomes:
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
            **token_efficiency(curve[baseline], curve[name], ref),
            **efficiency_interval(outcomes[baseline], outcomes[name], budgets, headline, ref, n_resamples,
                                  derive_seed(seed, name, baseline, "token_efficiency"))}
    hl = doc.get("highlight") or {}
    system, flat = hl.get("system"), hl.get("flat")
    if system in outcomes and flat in outcomes and system != flat:
        curve = {s: {int(k): v[headline]["rate"] for k, v in doc["systems"][s]["rates"].items()
                     if k != UNCONSTRAINED and headline in v} for s in (system, flat)}
        doc["token_efficiency_design"] = {
            "system": system, "flat": flat,
            "meaning": f"smallest budget at which {flat} (flat) matches {system}'s {headline} at {ref} tokens; "
                       "the design's go criterion is a ratio >= 1.5 (HCR@400 >= flat@600)",
            **token_efficiency(curve[flat], curve[system], ref),
            **efficiency_interval(outcomes[flat], outcomes[system], budgets, headline, ref, n_resamples,
                                  derive_seed(seed, system, flat, "token_efficiency"))}
        modes = {s: doc["systems"][s].get("delivers") for s in (system, flat)}
        doc["token_efficiency_design"]["delivery_modes"] = modes
        if modes[system] != modes[flat]:  # the ratio then measures the delivery mode as much as the retriever
            doc["token_efficiency_design"]["note"] = (f"compares delivery modes ({system} delivers {modes[system]}, "
                                                      f"{flat} delivers {modes[flat]})")
