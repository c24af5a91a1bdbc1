"""Protocol controls: the go / no-go rules judged on three systems whose right verdict is known, beside the real
system, on every dataset (falsify-eval controls its null gate; nobody controls go/no-go rules).

- ``oracle``: the ideal ranking from the qrels (grade descending, then the kill baseline's order), routing that
  keeps every relevant branch (eps = 0 on the checkpoint's queries), context = the cheapest evidence cover
  (sufficient on every budget-feasible query; the sufficiency step's ``oracle`` row when it wrote one). It must get
  go / pass on every rule whose threshold is reachable.
- ``clone``: the kill baseline's own run under the system's name. It must never get go or kill (nor stop, nor
  no-go) on a rule that compares the system with the kill baseline.
- ``degraded``: the kill baseline with ~30% of its queries' rankings replaced by random documents (seeded);
  routing that misses on 30% of the checkpoint's queries; its contexts insufficient on those queries. It must get
  kill / no-go / stop.
- ``twin``, ``plus_margin``, ``minus_margin``: the kill baseline plus the system's own per-query differences from
  it, centred and made antisymmetric in pairs (:func:`antisymmetric`: realistic sampling noise whose realised
  mean is exactly 0), and the same placed at +/- the kill rule's margin. The twin must get neither go nor kill,
  +margin never kill, -margin never go; their verdict frequencies over resamples are
  ``verdicts.json["operating"][rule]["controls"]``.

The verdicts each control must get are each rule's own (:mod:`registry`).

H1a and the failure rate get no control rows while the oracle gate keeps them from being judged at all (no
oracle row, or the oracle context fails > 5%). A control row informs and never voids: a single run's control is
one draw, and a rule whose error rate is nominal gets a noise control wrong at about that rate, so voiding the
subject's row on it would discard correct decisions at the control's own alpha. A missed control is shown beside
the subject's row (:func:`apply`); how often each control gets its expected verdict is the replayed frequency in
``verdicts.json["operating"][rule]["controls"]``. ``verdicts.json["controls"]`` lists ``{"control", "rule",
"expected", "got", "ok"}``; ``verdicts.json["undecidable_rules"]`` the rules a control missed on this run. The
single kill criterion is judged on the controls as at the full size (the controls check the rule, not the
corpus size).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.protocol.inputs import per_query
from hcrbench.protocol.row import Row
from hcrbench.protocol.rules import (
    DIAGNOSE,
    NOT_RUN,
    stops,
)
from hcrbench.protocol.subject import Context, Subject, compare_subject, judge_subject

CONTROLS = ("oracle", "clone", "degraded", "twin", "plus_margin", "minus_margin")
DEGRADE_SHARE = 0.30
STOP = DIAGNOSE


def _expected() -> dict[str, dict[str, tuple[str, ...]]]:
    """rule -> control -> the verdicts that are right, from the registry (each rule states its own)."""
    from hcrbench.protocol import registry as reg

    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for r in reg.REGISTRY.values():
        per = {c: v for c, v in r.controls.items() if c in CONTROLS}
        if per:
            out[r.id] = per
    return out


def __getattr__(name: str) -> Any:
    if name == "EXPECTED":  # rule -> control -> the verdicts that are right (the first is the one expected)
        return _expected()
    raise AttributeError(name)


def _rng(ctx: Context, salt: int) -> np.random.Generator:
    return np.random.default_rng([int(ctx.cfg.seed), salt])


def oracle_run(ctx: Context) -> Any:
    from hcrbench.data.types import Run

    base_run = ctx.cache.get("kill_run")
    out: dict[str, dict[str, float]] = {}
    thr = ctx.cfg.rel_threshold
    for q in ctx.data.qrels.query_ids:
        rel = sorted(((g, d) for d, g in ctx.data.qrels[q].items() if g >= thr), key=lambda x: (-x[0], x[1]))
        ranked = [d for _, d in rel]
        if base_run is not None and q in base_run:
            ranked += [d for d, _ in sorted(base_run[q].items(), key=lambda x: -x[1]) if d not in set(ranked)]
        ranked = ranked[: max(ctx.cfg.k, len(rel))]
        if ranked:
            out[q] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return Run.from_dict(out, name="oracle")


def degraded_run(ctx: Context) -> tuple[Any, set[str]]:
    """The kill baseline with ~30% of its queries' rankings replaced by random documents (same depth, seeded)."""
    from hcrbench.data.types import Run

    base = ctx.cache["kill_run"]
    qids = sorted(base.query_ids)
    rng = _rng(ctx, 7)
    hit = set(rng.choice(qids, size=round(DEGRADE_SHARE * len(qids)), replace=False).tolist()) if qids else set()
    docs = np.asarray(list(ctx.data.corpus.doc_ids))
    out: dict[str, dict[str, float]] = {}
    for q in qids:
        ranking = base[q]
        if q in hit:
            pick = rng.choice(len(docs), size=min(len(ranking), len(docs)), replace=False)
            ranking = {str(docs[i]): float(len(pick) - j) for j, i in enumerate(pick)}
        out[q] = ranking
    return Run.from_dict(out, name="degraded"), hit


