"""The design's decision rules, as pure functions of plain numbers: fail-fast checkpoints and hypothesis verdicts.

Each rule takes the measured figures (``None`` when the condition that yields them was not run) and returns one
JSON-ready dict: a checkpoint ``{"id", "name", "criterion", "value", "threshold", "status", "text"}`` with status
``pass`` / ``kill`` / ``not run``, or a hypothesis ``{"id", "name", "criterion", "verdict", "text", "evidence"}``
with verdict ``go`` / ``soft no-go`` / ``no-go`` / ``kill`` / ``inconclusive`` / ``not run``. A rule never invents a
number: a missing input gives ``not run`` and says which condition is missing. The thresholds are the design's
(issue #14) and are module constants, so the tests check each boundary. Sufficiency rates and nDCG are in [0, 1];
"within 5%" and "worse by more than 5%" are read as 5 percentage points (0.05), and "within +-10%" of the
(1 - eps)^d model as a relative error of at most 10%.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

GO, SOFT, NOGO, KILL, INCONCLUSIVE, NOT_RUN = "go", "soft no-go", "no-go", "kill", "inconclusive", "not run"
PASS = "pass"
VERDICT_ORDER = (KILL, NOGO, SOFT, INCONCLUSIVE, GO)  # worst first: the overall verdict is the worst one run

TREE_SANITY_MIN = 0.15   # mean sibling distinctiveness (cosine distance)
EASY_EPS_MAX = 0.10      # routing error at every level on the easiest single-branch queries
KILL_MARGIN = 0.02       # HCR may trail flat + reranker on nDCG@10 by at most this much
H1A_MIN_RATE = 0.55      # HCR@400 sufficiency
H1A_SOFT = 0.05          # within this of flat + reranker@400: soft no-go; worse by more: kill
H1B_OVER_SINGLE = 0.03   # dual path over the best single path (nDCG@10)
H1B_OVER_RERANK = 0.05   # dual path over flat + reranker
H1B_ENTITY = 0.08        # dual path over flat + reranker on entity-spanning queries
H1C_GO_R = 0.7           # Pearson r (routing accuracy, nDCG@10) across conditions
H1C_KILL_R = 0.3
LINKS_GAIN = 0.15        # cross-links: relative nDCG@10 gain on entity-spanning queries
MODEL_TOL = 0.10         # observed accuracy within 10% (relative) of (1 - eps)^d
FAIL_GOOD, FAIL_OK, FAIL_CONCERN = 0.10, 0.20, 0.30  # failure rate on budget-feasible queries
MIN_D = 0.3              # Cohen's d for any claimed improvement
ALPHA = 0.05
MIN_CONDITIONS = 3       # a correlation across fewer conditions is not computed


def _num(x: Any) -> float | None:
    """A finite float, or None (missing, NaN, inf)."""
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _f(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _p(p: float | None) -> str:
    if p is None:
        return "p = —"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def checkpoint(cid: str, name: str, criterion: str, value: float | None, threshold: float, status: str,
               text: str) -> dict[str, Any]:
    return {"id": cid, "name": name, "criterion": criterion, "value": value, "threshold": threshold,
            "status": status, "text": text}


def hypothesis(hid: str, name: str, criterion: str, verdict: str, text: str,
               evidence: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": hid, "name": name, "criterion": criterion, "verdict": verdict, "text": text,
            "evidence": {k: v for k, v in (evidence or {}).items()}}


# ------------------------------------------------------------------------------------------------ checkpoints


def tree_sanity(mean_distinctiveness: float | None, why_missing: str = "no tree with routing vectors") -> dict:
    """Checkpoint 1: the tree's siblings must be distinguishable (mean cosine distance >= 0.15)."""
    crit = f"mean sibling distinctiveness >= {TREE_SANITY_MIN}"
    v = _num(mean_distinctiveness)
    if v is None:
        return checkpoint("tree_sanity", "Tree sanity", crit, None, TREE_SANITY_MIN, NOT_RUN, f"not run: {why_missing}")
    ok = v >= TREE_SANITY_MIN
    return checkpoint("tree_sanity", "Tree sanity", crit, v, TREE_SANITY_MIN, PASS if ok else KILL,
                      f"siblings are {'distinct enough' if ok else 'too alike'}: mean cosine distance {v:.3f} "
                      f"({'>=' if ok else '<'} {TREE_SANITY_MIN})")


