"""The runner's context step: token-budgeted contexts for every system, judged for sufficiency@B.

Each system's candidates are what it delivers (:mod:`hcrbench.context.delivery`): its own ranked units when it ranks
units (chunks, nodes), else its documents delivered round robin, best passage first, in context chunks
(``context.chunk_tokens`` per chunk, sentence-respecting, no overlap). The system's ``selection`` (default: the
experiment's; mmr and submodular weigh the ranking's rank gain against delivered overlap unless
``context.selection_signals = "tfidf"``) picks candidates under each budget of ``budgets`` plus unconstrained, and
each context is judged three ways (:mod:`hcrbench.metrics.sufficiency`). Control rows: ``oracle`` delivers the cheapest cover of the
needed facts (feasibility's witness: it checks the judge); ``passage`` is the passage-level perfect retriever, the
units stating the needed facts first, selected and judged like every system (it checks that the harness lets a
retriever that hands it the right passages pass: the gate of the sufficiency rules), one per unit set a system
delivers in (``passage@<unit set>``) and selection its systems use there (``+<selection>``), with a degraded
twin ``passage-degraded`` that must fail; ``perfect`` is the
perfect document ranking under the harness's passage choice (every relevant document by grade, delivered like any
document ranking), a reference that gates nothing. Feasibility is counted in deliverable units (the cheapest cover fits B); each insufficient context
on a feasible query is classed retrieval / selection / delivery miss (:mod:`hcrbench.metrics.failures`).
Rates get percentile-bootstrap CIs, systems are compared with the baseline at every budget by the exact McNemar
test (Holm across budgets, per system), token-efficiency ratios get bootstrap intervals. Per-query contexts go to
``contexts/<system>.jsonl``; the summary becomes ``eval.json``'s ``sufficiency`` key, which ``hcrbench run`` then
draws (:mod:`hcrbench.report.curves`, a stage above this one, writes ``curves/``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.context import (
    RANKING_SIGNALS,
    Candidate,
    ChunkIndex,
    TfidfSimilarity,
    VectorSimilarity,
    ranking_signals,
    select,
)
from hcrbench.context.delivery import (
    DOCUMENT_ORDER,
    PASSAGE_SCORER,
    Delivery,
    UnitSet,
    chunking_unit_set,
    context_unit_set,
    document_delivery,
    load_unit_set,
    load_units,
    make_unit_set,
    spans_unit_set,
    unit_delivery,
)
from hcrbench.data.beir import write_jsonl
from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.evidence import QueryEvidence, read_evidence
from hcrbench.data.tokens import get_counter
from hcrbench.data.types import Run
from hcrbench.errors import InputError
from hcrbench.experiment.config import ExperimentConfig, locate
from hcrbench.experiment.context_controls import (  # noqa: F401  (PASSAGE*: names the step's rows)
    CONTROL_MEANING,
    PASSAGE,
    PASSAGE_DEGRADED,
    passage_controls,
)
from hcrbench.experiment.context_deliver import oracle_candidates, perfect_run, unit_feasibility
from hcrbench.experiment.context_efficiency import efficiency_interval
from hcrbench.experiment.dataset import ExperimentData
from hcrbench.metrics.failures import Span, failure_class, failure_counts, whole_documents
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


def _evidence_path(cfg: ExperimentConfig, data: ExperimentData, config_path: Path, text: str) -> Path | None:
    """The evidence file the step reads (``context.evidence``, else the dataset's ``evidence.jsonl``), or None."""
    if cfg.context.evidence is not None:
        p = Path(cfg.context.evidence).expanduser()
        p = p if p.is_absolute() else config_path.parent / p
        if not p.is_file():
            raise InputError(f"file not found: {p}", path=config_path, line=locate(text, ("context", "evidence")),
                             field="context.evidence")
        return p
    p = Path(data.root) / "evidence.jsonl"
    return p if p.is_file() else None


def _memo_key(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], baseline: str, out: Path,
              evidence: Path | None) -> str:
    """Everything the step reads (:mod:`hcrbench.experiment.memo`): config, dataset, evidence, runs, unit files."""
    from hcrbench.context.units import units_path
    from hcrbench.experiment.memo import data_digest, file_sha, memo_key, run_digest

    return memo_key("context", {
        "config": cfg.model_dump(mode="json"), "data": data_digest(data), "baseline": baseline,
        "evidence": None if evidence is None else file_sha(evidence),
        "runs": [[n, run_digest(r)] for n, r in runs.items()],
        "units": [[n, file_sha(units_path(out / "logs", n))] for n in runs]})