def _scores(ctx: Context, run: Any, name: str) -> Any:
    from hcrbench.metrics import evaluate

    ev = evaluate(ctx.data.qrels, {name: run}, list(ctx.evaluation.metrics), rel_threshold=ctx.cfg.rel_threshold,
                  missing="zero")
    return ev.runs[name]


def _oracle_suff(ctx: Context) -> tuple[dict[str, float] | None, tuple[float | None, int]]:
    """Per-query sufficiency of the oracle context at 400 tokens and its failure on feasible queries: the
    sufficiency step's oracle files when present, else the cheapest evidence cover (sufficient iff feasible)."""
    from hcrbench.data.evidence import read_evidence
    from hcrbench.protocol.inputs import oracle_failure, suff_per_query

    own = suff_per_query(ctx.out, "oracle", ctx.kind)
    of, on = oracle_failure(ctx.sufficiency)
    path = ctx.data.root / "evidence.jsonl"
    if own is None and ctx.kind is not None and path.is_file():
        ev = read_evidence(path)
        own = {q: 1.0 if ev[q].budget_feasible else 0.0 for q in ctx.data.queries.query_ids if q in ev}
    if of is None and own is not None:
        feas = [q for q, v in own.items() if v]
        of, on = 0.0, len(feas)
    return own, (of, on or 0)


def _routing(ctx: Context, miss_share: float) -> tuple[list[float] | None, list[int] | None, int, str] | None:
    _eps, n_at, n, why = ctx.routing
    if not n_at or not n:
        return None
    # exactly the share of misses on the queries of every level, as the construction says
    return [round(miss_share * k) / k for k in n_at], list(n_at), n, why


def subjects(ctx: Context) -> dict[str, Subject]:
    """The three controls as subjects (empty when the kill baseline was not run)."""
    kill = ctx.p.kill_baseline
    if kill not in ctx.evaluation.runs or ctx.cache.get("kill_run") is None:
        return {}
    base_scores = per_query(ctx.evaluation, [kill], ctx.metric)
    out: dict[str, Subject] = {}
    o_run = oracle_run(ctx)
    o_scores = _scores(ctx, o_run, "oracle")
    ctx.cache["oracle_scores"] = o_scores  # the mixture construction's "oracle share" (operating characteristics)
    o_suff, o_fail = _oracle_suff(ctx)
    out["oracle"] = Subject("oracle", o_scores, compare_subject(ctx, "oracle", o_scores), "oracle control",
                            o_suff, o_fail, _routing(ctx, 0.0))
    k_suff = ctx.suff(kill)
    k_fail = ((((ctx.sufficiency or {}).get("systems") or {}).get(kill) or {}).get("failure_on_feasible") or {})
    out["clone"] = Subject("clone", base_scores, compare_subject(ctx, "clone", base_scores), "clone control",
                           k_suff, (k_fail.get("rate"), int(k_fail.get("n") or 0)), None)
    d_run, hit = degraded_run(ctx)
    d_scores = _scores(ctx, d_run, "degraded")
    d_suff = {q: (0.0 if q in hit else v) for q, v in k_suff.items()} if k_suff else None
    out["degraded"] = Subject("degraded", d_scores, compare_subject(ctx, "degraded", d_scores), "degraded control",
                              d_suff, (None, 0), _routing(ctx, DEGRADE_SHARE))
    for name, sc in noise_controls(ctx, base_scores).items():
        out[name] = Subject(name, sc, compare_subject(ctx, name, sc), f"{name} control", None, (None, 0), None)
    return out