def easy_routing(eps_per_level: Sequence[float | None] | None, n_queries: int = 0,
                 why_missing: str = "no routing log") -> dict:
    """Checkpoint 2: on the easiest single-branch queries, routing error eps <= 0.10 at every level."""
    crit = f"eps <= {EASY_EPS_MAX} at every level on the easiest single-branch queries"
    levels = [_num(e) for e in (eps_per_level or [])]
    levels = [e for e in levels if e is not None]
    if not levels or n_queries == 0:
        return checkpoint("easy_routing", "Routing on easy single-branch queries", crit, None, EASY_EPS_MAX,
                          NOT_RUN, f"not run: {why_missing}")
    worst = max(levels)
    ok = worst <= EASY_EPS_MAX
    per = ", ".join(f"L{i + 1} {e:.3f}" for i, e in enumerate(levels))
    return checkpoint("easy_routing", "Routing on easy single-branch queries", crit, worst, EASY_EPS_MAX,
                      PASS if ok else KILL, f"worst level eps {worst:.3f} ({per}) on {n_queries} queries: "
                      + ("routing holds" if ok else "routing already fails where it should be easiest"))


def kill_baseline_margin(delta: float | None, baseline: str = "flat + reranker", metric: str = "nDCG@10",
                         why_missing: str = "HCR or the kill baseline was not run") -> dict:
    """Checkpoint 3: HCR must not trail flat + reranker on nDCG@10 by more than 0.02."""
    crit = f"HCR - {baseline} on {metric} >= -{KILL_MARGIN}"
    d = _num(delta)
    if d is None:
        return checkpoint("vs_kill_baseline", f"HCR vs {baseline}", crit, None, -KILL_MARGIN, NOT_RUN,
                          f"not run: {why_missing}")
    ok = d >= -KILL_MARGIN
    return checkpoint("vs_kill_baseline", f"HCR vs {baseline}", crit, d, -KILL_MARGIN, PASS if ok else KILL,
                      f"HCR {'trails' if d < 0 else 'leads'} {baseline} by {abs(d):.3f} {metric} "
                      f"({'within' if ok else 'beyond'} the {KILL_MARGIN} margin)")


def token_efficiency(hcr_400: float | None, flat_400: float | None, flat: str = "flat",
                     why_missing: str = "no sufficiency at 400 tokens") -> dict:
    """Checkpoint 4: HCR@400 must beat flat@400 on sufficiency."""
    crit = f"HCR sufficiency@400 > {flat} sufficiency@400"
    h, f = _num(hcr_400), _num(flat_400)
    if h is None or f is None:
        return checkpoint("token_efficiency", "Token efficiency", crit, None, 0.0, NOT_RUN, f"not run: {why_missing}")
    ok = h > f
    return checkpoint("token_efficiency", "Token efficiency", crit, h - f, 0.0, PASS if ok else KILL,
                      f"HCR@400 {h:.3f} vs {flat}@400 {f:.3f}: " + ("HCR gives sufficient context more often" if ok
                                                                      else "HCR does not beat flat retrieval"))


# ------------------------------------------------------------------------------------------------ hypotheses


