"""The stages of the context step (:func:`hcrbench.experiment.context_step._context_step`), in order:
:func:`prepare` (context chunks, similarity, budgets), :func:`deliver` (what each system hands a reader),
:func:`add_perfect` (the perfect document ranking), :func:`feasibility` (the cheapest cover per unit set),
:func:`controls` (the passage controls and the oracle), :func:`judge_all` (every context selected and judged),
:func:`summary` (eval.json's ``sufficiency`` head) and :func:`system_entries` (one entry per system, with its
rates, failures and detection). Each takes the records the stages before it made."""

from __future__ import annotations

import time
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.context import RANKING_SIGNALS, ChunkIndex, TfidfSimilarity, VectorSimilarity
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
from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.evidence import QueryEvidence
from hcrbench.data.tokens import TokenCounter, get_counter
from hcrbench.data.types import Run
from hcrbench.experiment.config import ContextConfig, ExperimentConfig
from hcrbench.experiment.context_controls import CONTROL_MEANING, passage_controls
from hcrbench.experiment.context_deliver import Covers, oracle_candidates, perfect_run, unit_feasibility
from hcrbench.experiment.context_judge import (
    ORACLE,
    PERFECT,
    budget_key,
    feasibility_doc,
    judge_system,
    ranked_spans,
    rate,
)
from hcrbench.experiment.dataset import ExperimentData
from hcrbench.metrics.failures import Span, failure_class, failure_counts
from hcrbench.metrics.sufficiency import KINDS, detection, failure_band, is_budget_feasible
from hcrbench.retrieve.progress import report
from hcrbench.stats._arrays import derive_seed

Evidence = dict[str, QueryEvidence] | None


@dataclass
class Prep:
    """What every system's contexts are cut from and judged against: the context chunks of the corpus (the
    default unit set), the similarity that scores passages, the budgets (plus unconstrained), the queries, their
    relevant documents and which of them fit the reference budget at sentence level."""

    cc: ContextConfig
    counter: TokenCounter
    ctx_params: dict[str, Any]
    ctx_set: str
    index: ChunkIndex
    sim: TfidfSimilarity
    seconds: float
    doc_texts: dict[str, str]
    budgets: list[int | None]
    qids: list[str]
    qvecs: dict[str, Any]
    rel_docs: dict[str, list[str]]
    ref: int
    sentence_feasible: dict[str, bool]


@dataclass
class Offer:
    """What each system (and, added later, each control) delivers: its unit set, its candidates, and what it
    ranked as spans (the failure anatomy's "stated in the ranked top k")."""

    unit_sets: dict[str, UnitSet]
    deliveries: dict[str, Delivery]
    ranked_spans: dict[str, dict[str, list[Span]]]
    covers: Covers = dataclass_field(default_factory=Covers)  # each unit set's covers, computed once for the whole step


@dataclass
class Feasible:
    """Per unit set: every query's cheapest cover, and whether it fits the reference budget."""

    covers: dict[str, dict[str, dict[str, Any]]]
    within_ref: dict[str, dict[str, bool]]


@dataclass
class Controls:
    """The control rows: the passage controls (one per unit set delivered in) and their degraded twin, the
    perfect document ranking, and the oracle (the cheapest cover, in the unit set of the system under test)."""

    passage_names: dict[str, str]
    degraded_name: str | None
    control_of: dict[str, str]
    perfect_name: str
    perfect_ok: bool
    oracle_name: str
    oracle_set: str
    oracle: dict[int | None, dict[str, list[Any]]] | None
    oracle_seconds: float
    passage_by_selection: dict[str, dict[str, str]]  # unit set -> selection -> the passage control's row
    control_selection: dict[str, str]  # a passage control's row -> the selection it runs under


@dataclass
class Judged:
    """Every system's verdicts per budget and kind, its selection method and its per-system figures."""

    outcomes: dict[str, dict[str, dict[str, list[bool | None]]]]
    per_system: dict[str, Any]
    methods: dict[str, str]


