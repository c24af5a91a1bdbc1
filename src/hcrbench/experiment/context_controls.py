"""The context step's passage-level controls: the gate of the sufficiency rules and the row that shows it can fail.

The passage-level perfect retriever hands the selection the units that state a query's needed facts first (each
next one adding the most facts not yet stated, ties: fewer tokens, then unit order), then the relevant documents'
other units by grade (:func:`hcrbench.experiment.context_deliver.passage_rankings`). It goes through the same
selection and the same judge as every system, so when it fails more than 5% of the budget-feasible queries at the
reference budget the harness (units, budget accounting, selection, judge) is wrong, not a retriever. There is one
per unit set a system delivers in: the context chunks (where document-level systems are delivered) always, and the
own units of each unit-delivering system, and per selection the systems of that unit set use, so every subject is
gated in its own delivery mode under its own selection. The degraded twin
(in the context chunks) drops every fact-stating unit of a seeded half of the queries: it must fail.
"""

from __future__ import annotations

from hcrbench.context.delivery import Delivery, UnitSet
from hcrbench.data.evidence import QueryEvidence
from hcrbench.data.types import Run
from hcrbench.experiment.config import ExperimentConfig
from hcrbench.experiment.context_deliver import Covers, degraded_queries, passage_rankings
from hcrbench.experiment.dataset import ExperimentData
from hcrbench.metrics.failures import Span
from hcrbench.stats._arrays import derive_seed

#: The passage-level perfect control's name in the context chunks (``passage@<unit set>`` in a system's own units).
PASSAGE = "passage"
#: The degraded passage control's name.
PASSAGE_DEGRADED = "passage-degraded"
#: What each control row is (``entry["control"]``) and whether it gates the sufficiency rules.
CONTROL_MEANING = {
    "oracle": "the cheapest cover of the needed facts within B (checks the judge)",
    "passage": "passage-level perfect retriever: the units stating the needed facts first (the harness's gate)",
    "passage-degraded": "the passage control with every fact-stating unit of a seeded half of the queries dropped "
                        "(must fail: shows the gate can fail)",
    "perfect": "perfect document ranking, the harness's passage choice (a reference; gates nothing)",
}


def passage_controls(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run],
                     deliveries: dict[str, Delivery], ranked_spans: dict[str, dict[str, list[Span]]],
                     unit_sets: dict[str, UnitSet], feasible_in: dict[str, dict[str, bool]],
                     evidence: dict[str, QueryEvidence] | None, qids: list[str], doc_texts: dict[str, str],
                     ctx_set: str, selections: dict[str, str] | None = None, *, covers: Covers | None = None
                     ) -> tuple[dict[str, str], str | None, dict[str, dict[str, str]]]:
    """Add the passage-level perfect control of every unit set a system delivers in (the context chunks always:
    document-level systems are delivered in them), under every selection a system delivering in it uses, and the
    degraded one in the context chunks to ``deliveries``. ``selections``: each delivery's selection method (the
    experiment's when absent). Returns ``({unit set: control name}, degraded name, {unit set: {selection:
    control name}})``: the first map names the control under the experiment's selection where there is one, else
    under the first of its systems' selections; the step selects each control row with the selection it is filed
    under (the degraded one with the experiment's). Nothing without evidence."""
    if evidence is None or not any(e.facts for q, e in evidence.items() if q in data.queries):
        return {}, None, {}
    taken = set(runs) | set(deliveries)
    sel = selections or {}

    def free(name: str) -> str:
        return name if name not in taken else f"{name}-control"

    grades = {q: {d: g for d, g in data.qrels[q].items() if g >= cfg.rel_threshold}
              for q in qids if q in data.qrels}
    used: dict[str, set[str]] = {ctx_set: {cfg.selection}}
    for n, dl in deliveries.items():
        if dl.unit_set in unit_sets and (dl.delivers == "units" or dl.unit_set == ctx_set):
            used.setdefault(dl.unit_set, set()).add(sel.get(n, cfg.selection))
    sets = [ctx_set, *sorted(set(used) - {ctx_set})]
    names: dict[str, str] = {}
    by_selection: dict[str, dict[str, str]] = {}
    degraded_name: str | None = None
    for us in sets:
        feas = feasible_in.get(us, {})
        drop = degraded_queries(feas, derive_seed(cfg.seed, PASSAGE_DEGRADED, us)) if us == ctx_set else set()
        good, bad = passage_rankings(unit_sets[us], evidence, qids, grades, doc_texts, cfg.context.candidates,
                                     drop, covers)
        base = PASSAGE if us == ctx_set else f"{PASSAGE}@{us.replace(':', '-')}"
        methods = sorted(used[us], key=lambda m: (m != cfg.selection, m))
        for i, method in enumerate(methods):
            name = free(base if i == 0 else f"{base}+{method}")
            taken.add(name)
            by_selection.setdefault(us, {})[method] = name
            names.setdefault(us, name)
            deliveries[name] = Delivery("units", good, us, f"passage-level perfect retriever in {us}: the units "
                                        "stating the needed facts, each next adding the most facts not yet stated "
                                        "(ties: fewer tokens), then the relevant documents' other units by grade; "
                                        f"{method} selection")
            ranked_spans[name] = {q: [Span(c.doc_id, c.start, c.end) for c in cs[:cfg.k]] for q, cs in good.items()}
        if us == ctx_set:
            degraded_name = free(PASSAGE_DEGRADED)
            taken.add(degraded_name)
            deliveries[degraded_name] = Delivery("units", bad, us, f"the passage control in {us} with every "
                                                 f"fact-stating unit dropped for {len(drop)} queries (a seeded "
                                                 "half of the feasible ones and of the others)")
            ranked_spans[degraded_name] = {q: [Span(c.doc_id, c.start, c.end) for c in cs[:cfg.k]]
                                           for q, cs in bad.items()}
    return names, degraded_name, by_selection
