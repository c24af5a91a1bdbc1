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

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hcrbench.data.evidence import QueryEvidence, read_evidence
from hcrbench.data.types import Run
from hcrbench.errors import InputError
from hcrbench.experiment import context_stages as cs
from hcrbench.experiment.config import ExperimentConfig, locate
from hcrbench.experiment.context_controls import PASSAGE, PASSAGE_DEGRADED  # noqa: F401  (names the step's rows)
from hcrbench.experiment.context_judge import (  # noqa: F401  (the step's names, where readers look for them)
    ORACLE,
    PERFECT,
    UNCONSTRAINED,
    budget_key,
    compare_budgets,
    impossible_rule,
)
from hcrbench.experiment.dataset import ExperimentData


@dataclass(frozen=True)
class ContextRoles:
    """The systems the context step singles out: the system under test (the oracle delivers its units), the kill
    baseline (the perfect control breaks ties in its order) and the flat system (highlighted in the summary).
    Without a protocol: the baseline as the kill baseline, nothing else."""

    system: str | None = None
    kill_baseline: str | None = None
    flat: str | None = None

    @classmethod
    def of(cls, protocol: Any, baseline: str) -> ContextRoles:
        """The roles of a ``[protocol]`` table (None: no protocol) beside the experiment's ``baseline``."""
        if protocol is None:
            return cls(kill_baseline=baseline)
        return cls(system=protocol.system, kill_baseline=protocol.kill_baseline, flat=protocol.flat)


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
              evidence: Path | None, roles: ContextRoles) -> str:
    """Everything the step reads (:mod:`hcrbench.experiment.memo`): config, roles, dataset, evidence, runs, unit
    files."""
    from hcrbench.context.units import units_path
    from hcrbench.experiment.memo import data_digest, file_sha, memo_key, run_digest

    return memo_key("context", {
        "config": cfg.model_dump(mode="json"), "roles": asdict(roles), "data": data_digest(data),
        "baseline": baseline,
        "evidence": None if evidence is None else file_sha(evidence),
        "runs": [[n, run_digest(r)] for n, r in runs.items()],
        "units": [[n, file_sha(units_path(out / "logs", n))] for n in runs]})


def context_step(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], baseline: str, out: Path,
                 config_path: Path, text: str, *, roles: ContextRoles
                 ) -> tuple[dict[str, Any], dict[str, float]] | None:
    """Select, judge and summarise contexts for every run and the oracle: ``(eval.json's "sufficiency",
    timings)``, or ``None`` when the config sets no budgets. Timings (wall clock, for the manifest) stay out of the
    deterministic summary. A warm re-run whose inputs are all unchanged reuses the folder's memo of the last
    computation (:mod:`hcrbench.experiment.memo`): the same summary, the same ``contexts/`` files.
    ``roles``: the protocol's roles (:meth:`ContextRoles.of`), given by the caller so the step never reads the
    protocol's table itself."""
    if not cfg.budgets:
        return None
    from hcrbench.experiment.memo import recall, remember, round_trip

    ev_path = _evidence_path(cfg, data, config_path, text)
    key = _memo_key(cfg, data, runs, baseline, out, ev_path, roles)
    hit = recall(out, "context", key)
    if hit is not None:
        return hit["doc"], hit["timings"]
    doc, timings = _context_step(cfg, data, runs, baseline, out, read_evidence(ev_path) if ev_path else None,
                                 roles)
    doc = round_trip(doc)
    remember(out, "context", key, doc, timings, [out / "contexts" / f"{n}.jsonl" for n in doc["systems"]])
    return doc, timings


def _context_step(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], baseline: str, out: Path,
                  evidence: dict[str, QueryEvidence] | None, roles: ContextRoles
                  ) -> tuple[dict[str, Any], dict[str, float]]:
    """The computation :func:`context_step` describes (``evidence``: the records read, or None), stage by stage
    (:mod:`hcrbench.experiment.context_stages`)."""
    prep = cs.prepare(cfg, data, evidence)
    offer = cs.deliver(cfg, data, runs, out, prep)
    perfect = cs.add_perfect(cfg, data, runs, prep, offer, kill=roles.kill_baseline or baseline)
    feas = cs.feasibility(evidence, prep, offer)
    ctl = cs.controls(cfg, data, runs, prep, offer, feas, evidence, perfect, lead=[roles.system, baseline])
    judged = cs.judge_all(cfg, data, prep, offer, ctl, evidence, out)
    categories = {q: str(data.queries.meta(q).get("category")) for q in prep.qids
                  if data.queries.meta(q).get("category") is not None}
    highlight = {"system": roles.system, "kill_baseline": roles.kill_baseline, "flat": roles.flat}
    doc = cs.summary(cfg, baseline, prep, offer, feas, ctl, judged, evidence, highlight, categories)
    cs.system_entries(doc, cfg, prep, offer, feas, ctl, judged, evidence, categories)
    if doc["headline"] is not None:
        compare_budgets(doc, judged.outcomes, baseline, (ctl.oracle_name, ctl.perfect_name, *ctl.control_of),
                        prep.budgets, doc["headline"], prep.ref, min(cfg.n_resamples, 10_000, 2000), cfg.seed)
    timings = {"context_prep_seconds": round(prep.seconds, 3), "oracle_cover_seconds": round(ctl.oracle_seconds, 3)}
    for name in judged.outcomes:
        timings[f"selection_seconds_per_query.{name}"] = round(judged.per_system[name]["selection_seconds_per_query"],
                                                               6)
    return doc, timings