def prepare(cfg: ExperimentConfig, data: ExperimentData, evidence: Evidence) -> Prep:
    """The corpus cut into context chunks, the passage similarity, the queries' vectors and relevant documents,
    and the sentence-level feasibility at the reference budget."""
    cc = cfg.context
    counter = get_counter(cc.token_counter)
    t0 = time.perf_counter()
    ctx_params = {"max_tokens": cc.chunk_tokens, "overlap": 0, "respect_sentences": True, "structure_aware": False}
    ctx_set = context_unit_set(cc.chunk_tokens)
    chunked = chunk_corpus(data.corpus, max_tokens=cc.chunk_tokens, overlap=0, counter=counter)
    index = ChunkIndex(chunked)
    sim = TfidfSimilarity(chunked.corpus.doc_ids, chunked.corpus.texts)  # passage scorer and mmr/submodular
    seconds = time.perf_counter() - t0
    qids = list(data.queries.query_ids)
    ref = cc.reference_budget
    return Prep(
        cc, counter, ctx_params, ctx_set, index, sim, seconds,
        doc_texts=dict(zip(data.corpus.doc_ids, data.corpus.texts)),
        budgets=[*cfg.budgets, None],
        qids=qids,
        qvecs=dict(zip(qids, sim.query_vectors([data.queries[q] for q in qids]))),
        rel_docs={q: [d for d, g in data.qrels[q].items() if g >= cfg.rel_threshold]
                  for q in qids if q in data.qrels},
        ref=ref,
        sentence_feasible={q: is_budget_feasible(e, ref, counter) for q, e in (evidence or {}).items()
                           if e.facts and q in data.queries})


def deliver(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], out: Path, prep: Prep) -> Offer:
    """Each run's delivery: its own ranked units when it wrote them (in its chunking's unit set, or the units it
    declared), else its documents cut into context chunks."""
    systems = {s.name: s for s in cfg.systems}
    ctx_set, counter, doc_texts, qids = prep.ctx_set, prep.counter, prep.doc_texts, prep.qids
    offer = Offer({ctx_set: UnitSet(ctx_set, prep.index, prep.ctx_params)}, {}, {})
    for i, (name, run) in enumerate(runs.items()):
        report(f"context: delivering {name}", i, len(runs))
        sc = systems.get(name)
        units = load_units(out, name)
        if units is not None:
            us_name = ctx_set
            if sc is not None and sc.chunking is not None:
                params = sc.chunking.model_dump(include={"max_tokens", "overlap", "respect_sentences",
                                                         "structure_aware", "token_counter"})
                same = dict(prep.ctx_params, token_counter=prep.cc.token_counter)
                us_name = ctx_set if params == same else chunking_unit_set(params)
                if us_name not in offer.unit_sets:
                    offer.unit_sets[us_name] = make_unit_set(us_name, data.corpus, counter, params)
            declared = None
            if sc is None or sc.chunking is None:  # no chunking table: the units it declared, if any
                declared = load_unit_set(out, name)
                if declared:
                    us_name = f"units:{name}"
                    offer.unit_sets[us_name] = spans_unit_set(us_name, declared, data.corpus, counter)
            offer.deliveries[name] = unit_delivery(units, doc_texts, counter, qids, prep.cc.candidates, us_name)
            if (sc is None or sc.chunking is None) and not declared:
                offer.deliveries[name].note += f" (feasibility counted in {ctx_set}: its unit set is not declared)"
        else:
            offer.deliveries[name] = document_delivery(run, prep.index, prep.sim, prep.qvecs, qids,
                                                       prep.cc.candidates, ctx_set)
        offer.ranked_spans[name] = ranked_spans(run, units, cfg.k, doc_texts, prep.index)
    return offer