def h1a(hcr_400: float | None, rerank_400: float | None, flat_600: float | None,
        why_missing: str = "no sufficiency results") -> dict:
    """H1a: HCR@400 >= flat + reranker@400 and >= 55%, and matches flat at >= 600 tokens: go; within 5 points of
    flat + reranker@400: soft no-go; worse by more than 5 points: kill."""
    crit = (f"HCR@400 >= flat+reranker@400 and >= {H1A_MIN_RATE:.0%}, and >= flat@600: go; within "
            f"{H1A_SOFT:.0%}: soft no-go; worse by > {H1A_SOFT:.0%}: kill")
    h, r, f6 = _num(hcr_400), _num(rerank_400), _num(flat_600)
    ev = {"hcr@400": h, "flat+reranker@400": r, "flat@600": f6}
    if h is None or r is None:
        return hypothesis("H1a", "Sufficiency under a 400-token budget", crit, NOT_RUN, f"not run: {why_missing}", ev)
    gap = h - r
    if gap < -H1A_SOFT:
        return hypothesis("H1a", "Sufficiency under a 400-token budget", crit, KILL,
                          f"HCR@400 {h:.3f} is {-gap:.3f} below flat + reranker@400 ({r:.3f}): kill", ev)
    misses = []
    if gap < 0:
        misses.append(f"{-gap:.3f} below flat + reranker@400")
    if h < H1A_MIN_RATE:
        misses.append(f"below {H1A_MIN_RATE:.0%}")
    if f6 is None:
        misses.append("flat@600 not run")
    elif h < f6:
        misses.append(f"below flat@600 ({f6:.3f})")
    if not misses:
        return hypothesis("H1a", "Sufficiency under a 400-token budget", crit, GO,
                          f"HCR@400 {h:.3f} >= flat + reranker@400 {r:.3f}, >= {H1A_MIN_RATE:.0%} and >= flat@600 "
                          f"{f6:.3f}: go", ev)
    verdict = INCONCLUSIVE if misses == ["flat@600 not run"] else SOFT
    return hypothesis("H1a", "Sufficiency under a 400-token budget", crit, verdict,
                      f"HCR@400 {h:.3f} vs flat + reranker@400 {r:.3f}: " + "; ".join(misses), ev)


def improvement(delta: float | None, p: float | None, d: float | None, need: float) -> tuple[bool, str]:
    """Is ``delta`` a claimable improvement of at least ``need``: delta >= need, p < 0.05, Cohen's d >= 0.3?"""
    dl, pp, dd = _num(delta), _num(p), _num(d)
    if dl is None:
        return False, "not run"
    why = []
    if dl < need:
        why.append(f"+{need:.2f} needed, got {dl:+.3f}")
    if pp is None or pp >= ALPHA:
        why.append(f"not significant ({_p(pp)})")
    if dd is None or dd < MIN_D:
        why.append(f"Cohen's d {_f(dd, 2)} < {MIN_D}")
    return not why, "; ".join(why) or f"{dl:+.3f} ({_p(pp)}, d = {_f(dd, 2)})"