def antisymmetric(d: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per-query differences with the spread and shape of ``d`` whose mean is exactly 0: ``d`` centred, its
    queries ranked by size and paired with their neighbour in that order, each pair given one magnitude (the pair's
    root mean square: the sum of squares is kept) with opposite signs, which member gets the plus seeded; with an
    odd count the smallest difference becomes 0. A random sign flip alone leaves a realised mean of order
    sd / sqrt(n), a real effect on a control that must have none."""
    c = np.asarray(d, dtype=np.float64)
    c = c - c.mean()
    order = np.argsort(np.abs(c), kind="stable")
    out = np.zeros_like(c)
    start = order.size % 2  # the smallest one is left at 0 when the count is odd
    i, j = order[start::2], order[start + 1::2]
    mag = np.sqrt((c[i] ** 2 + c[j] ** 2) / 2)
    sign = np.where(rng.random(mag.size) < 0.5, -1.0, 1.0)
    out[i], out[j] = sign * mag, -sign * mag
    return out


def noise_controls(ctx: Context, base: Any) -> dict[str, Any]:
    """Known-truth systems with realistic sampling noise (a clone has none): the kill baseline's per-query scores
    plus the system's real per-query differences from it, made antisymmetric (:func:`antisymmetric`: realised mean
    exactly 0) — ``twin`` (truth 0), ``plus_margin`` / ``minus_margin`` (the same shifted by the kill rule's margin
    on the protocol metric). Empty when the system or the kill baseline has no scores."""
    from types import SimpleNamespace

    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.operating_inputs import aligned

    sysq = ctx.cache.get("system_scores")
    if sysq is None or base is None:
        return {}
    qids = [q for q in base.query_ids if q in set(sysq.query_ids)]
    if len(qids) < 2:
        return {}
    keep = set(qids)
    sub_base = SimpleNamespace(query_ids=qids, values={m: np.asarray(v, dtype=np.float64)[
        [i for i, q in enumerate(base.query_ids) if q in keep]] for m, v in base.values.items()})
    margin = reg.with_role("architecture").margin  # type: ignore[union-attr]
    noise = {}
    for m in base.values:
        if m in sysq.values:
            a, b = aligned(SimpleNamespace(query_ids=qids, values={m: sub_base.values[m]}), sysq, m)
            noise[m] = antisymmetric(b - a, _rng(ctx, 11))  # system - kill baseline, in qids order
    out = {}
    for name, shift in (("twin", 0.0), ("plus_margin", margin), ("minus_margin", -margin)):
        vals = {m: sub_base.values[m] + noise[m] + (shift if m == ctx.metric else 0.0) if m in noise
                else sub_base.values[m] for m in base.values}
        out[name] = SimpleNamespace(query_ids=qids, values=vals)
    return out


def _ok(expected: tuple[str, ...], got: str) -> bool:
    return any(got == e or (e == STOP and stops(got)) for e in expected)


def run_controls(ctx: Context) -> list[dict[str, Any]]:
    """Every applicable (control, rule) pair judged: ``[{"control", "rule", "expected", "got", "ok"}]``; a rule
    whose control could not be computed (its input missing) is left out."""
    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.hypotheses import oracle_gate
    from hcrbench.protocol.inputs import oracle_failure

    subs = subjects(ctx)
    expected = _expected()
    oracle_gated = {r.id for r in reg.rules() if r.oracle_gated}
    rows: list[dict[str, Any]] = []
    gated = oracle_gate(*oracle_failure(ctx.sufficiency)) is not None  # H1a / failure rate are not judged at all
    for name in CONTROLS:
        s = subs.get(name)
        if s is None:
            continue
        rules = {r for r, per in expected.items() if name in per}
        got = judge_subject(ctx, s, rules, full_size=True)
        for rule, per in expected.items():
            if name not in per or rule not in got or (gated and rule in oracle_gated):
                continue
            row = got[rule]
            verdict = Row.word_of(row)
            if verdict == NOT_RUN:
                continue
            exp = per[name]
            rows.append({"control": name, "rule": rule, "expected": " or ".join(exp), "got": verdict,
                         "ok": _ok(exp, verdict), "text": row["text"]})
    return rows


def apply(rows: list[dict], controls: list[dict]) -> list[dict]:
    """Rows whose rule missed a control on this run keep their verdict and show the miss beside it
    (``evidence["controls_missed"]`` and a note in the text): a control informs, it never voids."""
    missed: dict[str, list[dict]] = {}
    for c in controls:
        if not c["ok"]:
            missed.setdefault(c["rule"], []).append(c)
    out = []
    for r in rows:
        cs = missed.get(r["id"])
        if not cs or Row.word_of(r) == NOT_RUN:
            out.append(r)
            continue
        what = ", ".join(f"{c['control']} got {c['got']} (expected {c['expected']})" for c in cs)
        r = {**r, "evidence": {**(r.get("evidence") or {}), "controls_missed": [
            {k: c[k] for k in ("control", "expected", "got")} for c in cs]},
             "text": f"{r['text']} (control on this run: {what}; shown, not used to void: a control misses at "
                     "its own error rate)"}
        out.append(r)
    return out


def undecidable_rules(controls: list[dict]) -> list[str]:
    """The rules a control missed on this run (``verdicts.json["undecidable_rules"]``; listed, never voided)."""
    return sorted({c["rule"] for c in controls if not c["ok"]})