def add_perfect(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], prep: Prep, offer: Offer,
                kill: str) -> tuple[str, bool]:
    """The perfect-retriever control: relevant documents by grade, ties in the kill baseline's order, delivered
    and selected like every document ranking (docs/context.md). ``(its name, whether any query has one)``."""
    perfect_name = PERFECT if PERFECT not in runs else f"{PERFECT}-control"
    perfect = perfect_run(data.qrels, prep.qids, cfg.rel_threshold, runs.get(kill), perfect_name)
    perfect_ok = len(perfect.query_ids) > 0
    if perfect_ok:
        offer.deliveries[perfect_name] = document_delivery(perfect, prep.index, prep.sim, prep.qvecs, prep.qids,
                                                           prep.cc.candidates, prep.ctx_set)
        offer.deliveries[perfect_name].note = (
            f"perfect document ranking, the harness's passage choice: every relevant document by grade (ties in "
            f"{kill}'s order), " + offer.deliveries[perfect_name].note)
        offer.ranked_spans[perfect_name] = ranked_spans(perfect, None, cfg.k, prep.doc_texts)
    return perfect_name, perfect_ok


def feasibility(evidence: Evidence, prep: Prep, offer: Offer) -> Feasible:
    """The cheapest cover of every query's needed facts in each unit set (none without evidence)."""
    covers = {n: unit_feasibility(us, evidence, prep.qids, prep.doc_texts, offer.covers)
              for n, us in offer.unit_sets.items()} \
        if evidence is not None else {n: {} for n in offer.unit_sets}
    within = {n: {q: c["cover_tokens"] is not None and c["cover_tokens"] <= prep.ref for q, c in cov.items()}
              for n, cov in covers.items()}
    return Feasible(covers, within)


def controls(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], prep: Prep, offer: Offer,
             feas: Feasible, evidence: Evidence, perfect: tuple[str, bool], lead: list[str | None]) -> Controls:
    """The passage controls and the oracle, which delivers the units of the first of ``lead`` (the system under
    test, else the baseline) that delivers any."""
    # the gate of each subject is the passage control in its unit set under its own selection
    passage_names, degraded_name, passage_by_selection = passage_controls(
        cfg, data, runs, offer.deliveries, offer.ranked_spans, offer.unit_sets, feas.within_ref, evidence, prep.qids,
        prep.doc_texts, prep.ctx_set, {n: selection_of(cfg, n) for n in offer.deliveries}, covers=offer.covers)
    control_selection = {row: m for per in passage_by_selection.values() for m, row in per.items()}
    control_of = {n: "passage" for n in control_selection}
    if degraded_name is not None:
        control_of[degraded_name] = "passage-degraded"
    oracle_name = ORACLE if ORACLE not in runs else f"{ORACLE}-control"
    oracle_set = next((offer.deliveries[n].unit_set for n in lead if n in offer.deliveries), prep.ctx_set)
    t_oracle = time.perf_counter()
    oracle = oracle_candidates(offer.unit_sets[oracle_set], evidence, prep.qids, prep.budgets, prep.doc_texts,
                               offer.covers) \
        if evidence else None
    return Controls(passage_names, degraded_name, control_of, perfect[0], perfect[1], oracle_name, oracle_set,
                    oracle, time.perf_counter() - t_oracle, passage_by_selection, control_selection)


def selection_of(cfg: ExperimentConfig, name: str) -> str:
    """The context selection of system ``name``: its own, else the experiment's."""
    sc = next((s for s in cfg.systems if s.name == name), None)
    return (sc.selection if sc is not None and sc.selection else None) or cfg.selection