def h1b(over_single: float | None, p_single: float | None, d_single: float | None,
        over_rerank: float | None, p_rerank: float | None, d_rerank: float | None,
        entity_over_rerank: float | None, why_missing: str = "the single-path ablations were not run") -> dict:
    """H1b: the dual path beats the best single path by >= 0.03 nDCG@10 and flat + reranker by >= 0.05
    (p < 0.05, paired permutation; Cohen's d >= 0.3), and flat + reranker by >= 0.08 on entity-spanning queries.
    All met: go; the dual path not better than the best single path: no-go; otherwise soft no-go."""
    crit = (f"dual - best single path >= +{H1B_OVER_SINGLE} and dual - flat+reranker >= +{H1B_OVER_RERANK} "
            f"nDCG@10 (p < {ALPHA}, d >= {MIN_D}); entity-spanning >= +{H1B_ENTITY}")
    ev = {"dual - best single": _num(over_single), "p (vs best single)": _num(p_single),
          "d (vs best single)": _num(d_single), "dual - flat+reranker": _num(over_rerank),
          "p (vs flat+reranker)": _num(p_rerank), "d (vs flat+reranker)": _num(d_rerank),
          "entity-spanning: dual - flat+reranker": _num(entity_over_rerank)}
    if _num(over_single) is None:
        return hypothesis("H1b", "Dual path", crit, NOT_RUN, f"not run: {why_missing}", ev)
    ok1, t1 = improvement(over_single, p_single, d_single, H1B_OVER_SINGLE)
    ok2, t2 = improvement(over_rerank, p_rerank, d_rerank, H1B_OVER_RERANK)
    e = _num(entity_over_rerank)
    ok3 = e is not None and e >= H1B_ENTITY
    text = (f"vs best single path: {t1}; vs flat + reranker: {t2}; entity-spanning: "
            f"{'not run' if e is None else f'{e:+.3f}'}")
    if ok1 and ok2 and ok3:
        return hypothesis("H1b", "Dual path", crit, GO, "dual path pays: " + text, ev)
    if _num(over_single) <= 0:  # type: ignore[operator]
        return hypothesis("H1b", "Dual path", crit, NOGO, "the dual path is no better than a single path: " + text,
                          ev)
    return hypothesis("H1b", "Dual path", crit, SOFT, text, ev)


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson r, or None with fewer than 2 points or no variance."""
    if len(x) < 2 or len(x) != len(y):
        return None
    xs = [float(v) for v in x]
    ys = [float(v) for v in y]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((a - mx) * (b - my) for a, b in zip(xs, ys))
    sxx = sum((a - mx) ** 2 for a in xs)
    syy = sum((b - my) ** 2 for b in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def h1c(accuracy: Sequence[float], ndcg: Sequence[float], links_gain: float | None = None,
        observed: float | None = None, predicted: float | None = None) -> dict:
    """H1c: routing accuracy explains retrieval quality. Pearson r (accuracy, nDCG@10) across >= 3 conditions:
    >= 0.7 go, < 0.3 kill, between soft no-go; a go drops to soft no-go when cross-links are worth < 15% on
    entity-spanning queries or the observed accuracy is off the (1 - eps)^d model by more than 10%."""
    crit = (f"Pearson r(routing accuracy, nDCG@10) across conditions >= {H1C_GO_R} go, < {H1C_KILL_R} kill; "
            f"cross-links >= +{LINKS_GAIN:.0%} on entity-spanning; observed accuracy within "
            f"±{MODEL_TOL:.0%} of (1 - eps)^d")
    pairs = [(a, b) for a, b in zip(accuracy, ndcg) if _num(a) is not None and _num(b) is not None]
    r = pearson([a for a, _ in pairs], [b for _, b in pairs]) if len(pairs) >= MIN_CONDITIONS else None
    o, pr = _num(observed), _num(predicted)
    model_err = abs(o - pr) / pr if o is not None and pr is not None and pr > 0 else None
    lg = _num(links_gain)
    ev = {"conditions": len(pairs), "pearson_r": r, "links_gain_entity_spanning": lg,
          "observed_accuracy": o, "predicted_(1-eps)^d": pr, "model_relative_error": model_err}
    extras = []
    if lg is not None:
        extras.append(f"cross-links {lg:+.0%} on entity-spanning ({'>=' if lg >= LINKS_GAIN else '<'} "
                      f"{LINKS_GAIN:.0%})")
    if model_err is not None:
        extras.append(f"observed accuracy {o:.3f} vs (1 - eps)^d {pr:.3f} ({model_err:.0%} off)")
    tail = ("; " + "; ".join(extras)) if extras else ""
    if r is None:
        why = (f"{len(pairs)} routing condition(s) with a log; the correlation needs >= {MIN_CONDITIONS}"
               if len(pairs) < MIN_CONDITIONS else "no variance across conditions")
        return hypothesis("H1c", "Routing explains quality", crit, NOT_RUN, f"not run: {why}{tail}", ev)
    if r < H1C_KILL_R:
        return hypothesis("H1c", "Routing explains quality", crit, KILL,
                          f"r = {r:.2f} < {H1C_KILL_R} over {len(pairs)} conditions: routing accuracy does not "
                          f"explain quality{tail}", ev)
    if r < H1C_GO_R:
        return hypothesis("H1c", "Routing explains quality", crit, SOFT, f"r = {r:.2f} over {len(pairs)} conditions"
                          f"{tail}", ev)
    weak = (lg is not None and lg < LINKS_GAIN) or (model_err is not None and model_err > MODEL_TOL)
    return hypothesis("H1c", "Routing explains quality", crit, SOFT if weak else GO,
                      f"r = {r:.2f} over {len(pairs)} conditions{tail}", ev)


def failure_rate(rate: float | None, n: int = 0, system: str = "HCR",
                 why_missing: str = "no evidence-based sufficiency at 400 tokens") -> dict:
    """The failure rate on budget-feasible queries at 400 tokens: <= 20% go (<= 10% good), <= 30% soft no-go
    (concerning), > 30% kill."""
    crit = (f"{system} failure rate on budget-feasible queries @400: <= {FAIL_OK:.0%} go, <= {FAIL_CONCERN:.0%} "
            f"soft no-go, > {FAIL_CONCERN:.0%} kill")
    v = _num(rate)
    ev = {"failure_rate": v, "n_feasible": n}
    if v is None:
        return hypothesis("failure_rate", "Failure rate on budget-feasible queries", crit, NOT_RUN,
                          f"not run: {why_missing}", ev)
    band = "good" if v <= FAIL_GOOD else "acceptable" if v <= FAIL_OK else "concerning" if v <= FAIL_CONCERN \
        else "kill"
    verdict = GO if v <= FAIL_OK else SOFT if v <= FAIL_CONCERN else KILL
    return hypothesis("failure_rate", "Failure rate on budget-feasible queries", crit, verdict,
                      f"{system} fails {v:.0%} of {n} budget-feasible queries at 400 tokens ({band})", ev)


def corpus_size(points: Sequence[dict[str, Any]] | None) -> dict:
    """Corpus growth: HCR's delta against the kill baseline must not shrink as the corpus grows. Delta at the
    largest size >= delta at the smallest: go; lower by at most 0.02 (the kill margin): soft no-go; lower by
    more: no-go. Needs >= 2 sizes (``--sizes``)."""
    crit = (f"delta(HCR - kill baseline) at the largest size >= at the smallest: go; down by <= {KILL_MARGIN}: "
            f"soft no-go; down by more: no-go")
    pts = [p for p in (points or []) if _num(p.get("delta")) is not None]
    ev = {f"delta@{p.get('size')}": _num(p.get("delta")) for p in pts}
    if len(pts) < 2:
        return hypothesis("corpus_size", "Corpus size", crit, NOT_RUN,
                          "not run: needs the comparison at two or more corpus sizes (--sizes small,medium,full)",
                          ev)
    first, last = float(pts[0]["delta"]), float(pts[-1]["delta"])
    change = last - first
    verdict = GO if change >= 0 else SOFT if change >= -KILL_MARGIN else NOGO
    return hypothesis("corpus_size", "Corpus size", crit, verdict,
                      f"delta {first:+.3f} at {pts[0].get('size')} -> {last:+.3f} at {pts[-1].get('size')} "
                      f"({change:+.3f} as the corpus grows)", ev)


def single_kill(delta: float | None, p: float | None, d: float | None = None, *, size: str = "?",
                full_size: bool = False, baseline: str = "flat + reranker", metric: str = "nDCG@10") -> dict:
    """The single kill criterion: flat + reranker beats HCR at the full corpus size (p < 0.05): kill. HCR ahead
    with p < 0.05 and Cohen's d >= 0.3: go; anything else: inconclusive. At a smaller size the same rule is
    applied and the text says the full size was not run."""
    crit = f"{baseline} beats HCR on {metric} at the full corpus size with p < {ALPHA}: kill"
    dl, pp, dd = _num(delta), _num(p), _num(d)
    ev = {"delta": dl, "p_holm": pp, "cohens_d": dd, "size": size, "full_size": bool(full_size)}
    if dl is None:
        return hypothesis("kill", "Single kill criterion", crit, NOT_RUN,
                          "not run: HCR or the kill baseline has no scores", ev)
    where = "" if full_size else f" (at size {size}; the full size was not run)"
    if dl < 0 and pp is not None and pp < ALPHA:
        return hypothesis("kill", "Single kill criterion", crit, KILL,
                          f"HCR loses to {baseline} by {-dl:.3f} {metric} ({_p(pp)}){where}: kill", ev)
    ok, why = improvement(dl, pp, dd, 0.0)
    if ok:
        return hypothesis("kill", "Single kill criterion", crit, GO,
                          f"HCR beats {baseline} by {dl:.3f} {metric} ({_p(pp)}, d = {dd:.2f}){where}", ev)
    return hypothesis("kill", "Single kill criterion", crit, INCONCLUSIVE,
                      f"HCR {'trails' if dl < 0 else 'leads'} {baseline} by {abs(dl):.3f} {metric} ({_p(pp)})"
                      f"{where}; no significant difference" + (f" ({why})" if dl > 0 else ""), ev)


def overall(checkpoints: Sequence[dict], hypotheses: Sequence[dict]) -> str:
    """Any kill (checkpoint or hypothesis) is a kill; else the worst hypothesis verdict that ran; no hypothesis
    run: inconclusive (passing checkpoints alone do not make a go)."""
    if any(c["status"] == KILL for c in checkpoints) or any(h["verdict"] == KILL for h in hypotheses):
        return KILL
    ran = [h["verdict"] for h in hypotheses if h["verdict"] != NOT_RUN]
    for v in VERDICT_ORDER:
        if v in ran:
            return v
    return INCONCLUSIVE
