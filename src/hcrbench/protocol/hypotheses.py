"""The design's hypotheses as pure rules on plain numbers: H1a, H1b, H1c, the failure rate, the corpus-size rule
and the single kill criterion (rules.py has the shared semantics; docs/protocol.md the table).

A negative result of H1a, H1b, H1c or the failure rate is ``no-go``: "a specific component needs fixing"
(``component`` names it), never a verdict on the architecture. Only the single kill criterion says ``kill``, and
only at the full corpus size; at a smaller size it says ``not decidable`` and names the command that decides it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hcrbench.protocol.rules import (
    ALPHA,
    FAIL_CONCERN,
    FAIL_GOOD,
    FAIL_OK,
    GO,
    H1A_MIN_RATE,
    H1A_SOFT,
    H1B_ENTITY,
    H1B_OVER_RERANK,
    H1B_OVER_SINGLE,
    H1C_GO_R,
    H1C_KILL_R,
    INCONCLUSIVE,
    KILL,
    LINKS_GAIN,
    MIN_CONDITIONS,
    MIN_D,
    MODEL_TOL,
    NOGO,
    NOT_RUN,
    ORACLE_MAX_FAIL,
    SOFT,
    UNDECIDABLE,
    _ci,
    _f,
    _num,
    _p,
    fisher_ci,
    hypothesis,
    improvement,
    n_to_decide_mean,
    n_to_decide_rate,
    pearson,
    significant,
    wilson,
)

SIZES_COMMAND = "hcrbench quickstart --sizes small,medium,full"


def oracle_gate(oracle_failure: float | None, n: int | None = None) -> str | None:
    """Why H1a and the failure rate cannot be judged (None when they can): the oracle context (the cheapest
    evidence cover) must fail <= 5% of the budget-feasible queries at 400 tokens."""
    v = _num(oracle_failure)
    if v is None:
        return "not decidable: no oracle row (eval.json sufficiency.systems.oracle)"
    if v > ORACLE_MAX_FAIL:
        return (f"not decidable: the oracle context fails {v:.0%} of {n} budget-feasible queries at 400 tokens "
                f"(> {ORACLE_MAX_FAIL:.0%}): the sufficiency measure, not the system, would be judged")
    return None


def h1a(hcr_400: float | None, rerank_400: float | None, flat_600: float | None, low: float | None = None,
        high: float | None = None, n: int | None = None, oracle_failure: float | None = None,
        n_feasible: int | None = None, why_missing: str = "no sufficiency results") -> dict:
    """H1a: HCR@400 >= flat + reranker@400 (non-inferior: the 95% CI of the difference above -0.05), >= 55%, and
    >= flat@600: go; within 5 points of flat + reranker@400 or a go bound missed: soft no-go; more than 5 points
    below and significantly below (the 95% CI wholly below zero): no-go (the context component needs fixing).
    Judged only when the oracle context
    fails <= 5% of feasible queries."""
    crit = (f"HCR@400 >= flat+reranker@400 (95% CI of the difference > -{H1A_SOFT}), >= {H1A_MIN_RATE:.0%} and "
            f">= flat@600: go; within {H1A_SOFT:.0%}: soft no-go; more than {H1A_SOFT:.0%} below with the CI "
            f"wholly below 0: no-go")
    h, r, f6, lo, hi = _num(hcr_400), _num(rerank_400), _num(flat_600), _num(low), _num(high)
    ev = {"hcr@400": h, "flat+reranker@400": r, "flat@600": f6, "oracle_failure@400": _num(oracle_failure)}
    kw = dict(n=n, interval=(lo, hi) if lo is not None else None,
              interval_kind="normal 95% of the per-query paired difference (HCR - flat+reranker @400)",
              component="context selection")
    name = "Sufficiency under a 400-token budget"
    if h is None or r is None:
        return hypothesis("H1a", name, crit, NOT_RUN, f"not run: {why_missing}", ev, **kw)
    gate = oracle_gate(oracle_failure, n_feasible)
    if gate is not None:
        return hypothesis("H1a", name, crit, UNDECIDABLE, f"{gate} (HCR@400 {h:.3f} vs flat + reranker@400 "
                                                          f"{r:.3f})", ev, **kw)
    gap = h - r
    words = f"HCR@400 {h:.3f} vs flat + reranker@400 {r:.3f} ({gap:+.3f}, {_ci(lo, hi)}, n {n})"
    if gap < -H1A_SOFT:
        # "worse by > 5%" as every comparison is read (rules.py): the difference past the margin AND significant
        # (the 95% CI wholly below zero). The CI wholly below -0.05 (before): a degraded control that loses 30%
        # of the kill baseline's sufficient contexts (-0.076 expected at a 0.25 base rate) got no-go in 7% of
        # draws at n = 59 (docs/protocol.md, simulation)
        if hi is not None and hi < 0:
            return hypothesis("H1a", name, crit, NOGO, f"{words}: more than {H1A_SOFT:.0%} below, significantly; "
                                                        f"the context component needs fixing", ev, **kw)
        need = n_to_decide_mean(gap, lo, hi, n or 0, 0.0) if lo is not None and hi is not None else None
        return hypothesis("H1a", name, crit, UNDECIDABLE, f"not decidable at n = {n}: {words}; more than "
                          f"{H1A_SOFT:.0%} below but the interval reaches 0"
                          + (f"; n >= {need:,} would decide it" if need else ""), ev, **kw)
    misses = []
    if gap < 0:
        misses.append(f"{-gap:.3f} below flat + reranker@400")
    if lo is None or lo <= -H1A_SOFT:
        misses.append(f"non-inferiority not shown (CI low {_f(lo)} <= -{H1A_SOFT})")
    if h < H1A_MIN_RATE:
        misses.append(f"below {H1A_MIN_RATE:.0%}")
    if f6 is None:
        misses.append("flat@600 not run")
    elif h < f6:
        misses.append(f"below flat@600 ({f6:.3f})")
    if not misses:
        return hypothesis("H1a", name, crit, GO, f"{words}, >= {H1A_MIN_RATE:.0%} and >= flat@600 {f6:.3f}: go",
                          ev, **kw)
    verdict = INCONCLUSIVE if misses == ["flat@600 not run"] else SOFT
    return hypothesis("H1a", name, crit, verdict, f"{words}: " + "; ".join(misses), ev, **kw)


def h1b(vs_single: dict[str, dict[str, Any]], vs_rerank: dict[str, Any] | None,
        entity_over_rerank: float | None, why_missing: str = "the single-path ablations were not run",
        chosen: str | None = None) -> dict:
    """H1b: the dual path beats each single path (so the best one) by >= 0.03 nDCG@10 and flat + reranker by
    >= 0.05 (each significant: Holm p < 0.05 within its family, CI above zero, Cohen's d >= 0.3), and flat +
    reranker by >= 0.08 on entity-spanning queries: go. The dual path no better than the best single path
    (its difference to one of them <= 0): no-go (the dual path needs fixing). Otherwise soft no-go.

    ``vs_single``: ``{single path: {"delta", "p_holm", "ci_low", "ci_high", "d", "n"}}`` (Holm over the single
    paths: none is picked on the test split); ``vs_rerank`` the same against flat + reranker. ``chosen``: the
    single path the dev split chose (:mod:`devselect`): the dual path is then judged against it alone, one
    comparison (its raw p is its Holm p in a family of one), and the vs-each-path Holm results stay as supporting
    evidence."""
    crit = (f"dual - each single path >= +{H1B_OVER_SINGLE} and dual - flat+reranker >= +{H1B_OVER_RERANK} "
            f"nDCG@10 (significant, d >= {MIN_D}); entity-spanning >= +{H1B_ENTITY}")
    ev: dict[str, Any] = {}
    for name, c in vs_single.items():
        ev[f"dual - {name}"] = _num(c.get("delta"))
        ev[f"Holm p (vs {name})"] = _num(c.get("p_holm"))
    vr = vs_rerank or {}
    ev.update({"dual - flat+reranker": _num(vr.get("delta")), "Holm p (vs flat+reranker)": _num(vr.get("p_holm")),
               "entity-spanning: dual - flat+reranker": _num(entity_over_rerank)})
    singles = {n: c for n, c in vs_single.items() if _num(c.get("delta")) is not None}
    if not singles:
        return hypothesis("H1b", "Dual path", crit, NOT_RUN, f"not run: {why_missing}", ev, component="dual path")
    basis = ""
    if chosen in singles:  # dev chose the single path: one comparison on test
        ev["single path chosen on dev"] = chosen
        ev["vs each single path (Holm, supporting)"] = "; ".join(
            f"{n}: {_num(c.get('delta')):+.3f} ({_p(_num(c.get('p_holm')))})" for n, c in singles.items())
        c0 = singles[chosen]
        singles = {chosen: {**c0, "p_holm": c0.get("p", c0.get("p_holm"))}}
        basis = f"vs {chosen} (chosen on dev; one comparison): "
    closest = min(singles, key=lambda n: singles[n]["delta"])  # the best single path on this split
    c = singles[closest]
    kw = dict(n=c.get("n"), interval=(c.get("ci_low"), c.get("ci_high")),
              interval_kind=f"paired bootstrap 95% (dual - {closest})", component="dual path")
    oks = {n: improvement(s["delta"], s.get("p_holm"), s.get("ci_low"), s.get("ci_high"), s.get("d"),
                          H1B_OVER_SINGLE) for n, s in singles.items()}
    ok2, t2 = improvement(vr.get("delta"), vr.get("p_holm"), vr.get("ci_low"), vr.get("ci_high"), vr.get("d"),
                          H1B_OVER_RERANK)
    e = _num(entity_over_rerank)
    ok3 = e is not None and e >= H1B_ENTITY
    if e is None and c["delta"] > 0:  # go is unreachable without entity-spanning queries: not judged
        return hypothesis("H1b", "Dual path", crit, NOT_RUN, "not run: no entity-spanning queries (the design's third "
                          f"clause); vs {closest}: {oks[closest][1]}", ev, **kw)
    text = basis + "; ".join(f"vs {n}: {t}" for n, (_, t) in oks.items()) + f"; vs flat + reranker: {t2}; " \
        f"entity-spanning: {'not run' if e is None else f'{e:+.3f}'}"
    if all(ok for ok, _ in oks.values()) and ok2 and ok3:
        return hypothesis("H1b", "Dual path", crit, GO, "the dual path pays: " + text, ev, **kw)
    if c["delta"] <= 0:
        return hypothesis("H1b", "Dual path", crit, NOGO, f"the dual path is no better than {closest}: " + text,
                          ev, **kw)
    return hypothesis("H1b", "Dual path", crit, SOFT, text, ev, **kw)


def distinct_conditions(names: Sequence[str], accuracy: Sequence[float], ndcg: Sequence[float], digits: int = 3
                        ) -> tuple[list[str], list[float], list[float]]:
    """Conditions with distinct routing accuracy (rounded to ``digits``): conditions sharing one accuracy (one
    tree, the same routing) are one point, their nDCG averaged, so r measures only what routing can explain."""
    groups: dict[float, list[int]] = {}
    for i, a in enumerate(accuracy):
        if _num(a) is not None and _num(ndcg[i]) is not None:
            groups.setdefault(round(float(a), digits), []).append(i)
    keys = sorted(groups)
    return ([" = ".join(names[i] for i in groups[k]) for k in keys], [float(k) for k in keys],
            [sum(float(ndcg[i]) for i in groups[k]) / len(groups[k]) for k in keys])


def h1c(accuracy: Sequence[float], ndcg: Sequence[float], links_gain: float | None = None,
        observed: float | None = None, predicted: float | None = None, names: Sequence[str] | None = None,
        links_basis: str | None = None) -> dict:
    """H1c: routing accuracy explains retrieval quality. Pearson r (accuracy, nDCG@10) across >= 3 conditions of
    distinct routing accuracy, with its Fisher 95% interval: r >= 0.7 with the interval above 0.3: go; the whole
    interval below 0.3: no-go (routing does not explain quality); otherwise soft no-go (0.3 <= r < 0.7) or not
    decidable. A go drops to soft no-go when cross-links are worth < 15% on entity-spanning queries or the
    observed accuracy is more than 10% BELOW the (1 - eps)^d model (above it is a positive finding)."""
    crit = (f"Pearson r(routing accuracy, nDCG@10) across conditions of distinct accuracy >= {H1C_GO_R} go, "
            f"Fisher CI wholly < {H1C_KILL_R} no-go; cross-links >= +{LINKS_GAIN:.0%} sufficiency@400 on "
            f"entity-spanning; "
            f"observed accuracy not > {MODEL_TOL:.0%} below (1 - eps)^d")
    names = list(names) if names is not None else [f"c{i}" for i in range(len(accuracy))]
    conds, acc, nd = distinct_conditions(names, accuracy, ndcg)
    r = pearson(acc, nd) if len(acc) >= MIN_CONDITIONS else None
    iv = fisher_ci(r, len(acc)) if r is not None else None
    o, pr = _num(observed), _num(predicted)
    shortfall = (pr - o) / pr if o is not None and pr is not None and pr > 0 else None
    lg = _num(links_gain)
    ev = {"conditions": len(accuracy), "distinct_conditions": len(acc), "condition_groups": "; ".join(conds),
          "pearson_r": r, "links_gain_entity_spanning": lg, "observed_accuracy": o, "predicted_(1-eps)^d": pr,
          "model_shortfall": shortfall}
    extras = []
    basis = links_basis or "relative nDCG@10 on entity-spanning (answer accuracy is not measured)"
    ev["links_gain_basis"] = basis
    if lg is not None:
        extras.append(f"cross-links {lg:+.0%} {basis} ({'>=' if lg >= LINKS_GAIN else '<'} {LINKS_GAIN:.0%})")
    elif links_basis:
        extras.append(f"cross-links: {basis}")
    if shortfall is not None:
        extras.append(f"observed accuracy {o:.3f} vs (1 - eps)^d {pr:.3f} ("
                      + ("on the model" if abs(shortfall) < 0.005 else f"{shortfall:.0%} below" if shortfall > 0
                         else f"{-shortfall:.0%} above: a positive finding")
                      + ")")
    tail = ("; " + "; ".join(extras)) if extras else ""
    kw = dict(n=len(acc), interval=iv, interval_kind="Fisher-z 95% of r", component="routing")
    name = "Routing explains quality"
    if r is None:
        why = (f"{len(acc)} condition(s) of distinct routing accuracy ({len(accuracy)} logged); the correlation "
               f"needs >= {MIN_CONDITIONS}" if len(acc) < MIN_CONDITIONS else "no variance across conditions")
        return hypothesis("H1c", name, crit, NOT_RUN, f"not run: {why}{tail}", ev, **kw)
    ivs = f"Fisher 95% [{iv[0]:+.2f}, {iv[1]:+.2f}]" if iv else "no interval with 3 points"
    words = f"r = {r:.2f} over {len(acc)} conditions of distinct routing accuracy ({ivs})"
    if iv is not None and iv[1] < H1C_KILL_R:
        return hypothesis("H1c", name, crit, NOGO, f"{words}: routing accuracy does not explain quality{tail}", ev,
                          **kw)
    if r < H1C_KILL_R or iv is None or (r >= H1C_GO_R and iv[0] <= H1C_KILL_R):
        return hypothesis("H1c", name, crit, UNDECIDABLE, f"not decidable at n = {len(acc)} conditions: {words}"
                          f"{tail}", ev, **kw)
    if r < H1C_GO_R:
        return hypothesis("H1c", name, crit, SOFT, f"{words}{tail}", ev, **kw)
    weak = (lg is not None and lg < LINKS_GAIN) or (shortfall is not None and shortfall > MODEL_TOL)
    return hypothesis("H1c", name, crit, SOFT if weak else GO, f"{words}{tail}", ev, **kw)


def failure_rate(rate: float | None, n: int = 0, system: str = "HCR", oracle_failure: float | None = None,
                 why_missing: str = "no evidence-based sufficiency at 400 tokens") -> dict:
    """The failure rate on budget-feasible queries at 400 tokens (Wilson 95% interval): <= 20% go (<= 10% good),
    <= 30% soft no-go (concerning), the whole interval above 30%: no-go (context selection needs fixing); above
    30% with an interval that reaches it: not decidable. Judged only when the oracle context fails <= 5%."""
    crit = (f"{system} failure rate on budget-feasible queries @400: <= {FAIL_OK:.0%} go, <= {FAIL_CONCERN:.0%} "
            f"soft no-go, Wilson CI wholly > {FAIL_CONCERN:.0%} no-go")
    v = _num(rate)
    iv = wilson(v * n, n) if v is not None and n else None
    ev = {"failure_rate": v, "n_feasible": n, "oracle_failure@400": _num(oracle_failure)}
    kw = dict(n=n or None, interval=iv, interval_kind="Wilson 95%", component="context selection")
    name = "Failure rate on budget-feasible queries"
    if v is None:
        return hypothesis("failure_rate", name, crit, NOT_RUN, f"not run: {why_missing}", ev, **kw)
    words = f"{system} fails {v:.0%} of {n} budget-feasible queries at 400 tokens " \
            f"(Wilson 95% [{iv[0]:.2f}, {iv[1]:.2f}])" if iv else f"{system} fails {v:.0%}"
    gate = oracle_gate(oracle_failure, n)
    if gate is not None:
        return hypothesis("failure_rate", name, crit, UNDECIDABLE, f"{gate} ({words})", ev, **kw)
    if v <= FAIL_OK:
        return hypothesis("failure_rate", name, crit, GO, f"{words}: {'good' if v <= FAIL_GOOD else 'acceptable'}",
                          ev, **kw)
    if v <= FAIL_CONCERN:
        return hypothesis("failure_rate", name, crit, SOFT, f"{words}: concerning", ev, **kw)
    if iv is not None and iv[0] > FAIL_CONCERN:
        return hypothesis("failure_rate", name, crit, NOGO, f"{words}: context selection needs fixing", ev, **kw)
    need = n_to_decide_rate(v, FAIL_CONCERN)
    return hypothesis("failure_rate", name, crit, UNDECIDABLE, f"not decidable at n = {n}: {words}"
                      + (f"; n >= {need:,} would decide it" if need else ""), ev, **kw)


def corpus_size(points: Sequence[dict[str, Any]] | None, at: str = "medium", why_missing: str | None = None) -> dict:
    """The corpus-size rule: a statistical advantage of HCR over the kill baseline at the medium size on
    entity-spanning and multi-hop queries (p < 0.05, CI above zero, d >= 0.3): go; a significant disadvantage
    there: no-go; otherwise inconclusive. The trend of the all-query delta across sizes is reported beside it.
    ``points``: growth.json's, each with ``subset`` = {"delta", "p", "ci_low", "ci_high", "d", "n"}."""
    crit = (f"HCR - kill baseline at {at} on entity-spanning + multi-hop queries: significant advantage "
            f"(p < {ALPHA}, CI > 0, d >= {MIN_D}) go; significant disadvantage no-go")
    pts = list(points or [])
    ev = {f"delta@{p.get('size')}": _num(p.get("delta")) for p in pts}
    trend = [f"{p.get('size')} {_num(p.get('delta')):+.3f}" for p in pts if _num(p.get("delta")) is not None]
    tail = f" (all queries: {' -> '.join(trend)})" if trend else ""
    pt = next((p for p in pts if p.get("size") == at), None)
    sub = (pt or {}).get("subset") or {}
    if pt is None or _num(sub.get("delta")) is None:
        why = why_missing or (f"needs the comparison at the {at} size ({SIZES_COMMAND})" if pt is None else
                              f"no entity-spanning / multi-hop queries at {at}")
        return hypothesis("corpus_size", "Corpus size", crit, NOT_RUN, f"not run: {why}{tail}", ev,
                          component="scaling")
    d, p, lo, hi = _num(sub["delta"]), _num(sub.get("p")), _num(sub.get("ci_low")), _num(sub.get("ci_high"))
    ev.update({f"subset@{at}": d, f"subset p@{at}": p})
    kw = dict(n=sub.get("n"), interval=(lo, hi), interval_kind=f"paired bootstrap 95% (subset at {at})",
              component="scaling")
    words = f"at {at}, entity-spanning + multi-hop: {d:+.3f} ({_p(p, 'raw')}, {_ci(lo, hi)}, n {sub.get('n')})"
    ok, _ = improvement(d, p, lo, hi, sub.get("d"), 0.0)
    if ok:
        return hypothesis("corpus_size", "Corpus size", crit, GO, f"{words}: a statistical advantage{tail}", ev, **kw)
    if d is not None and d < 0 and significant(p, lo, hi, -1):
        return hypothesis("corpus_size", "Corpus size", crit, NOGO, f"{words}: a significant disadvantage{tail}", ev,
                          **kw)
    return hypothesis("corpus_size", "Corpus size", crit, INCONCLUSIVE, f"{words}: no statistical advantage{tail}",
                      ev, **kw)


def single_kill(delta: float | None, p_holm: float | None, low: float | None = None, high: float | None = None,
                d: float | None = None, *, n: int | None = None, size: str = "?", full_size: bool = False,
                baseline: str = "flat + reranker", metric: str = "nDCG@10", tested_on: str = "") -> dict:
    """The single kill criterion: flat + reranker beats HCR at the FULL corpus size (Holm p < 0.05 and the 95%
    CI below zero): kill, the architecture is invalidated. HCR ahead (significant, d >= 0.3): go; otherwise
    inconclusive. At a smaller size nothing is decided: ``not decidable`` with the figures as a preview and the
    command that decides it."""
    crit = f"{baseline} beats HCR on {metric} at the full corpus size (Holm p < {ALPHA}, 95% CI < 0): kill"
    dl, pp, lo, hi, dd = _num(delta), _num(p_holm), _num(low), _num(high), _num(d)
    ev = {"delta": dl, "p_holm": pp, "ci_low": lo, "ci_high": hi, "cohens_d": dd, "size": size,
          "full_size": bool(full_size), "tested_on": tested_on}
    kw = dict(n=n, interval=(lo, hi) if lo is not None else None,
              interval_kind="paired bootstrap 95% (the experiment's comparison)", component="architecture")
    name = "Single kill criterion"
    if dl is None:
        return hypothesis("kill", name, crit, NOT_RUN, "not run: HCR or the kill baseline has no scores", ev, **kw)
    words = f"HCR {'trails' if dl < 0 else 'leads'} {baseline} by {abs(dl):.3f} {metric} ({_p(pp)}, {_ci(lo, hi)}" \
            f", d = {_f(dd, 2)}, n {n}{', ' + tested_on if tested_on else ''})"
    lost = dl < 0 and significant(pp, lo, hi, -1)
    ok, why = improvement(dl, pp, lo, hi, dd, 0.0)
    if not full_size:
        would = "kill" if lost else "go" if ok else "inconclusive"
        ev["at_full_size_this_would_be"] = would
        return hypothesis("kill", name, crit, UNDECIDABLE,
                          f"not decidable at size {size}: the kill criterion is judged at the full size "
                          f"(`{SIZES_COMMAND}`); preview: {words}", ev, **kw)
    if lost:
        return hypothesis("kill", name, crit, KILL, f"{words}: kill, the architecture is invalidated", ev, **kw)
    if ok:
        return hypothesis("kill", name, crit, GO, f"{words}: HCR beats the kill baseline", ev, **kw)
    return hypothesis("kill", name, crit, INCONCLUSIVE, f"{words}: no significant difference"
                      + (f" ({why})" if dl > 0 else ""), ev, **kw)