def judge_all(cfg: ExperimentConfig, data: ExperimentData, prep: Prep, offer: Offer, ctl: Controls,
              evidence: Evidence, out: Path) -> Judged:
    """Every delivery (systems and controls), then the oracle, selected under every budget by its method and
    judged; each writes ``contexts/<name>.jsonl``."""
    j = Judged({}, {}, {})
    judged_before: dict[tuple[Any, ...], Any] = {}  # (query, units) -> its judgements, shared by every system
    for i, (name, dl) in enumerate(offer.deliveries.items()):
        report(f"context: selecting and judging {name}", i, len(offer.deliveries))
        method = ctl.control_selection.get(name) or selection_of(cfg, name)
        j.methods[name] = method
        vsim: VectorSimilarity | None = None
        if method != "greedy" and cfg.context.selection_signals == "tfidf":
            if dl.delivers == "documents":
                vsim = prep.sim
            else:
                ids = sorted({c.chunk_id: c.text for cs in dl.candidates.values() for c in cs}.items())
                vsim = prep.sim.for_texts([i for i, _ in ids], [t for _, t in ids])
        j.outcomes[name], j.per_system[name] = judge_system(
            name, lambda q, b, d=dl: d.candidates.get(q, []), method, prep.budgets, prep.qids, data, cfg, vsim,
            prep.qvecs, evidence, prep.rel_docs, prep.doc_texts, prep.counter.name, prep.ref, out, judged_before)
    oracle = ctl.oracle
    if oracle is not None:
        name = ctl.oracle_name
        j.methods[name] = "greedy"
        j.outcomes[name], j.per_system[name] = judge_system(
            name, lambda q, b: oracle[b].get(q, []), "greedy", prep.budgets, prep.qids, data, cfg, None,
            prep.qvecs, evidence, prep.rel_docs, prep.doc_texts, prep.counter.name, prep.ref, out, judged_before)
        offer.deliveries[name] = Delivery("units", {}, ctl.oracle_set,
                                          f"the cheapest cover of the needed facts by {ctl.oracle_set} within B")
        offer.ranked_spans[name] = {q: [Span(c.doc_id, c.start, c.end) for c in cs]
                                    for q, cs in oracle[prep.ref].items()} if prep.ref in oracle else {}
    return j


def summary(cfg: ExperimentConfig, baseline: str, prep: Prep, offer: Offer, feas: Feasible, ctl: Controls,
            judged: Judged, evidence: Evidence, highlight: dict[str, str | None],
            categories: dict[str, str]) -> dict[str, Any]:
    """eval.json's ``sufficiency`` without its systems and comparisons: the settings, the budgets, the kinds
    judged (the headline: the first judged), the controls' names and the feasibility summary."""
    cc, budgets, ref = prep.cc, prep.budgets, prep.ref
    kinds = [k for k in KINDS if any(v is not None for j in judged.outcomes.values() for v in j[budget_key(None)][k])]
    doc: dict[str, Any] = {
        "token_counter": prep.counter.name, "selection": cfg.selection,
        "params": {"chunk_tokens": cc.chunk_tokens, "candidates": cc.candidates,
                   "stop_at_overflow": cc.stop_at_overflow, "mmr_lambda": cc.mmr_lambda,
                   "similarity": prep.sim.name, "passage_scorer": PASSAGE_SCORER,
                   "selection_signals": RANKING_SIGNALS if cc.selection_signals == "ranking" else prep.sim.name,
                   "document_order": DOCUMENT_ORDER},
        "budgets": [budget_key(b) for b in budgets], "reference_budget": ref, "kinds": kinds,
        "headline": kinds[0] if kinds else None,
        "proxy_kinds": ["relevant_passage"], "baseline": baseline, "n_queries": len(prep.qids),
        "evidence": evidence is not None, "oracle": ctl.oracle_name if ctl.oracle is not None else None,
        "perfect": ctl.perfect_name if ctl.perfect_ok else None,
        "passage": ctl.passage_names.get(prep.ctx_set), "passage_controls": dict(sorted(ctl.passage_names.items())),
        "passage_by_selection": {us: dict(sorted(per.items()))
                                 for us, per in sorted(ctl.passage_by_selection.items())},
        "passage_degraded": ctl.degraded_name,
        "highlight": highlight,
        "systems": {},
        "comparisons": [], "token_efficiency": {},
        "budget_feasible": {"sentence": dict(sorted(prep.sentence_feasible.items())),
                            "deliverable": dict(sorted(feas.within_ref[ctl.oracle_set].items())),
                            "unit_set": ctl.oracle_set, "budget": ref},
    }
    if evidence is not None:
        doc["feasibility"] = feasibility_doc(offer.unit_sets, feas.covers, prep.sentence_feasible, budgets, ref,
                                             categories)
    return doc


