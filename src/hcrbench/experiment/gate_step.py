"""The runner's gate step: ``hcrbench gate`` on the runs an experiment produced, written to ``OUT/gate.json``.

With a ``[gate]`` table in the config, the runner gates every system (four nulls, calibrated and Holm-adjusted
p-values; strict single-gold R@5 unless ``strict = false``), optionally builds and gates the positive / negative
controls, and compares every system with the baseline (paired, in the experiment's declared Holm family, with
HIT / UNDER-NS / MISS / NULL-FAIL verdicts). ``gate.json`` is the document ``hcrbench gate RUNS --controls
--baseline B --json FILE`` writes for the same runs and options, plus ``"family"`` (the Holm family in words)
and ``"passed"`` (every gated system passes, and the harness is trusted when controls ran). Same inputs and seed
give the same bytes; a warm re-run whose inputs are all unchanged reuses the folder's memo of the last computation
(:mod:`hcrbench.experiment.memo`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.types import Run
from hcrbench.experiment.config import ExperimentConfig
from hcrbench.experiment.dataset import ExperimentData

GATE_FILE = "gate.json"


def gate_step(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], baseline: str,
              out: Path) -> dict[str, Any] | None:
    """Gate ``runs`` as ``[gate]`` says and write ``out/gate.json``; ``None`` when the config has no gate."""
    g = cfg.gate
    if g is None or not g.enabled:
        (out / GATE_FILE).unlink(missing_ok=True)
        return None
    from hcrbench.experiment.memo import data_digest, memo_key, recall, remember, round_trip, run_digest

    key = memo_key("gate", {"config": cfg.model_dump(mode="json"), "data": data_digest(data), "baseline": baseline,
                            "runs": [[n, run_digest(r)] for n, r in runs.items()]})
    hit = recall(out, "gate", key)
    if hit is not None:  # a warm re-run: nothing the gate reads changed (hcrbench.experiment.memo)
        doc = hit["doc"]
    else:
        doc = round_trip(_gate_doc(cfg, data, runs, baseline))
    atomic_write_text(out / GATE_FILE, json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n")
    if hit is None:
        remember(out, "gate", key, doc)
    return doc


def _gate_doc(cfg: ExperimentConfig, data: ExperimentData, runs: dict[str, Run], baseline: str) -> dict[str, Any]:
    """The gate document :func:`gate_step` writes (computed)."""
    g = cfg.gate
    assert g is not None
    from hcrbench.gate import gate_pairs, run_controls
    from hcrbench.gate._kernels import parse_gate_metric
    from hcrbench.gate.baseline import compare_to_baseline
    from hcrbench.stats.compare import _clean, family_text

    metric = parse_gate_metric(g.metric).name
    seed = cfg.seed if g.seed is None else g.seed
    base = g.baseline or baseline
    chosen = {n: r for n, r in runs.items() if not g.systems or n in g.systems or n == base}
    pool = list(data.corpus.doc_ids)
    common = dict(n_trials=g.n_trials, tau=g.tau, alpha=g.alpha, seed=seed, rel_threshold=cfg.rel_threshold,
                  tau_rel=g.tau_rel)
    pairs = gate_pairs(data.qrels, chosen, metric=metric, strict=g.strict, item_pool=pool, k=g.k, **common) \
        if chosen else {}
    doc: dict[str, Any] = {"metric": metric, "strict": g.strict, "systems": {n: p.to_dict() for n, p in pairs.items()},
                           "controls": None}
    trusted = True
    if g.controls:
        first = next(iter(chosen.values()), None)
        rep = run_controls(data.qrels, pool, metric=metric, strict=g.strict, k=g.k or parse_gate_metric(metric).cutoff
                           or 10, base_run=first, **common)
        doc["controls"] = rep.to_dict()
        trusted = bool(rep.trusted)
    if base in pairs and len(pairs) > 1:
        comps = compare_to_baseline(pairs, base, min_delta=g.min_delta, alpha=g.alpha,
                                    n_resamples=cfg.n_resamples, seed=seed, family=cfg.family)
        doc.update({"baseline": base, "min_delta": g.min_delta, "verdicts": [c.to_dict() for c in comps],
                    "family_kind": cfg.family, "pool_pairings": False})
    doc["family"] = family_text(cfg.family, base)
    failing = sorted(n for n, p in pairs.items()
                     if not p.graded.gate_pass or (p.strict is not None and not p.strict.gate_pass))
    doc["failing"] = failing
    doc["passed"] = not failing and trusted
    return _clean(doc)  # NaN (e.g. an undefined gap share) is written as null: strict JSON


def gate_bottom_line(doc: dict[str, Any]) -> str:
    """One line a person can act on: how many systems pass the gate, whether the harness is trusted."""
    n = len(doc.get("systems") or {})
    failing = doc.get("failing") or []
    parts = [f"{n - len(failing)} of {n} systems pass the gate" + (f" (FAIL: {', '.join(failing)})" if failing
                                                                     else "")]
    if doc.get("controls") is not None:
        parts.append("harness trusted" if doc["controls"].get("trusted") else
                     "harness NOT trusted (a control was misclassified)")
    return f"gate: {'PASS' if doc.get('passed') else 'FAIL'} — " + "; ".join(parts)