def context_step(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], baseline: str, out: Path,
                 config_path: Path, text: str) -> tuple[dict[str, Any], dict[str, float]] | None:
    """Select, judge and summarise contexts for every run and the oracle: ``(eval.json's "sufficiency",
    timings)``, or ``None`` when the config sets no budgets. Timings (wall clock, for the manifest) stay out of the
    deterministic summary. A warm re-run whose inputs are all unchanged reuses the folder's memo of the last
    computation (:mod:`hcrbench.experiment.memo`): the same summary, the same ``contexts/`` files."""
    if not cfg.budgets:
        return None
    from hcrbench.experiment.memo import recall, remember, round_trip

    ev_path = _evidence_path(cfg, data, config_path, text)
    key = _memo_key(cfg, data, runs, baseline, out, ev_path)
    hit = recall(out, "context", key)
    if hit is not None:
        return hit["doc"], hit["timings"]
    doc, timings = _context_step(cfg, data, runs, baseline, out, read_evidence(ev_path) if ev_path else None)
    doc = round_trip(doc)
    remember(out, "context", key, doc, timings, [out / "contexts" / f"{n}.jsonl" for n in doc["systems"]])
    return doc, timings


def _rate(values: list[bool], seed: int, n_resamples: int) -> dict[str, Any]:
    x = np.asarray(values, dtype=np.float64)
    ci = bootstrap_ci(x, n_resamples=n_resamples, seed=seed)
    return {"rate": ci.estimate, "low": ci.low, "high": ci.high, "n": int(x.size)}



def _judge_system(name: str, cands_for: Any, method: str, budgets: list[int | None], qids: list[str],
                  data: ExperimentData, cfg: ExperimentConfig, sim: VectorSimilarity | None, qvecs: dict[str, Any],
                  evidence: dict[str, QueryEvidence] | None, rel_docs: dict[str, list[str]],
                  doc_texts: dict[str, str], counter_name: str, ref: int, out: Path
                  ) -> tuple[dict[str, dict[str, list[bool | None]]], dict[str, Any]]:
    """Select under every budget and judge every context of one system; writes ``contexts/<name>.jsonl``."""
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
            verdict = judge(s.chunks, s.text(), ev, rel_docs.get(q), doc_texts)
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