def system_entries(doc: dict[str, Any], cfg: ExperimentConfig, prep: Prep, offer: Offer, feas: Feasible,
                   ctl: Controls, judged: Judged, evidence: Evidence, categories: dict[str, str]) -> None:
    """``doc["systems"]``: per system (and control) its delivery, rates with intervals (overall and per query
    category), failure rates on feasible queries, the failure anatomy and the impossible-budget detection."""
    kinds, headline, ref, qids = doc["kinds"], doc["headline"], prep.ref, prep.qids
    n_res = min(cfg.n_resamples, 10_000)
    for name, by_budget in judged.outcomes.items():
        dl = offer.deliveries[name]
        entry: dict[str, Any] = {"delivers": dl.delivers, "how": dl.note, "selection": judged.methods[name],
                                 "unit_set": dl.unit_set, "mean_tokens": judged.per_system[name]["mean_tokens"],
                                 "rates": {}, "by_category": {}}
        if name == ctl.oracle_name:
            entry["control"] = "oracle"
        elif ctl.perfect_ok and name == ctl.perfect_name:
            entry["control"] = "perfect"
        elif name in ctl.control_of:
            entry["control"] = ctl.control_of[name]
        if "control" in entry:
            entry["control_meaning"] = CONTROL_MEANING[entry["control"]]
            entry["gates"] = entry["control"] == "passage"
        for key, by_kind in by_budget.items():
            entry["rates"][key] = {}
            for k in kinds:
                vals = [bool(v) for v in by_kind[k] if v is not None]
                if vals:
                    entry["rates"][key][k] = rate(vals, derive_seed(cfg.seed, name, key, k), n_res)
            if headline is not None:
                for cat in sorted(set(categories.values())):
                    vals = [bool(v) for q, v in zip(qids, by_kind[headline]) if v is not None
                            and categories.get(q) == cat]
                    if vals:
                        entry["by_category"].setdefault(cat, {})[key] = rate(
                            vals, derive_seed(cfg.seed, name, key, headline, cat), n_res)
        own = feas.within_ref.get(dl.unit_set, {})
        if own:
            entry["budget_feasible"] = dict(sorted(own.items()))
        if headline is not None and budget_key(ref) in by_budget:
            verdicts = dict(zip(qids, by_budget[budget_key(ref)][headline]))
            for field, feasible, unit in (("failure_on_feasible", own, dl.unit_set),
                                          ("failure_on_sentence_feasible", prep.sentence_feasible, "sentences")):
                vals = [bool(verdicts[q]) for q in qids if feasible.get(q) and verdicts.get(q) is not None]
                if vals:
                    fail = 1.0 - float(np.mean(vals))
                    entry[field] = {"budget": ref, "kind": headline, "rate": fail, "band": failure_band(fail),
                                    "n": len(vals), "feasible_in": unit}
        if own and evidence is not None and headline == "evidence_coverage" and budget_key(ref) in by_budget:
            at_ref = judged.per_system[name]["at_ref"]
            classes = {q: failure_class(evidence[q], offer.ranked_spans.get(name, {}).get(q, []),
                                        at_ref.get(q, []), prep.doc_texts)
                       for q in qids if own.get(q) and q in evidence and q in at_ref}
            entry["failures"] = failure_counts(classes, categories, ref)
        if prep.sentence_feasible and name not in (ctl.oracle_name, ctl.perfect_name, *ctl.control_of):
            entry["impossible_detection"] = {"rule": "top-scoring candidates (>= 0.8 of the score range) "
                                                     f"need more than {ref} tokens",
                                             **detection(judged.per_system[name]["impossible_flags"], own or
                                                         prep.sentence_feasible).to_dict()}
        doc["systems"][name] = entry