def _ranked_spans(run: Run, units: dict[str, list[Any]] | None, k: int, doc_texts: dict[str, str],
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


def _feasibility_doc(unit_sets: dict[str, UnitSet], covers: dict[str, dict[str, dict[str, Any]]],
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


def _context_step(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], baseline: str, out: Path,
                  evidence: dict[str, QueryEvidence] | None) -> tuple[dict[str, Any], dict[str, float]]:
    """The computation :func:`context_step` describes (``evidence``: the records read, or None)."""
    cc = cfg.context
    counter = get_counter(cc.token_counter)
    t0 = time.perf_counter()
    ctx_params = {"max_tokens": cc.chunk_tokens, "overlap": 0, "respect_sentences": True, "structure_aware": False}
    ctx_set = context_unit_set(cc.chunk_tokens)
    chunked = chunk_corpus(data.corpus, max_tokens=cc.chunk_tokens, overlap=0, counter=counter)
    index = ChunkIndex(chunked)
    sim = TfidfSimilarity(chunked.corpus.doc_ids, chunked.corpus.texts)  # passage scorer and mmr/submodular
    prep_seconds = time.perf_counter() - t0
    doc_texts = dict(zip(data.corpus.doc_ids, data.corpus.texts))
    budgets: list[int | None] = [*cfg.budgets, None]
    qids = list(data.queries.query_ids)
    qvecs = dict(zip(qids, sim.query_vectors([data.queries[q] for q in qids])))
    rel_docs = {q: [d for d, g in data.qrels[q].items() if g >= cfg.rel_threshold]
                for q in qids if q in data.qrels}
    ref = cc.reference_budget
    sentence_feasible = {q: is_budget_feasible(e, ref, counter) for q, e in (evidence or {}).items()
                         if e.facts and q in data.queries}
    systems = {s.name: s for s in cfg.systems}
    unit_sets: dict[str, UnitSet] = {ctx_set: UnitSet(ctx_set, index, ctx_params)}
    deliveries: dict[str, Delivery] = {}
    ranked_spans: dict[str, dict[str, list[Span]]] = {}
    for name, run in runs.items():
        sc = systems.get(name)
        units = load_units(out, name)
        if units is not None:
            us_name = ctx_set
            if sc is not None and sc.chunking is not None:
                params = sc.chunking.model_dump(include={"max_tokens", "overlap", "respect_sentences",
                                                         "structure_aware", "token_counter"})
                same = dict(ctx_params, token_counter=cc.token_counter)
                us_name = ctx_set if params == same else chunking_unit_set(params)
                if us_name not in unit_sets:
                    unit_sets[us_name] = make_unit_set(us_name, data.corpus, counter, params)
            declared = None
            if sc is None or sc.chunking is None:  # no chunking table: the units it declared, if any
                declared = load_unit_set(out, name)
                if declared:
                    us_name = f"units:{name}"
                    unit_sets[us_name] = spans_unit_set(us_name, declared, data.corpus, counter)
            deliveries[name] = unit_delivery(units, doc_texts, counter, qids, cc.candidates, us_name)
            if (sc is None or sc.chunking is None) and not declared:
                deliveries[name].note += f" (feasibility counted in {ctx_set}: its unit set is not declared)"
        else:
            deliveries[name] = document_delivery(run, index, sim, qvecs, qids, cc.candidates, ctx_set)
        ranked_spans[name] = _ranked_spans(run, units, cfg.k, doc_texts, index)
    # the perfect-retriever control: relevant documents by grade, ties in the kill baseline's order, delivered and
    # selected like every document ranking (docs/context.md)
    kill = cfg.protocol.kill_baseline if cfg.protocol is not None and cfg.protocol.kill_baseline else baseline
    perfect_name = PERFECT if PERFECT not in runs else f"{PERFECT}-control"
    perfect = perfect_run(data.qrels, qids, cfg.rel_threshold, runs.get(kill), perfect_name)
    perfect_ok = len(perfect.query_ids) > 0
    if perfect_ok:
        deliveries[perfect_name] = document_delivery(perfect, index, sim, qvecs, qids, cc.candidates, ctx_set)
        deliveries[perfect_name].note = (f"perfect document ranking, the harness's passage choice: every relevant "
                                         f"document by grade (ties in {kill}'s order), "
                                         + deliveries[perfect_name].note)
        ranked_spans[perfect_name] = _ranked_spans(perfect, None, cfg.k, doc_texts)
    covers = {n: unit_feasibility(us, evidence, qids, doc_texts) for n, us in unit_sets.items()} \
        if evidence is not None else {n: {} for n in unit_sets}
    feasible_in = {n: {q: c["cover_tokens"] is not None and c["cover_tokens"] <= ref for q, c in cov.items()}
                   for n, cov in covers.items()}
    def selection_of(name: str) -> str:
        sc = systems.get(name)
        return (sc.selection if sc is not None and sc.selection else None) or cfg.selection

    # the gate of each subject is the passage control in its unit set under its own selection
    passage_names, degraded_name, passage_by_selection = passage_controls(
        cfg, data, runs, deliveries, ranked_spans, unit_sets, feasible_in, evidence, qids, doc_texts, ctx_set,
        {n: selection_of(n) for n in deliveries})
    control_selection = {row: m for per in passage_by_selection.values() for m, row in per.items()}
    control_of = {n: "passage" for n in control_selection}
    if degraded_name is not None:
        control_of[degraded_name] = "passage-degraded"
    oracle_name = ORACLE if ORACLE not in runs else f"{ORACLE}-control"
    # the oracle delivers the units of the system under test (the protocol's), else the baseline's
    lead = [cfg.protocol.system if cfg.protocol is not None else None, baseline]
    oracle_set = next((deliveries[n].unit_set for n in lead if n in deliveries), ctx_set)
    t_oracle = time.perf_counter()
    oracle = oracle_candidates(unit_sets[oracle_set], evidence, qids, budgets, doc_texts) if evidence else None
    oracle_seconds = time.perf_counter() - t_oracle
    per_system: dict[str, Any] = {}
    outcomes: dict[str, dict[str, dict[str, list[bool | None]]]] = {}
    methods: dict[str, str] = {}
    for name, dl in deliveries.items():
        method = control_selection.get(name) or selection_of(name)
        methods[name] = method
        vsim: VectorSimilarity | None = None
        if method != "greedy" and cc.selection_signals == "tfidf":
            if dl.delivers == "documents":
                vsim = sim
            else:
                ids = sorted({c.chunk_id: c.text for cs in dl.candidates.values() for c in cs}.items())
                vsim = sim.for_texts([i for i, _ in ids], [t for _, t in ids])
        outcomes[name], per_system[name] = _judge_system(
            name, lambda q, b, d=dl: d.candidates.get(q, []), method, budgets, qids, data, cfg, vsim, qvecs,
            evidence, rel_docs, doc_texts, counter.name, ref, out)
    if oracle is not None:
        methods[oracle_name] = "greedy"
        outcomes[oracle_name], per_system[oracle_name] = _judge_system(
            oracle_name, lambda q, b: oracle[b].get(q, []), "greedy", budgets, qids, data, cfg, None, qvecs,
            evidence, rel_docs, doc_texts, counter.name, ref, out)
        deliveries[oracle_name] = Delivery("units", {}, oracle_set,
                                           f"the cheapest cover of the needed facts by {oracle_set} within B")
        ranked_spans[oracle_name] = {q: [Span(c.doc_id, c.start, c.end) for c in cs]
                                     for q, cs in oracle[ref].items()} if ref in oracle else {}
    kinds = [k for k in KINDS if any(v is not None for j in outcomes.values() for v in j[budget_key(None)][k])]
    headline = kinds[0] if kinds else None
    categories = {q: str(data.queries.meta(q).get("category")) for q in qids
                  if data.queries.meta(q).get("category") is not None}
    doc: dict[str, Any] = {
        "token_counter": counter.name, "selection": cfg.selection,
        "params": {"chunk_tokens": cc.chunk_tokens, "candidates": cc.candidates,
                   "stop_at_overflow": cc.stop_at_overflow, "mmr_lambda": cc.mmr_lambda,
                   "similarity": sim.name, "passage_scorer": PASSAGE_SCORER,
                   "selection_signals": RANKING_SIGNALS if cc.selection_signals == "ranking" else sim.name,
                   "document_order": DOCUMENT_ORDER},
        "budgets": [budget_key(b) for b in budgets], "reference_budget": ref, "kinds": kinds, "headline": headline,
        "proxy_kinds": ["relevant_passage"], "baseline": baseline, "n_queries": len(qids),
        "evidence": evidence is not None, "oracle": oracle_name if oracle is not None else None,
        "perfect": perfect_name if perfect_ok else None,
        "passage": passage_names.get(ctx_set), "passage_controls": dict(sorted(passage_names.items())),
        "passage_by_selection": {us: dict(sorted(per.items())) for us, per in sorted(passage_by_selection.items())},
        "passage_degraded": degraded_name,
        "highlight": {"system": cfg.protocol.system if cfg.protocol is not None else None,
                      "kill_baseline": cfg.protocol.kill_baseline if cfg.protocol is not None else baseline,
                      "flat": cfg.protocol.flat if cfg.protocol is not None else None},
        "systems": {},
        "comparisons": [], "token_efficiency": {},
        "budget_feasible": {"sentence": dict(sorted(sentence_feasible.items())),
                            "deliverable": dict(sorted(feasible_in[oracle_set].items())),
                            "unit_set": oracle_set, "budget": ref},
    }
    if evidence is not None:
        doc["feasibility"] = _feasibility_doc(unit_sets, covers, sentence_feasible, budgets, ref, categories)
    n_res = min(cfg.n_resamples, 10_000)
    for name, judged in outcomes.items():
        dl = deliveries[name]
        entry: dict[str, Any] = {"delivers": dl.delivers, "how": dl.note, "selection": methods[name],
                                 "unit_set": dl.unit_set, "mean_tokens": per_system[name]["mean_tokens"],
                                 "rates": {}, "by_category": {}}
        if name == oracle_name:
            entry["control"] = "oracle"
        elif perfect_ok and name == perfect_name:
            entry["control"] = "perfect"
        elif name in control_of:
            entry["control"] = control_of[name]
        if "control" in entry:
            entry["control_meaning"] = CONTROL_MEANING[entry["control"]]
            entry["gates"] = entry["control"] == "passage"
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
        own = feasible_in.get(dl.unit_set, {})
        if own:
            entry["budget_feasible"] = dict(sorted(own.items()))
        if headline is not None and budget_key(ref) in judged:
            verdicts = dict(zip(qids, judged[budget_key(ref)][headline]))
            for field, feas, unit in (("failure_on_feasible", own, dl.unit_set),
                                      ("failure_on_sentence_feasible", sentence_feasible, "sentences")):
                vals = [bool(verdicts[q]) for q in qids if feas.get(q) and verdicts.get(q) is not None]
                if vals:
                    fail = 1.0 - float(np.mean(vals))
                    entry[field] = {"budget": ref, "kind": headline, "rate": fail, "band": failure_band(fail),
                                    "n": len(vals), "feasible_in": unit}
        if own and evidence is not None and headline == "evidence_coverage" and budget_key(ref) in judged:
            at_ref = per_system[name]["at_ref"]
            classes = {q: failure_class(evidence[q], ranked_spans.get(name, {}).get(q, []), at_ref.get(q, []),
                                        doc_texts)
                       for q in qids if own.get(q) and q in evidence and q in at_ref}
            entry["failures"] = failure_counts(classes, categories, ref)
        if sentence_feasible and name not in (oracle_name, perfect_name, *control_of):
            entry["impossible_detection"] = {"rule": "top-scoring candidates (>= 0.8 of the score range) "
                                                     f"need more than {ref} tokens",
                                             **detection(per_system[name]["impossible_flags"], own or
                                                         sentence_feasible).to_dict()}
        doc["systems"][name] = entry
    if headline is not None:
        _compare(doc, outcomes, baseline, (oracle_name, perfect_name, *control_of), budgets, headline, ref,
                 min(n_res, 2000), cfg.seed)
    timings = {"context_prep_seconds": round(prep_seconds, 3), "oracle_cover_seconds": round(oracle_seconds, 3)}
    for name in outcomes:
        timings[f"selection_seconds_per_query.{name}"] = round(per_system[name]["selection_seconds_per_query"], 6)
    return doc, timings


def _compare(doc: dict[str, Any], outcomes: dict[str, Any], baseline: str, controls: tuple[str, ...],
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

