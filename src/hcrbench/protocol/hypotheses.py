"""The design's hypotheses as pure rules on plain numbers: H1a, H1b, H1c, the failure rate, the corpus-size rule
and the single kill criterion (rules.py has the shared semantics; docs/protocol.md the table).

A negative result of H1a, H1b, H1c or the failure rate is ``no-go``: "a specific component needs fixing"
(``component`` names it), never a verdict on the architecture. Only the single kill criterion says ``kill``, and
only at the full corpus size; at a smaller size it says ``not decidable`` and names the command that decides it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import (
    FAIL_CONCERN,
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
    alpha_level,
    fisher_ci,
    hypothesis,
    pct,
    pearson,
    wilson,
    z_level,
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


def harness_gate(passage_failure: float | None, n: int | None = None, name: str = "passage") -> str | None:
    """Why a sufficiency rule cannot judge (None when it can): the passage-level perfect retriever (the units
    stating the needed facts first, in the subject's own delivery mode) put through the same selection and judge
    fails > 5% of the budget-feasible queries at 400 tokens: a harness defect (units, budget accounting,
    selection or the judge), not a property of any retriever. The perfect *document* ranking gates nothing: a
    ranking of documents cannot say which passage states a fact, and that choice is the system's
    (docs/context.md)."""
    v = _num(passage_failure)
    if v is None or v <= ORACLE_MAX_FAIL:
        return None
    of_n = f" of {n}" if n else ""
    return (f"not decidable: harness defect: the passage-level perfect retriever (control row {name}) fails {v:.0%}"
            f"{of_n} budget-feasible queries at 400 tokens (> {ORACLE_MAX_FAIL:.0%}): units, budget accounting, "
            f"selection or the judge fail the right passages")


def _unpaired(a: float, b: float, n: int) -> tuple[float, float]:
    """Normal 95% interval of the difference of two proportions from ``n`` queries each (unpaired)."""
    se = math.sqrt(max(a * (1 - a), 0.0) / n + max(b * (1 - b), 0.0) / n)
    z = z_level()
    return a - b - z * se, a - b + z * se


def h1a(hcr_400: float | None, rerank_400: float | None, flat_600: float | None, low: float | None = None,
        high: float | None = None, n: int | None = None, oracle_failure: float | None = None,
        n_feasible: int | None = None, why_missing: str = "no sufficiency results", *, system: str = "the system",
        perfect_failure: float | None = None, passage_failure: float | None = None, passage: str = "passage",
        basis: str | None = None) -> dict:
    """H1a on one standard of evidence: go when the 95% interval of system - flat+reranker @400 lies above
    -0.05 (non-inferior), the Wilson interval of the system's rate above 55% and the interval of system - flat@600
    above -0.05; no-go (the context component needs fixing) when the interval of system - flat+reranker lies
    wholly below -0.05; soft no-go when a go clause is surely missed; else not decidable at n (needs ~ M). Judged
    only when the oracle context and the passage-level perfect retriever (``passage_failure``, row ``passage``)
    each fail <= 5% of feasible queries; the perfect document ranking (``perfect_failure``) is reported, never a
    gate. ``basis``: the one query set both systems are compared on (stated in the row)."""
    crit = (f"{system}@400 - flat+reranker@400: {pct()} CI > -{H1A_SOFT} with Wilson CI of {system}@400 > "
            f"{H1A_MIN_RATE:.0%} and CI of {system}@400 - flat@600 > -{H1A_SOFT}: go; CI wholly < -{H1A_SOFT}: "
            f"no-go; a go clause surely missed: soft no-go")
    h, r, f6, lo, hi = _num(hcr_400), _num(rerank_400), _num(flat_600), _num(low), _num(high)
    ev = {"hcr@400": h, "flat+reranker@400": r, "flat@600": f6, "oracle_failure@400": _num(oracle_failure),
          "passage_failure@400": _num(passage_failure), "perfect_failure@400": _num(perfect_failure)}
    if basis:
        ev["basis"] = basis
    kw = dict(n=n, interval=(lo, hi) if lo is not None else None,
              interval_kind=f"normal {pct()} of the per-query paired difference ({system} - flat+reranker @400)",
              component="context selection")
    name = "Sufficiency under a 400-token budget"
    if h is None or r is None:
        return hypothesis("H1a", name, crit, NOT_RUN, f"not run: {why_missing}", ev, **kw)
    gate = oracle_gate(oracle_failure, n_feasible) or harness_gate(passage_failure, n_feasible, passage)
    if gate is not None:
        return hypothesis("H1a", name, crit, UNDECIDABLE, f"{gate} ({system}@400 {h:.3f} vs flat + reranker@400 "
                                                          f"{r:.3f})", ev, **kw)
    gap = h - r
    rule = reg.get("H1a")
    words = f"{system}@400 {h:.3f} vs flat + reranker@400 {r:.3f} ({gap:+.3f}, {_ci(lo, hi)}, n {n}" \
            + (f", on {basis})" if basis else ")")
    code = reg.decide_one(rule, lo, hi)
    if code == reg.NEG:
        return hypothesis("H1a", name, crit, NOGO, f"{words}: surely more than {H1A_SOFT:.0%} below; the context "
                                                    f"component needs fixing", ev, **kw)
    clauses = {"non-inferior to flat+reranker (CI > -0.05)": code}
    w = wilson(h * n, n) if n else None
    clauses[f">= {H1A_MIN_RATE:.0%} (Wilson {_ci(*w, signed=False) if w else '—'})"] = \
        reg.decide_one(reg.H1A_RATE, *(w or (None, None)))
    if f6 is not None and n:
        u = _unpaired(h, f6, n)
        ev["flat@600 interval"] = [u[0], u[1]]
        clauses[f"non-inferior to flat@600 {f6:.3f} (unpaired {_ci(*u)})"] = reg.decide_one(rule, *u)
    missed = [k for k, c in clauses.items() if c == reg.NEG]
    open_ = [k for k, c in clauses.items() if c == reg.UND]
    need = reg.n_for_power(reg.sd_from(lo, hi, n), rule.margin)
    if missed:
        return hypothesis("H1a", name, crit, SOFT, f"{words}: surely missed: " + "; ".join(missed), ev, **kw)
    if open_:
        return hypothesis("H1a", name, crit, UNDECIDABLE, f"{reg.text_undecidable(n, need)}: {words}; open: "
                          + "; ".join(open_), ev, **kw)
    if f6 is None:
        return hypothesis("H1a", name, crit, INCONCLUSIVE, f"{words}: flat@600 not run (the other clauses hold)",
                          ev, **kw)
    return hypothesis("H1a", name, crit, GO, f"{words}: every clause's interval holds: " + "; ".join(clauses), ev,
                      **kw)


def _clause(c: dict[str, Any] | None, which: str) -> tuple[int, str]:
    """One H1b clause judged on its interval (raw difference vs its margin): (code, words)."""
    rule = reg.H1B_CLAUSES[which]
    if not c or _num(c.get("delta")) is None:
        return reg.UND, "not run"
    lo, hi = _num(c.get("ci_low")), _num(c.get("ci_high"))
    code = reg.decide_one(rule, lo, hi)
    d = _num(c.get("d"))
    what = {reg.POS: "surely positive", reg.NEG: f"surely short of +{rule.nogo:.2f}",
            reg.MID: f"surely positive but surely short of +{rule.nogo:.2f}",
            reg.UND: f"interval reaches 0 and +{rule.nogo:.2f}"}[code]
    return code, f"{_num(c['delta']):+.3f} ({_ci(lo, hi)}, d = {_f(d, 2)} reported; {what})"


def h1b(vs_single: dict[str, dict[str, Any]], vs_rerank: dict[str, Any] | None,
        entity_over_rerank: float | dict[str, Any] | None,
        why_missing: str = "the single-path ablations were not run", chosen: str | None = None) -> dict:
    """H1b: the dual path against each single path (margin 0.03), flat + reranker (0.05) and flat + reranker on
    entity-spanning queries (0.08), each a raw nDCG@10 difference judged on its 95% interval (Cohen's d reported,
    not required). Go: every interval above zero (and the design's power at the margin, :mod:`operating`);
    no-go (the dual path needs fixing): vs a single path the interval lies wholly below +0.03 without being
    surely positive; soft no-go: another clause surely misses its margin; else not decidable.

    ``vs_single``: ``{single path: {"delta", "p_holm", "ci_low", "ci_high", "d", "n"}}``; ``vs_rerank`` the same
    against flat + reranker; ``entity_over_rerank`` the same on entity-spanning queries (a bare float has no
    interval and cannot decide). ``chosen``: the single path the dev split chose (:mod:`devselect`): the dual
    path is then judged against it alone, and the vs-each-path results stay as supporting evidence."""
    crit = (f"dual - each single path, dual - flat+reranker, entity-spanning dual - flat+reranker (raw nDCG@10): "
            f"every {pct()} CI > 0 go; vs a single path CI wholly < +{H1B_OVER_SINGLE}: no-go; a CI wholly below "
            f"+{H1B_OVER_RERANK} / +{H1B_ENTITY}: soft no-go (Cohen's d reported)")
    ev: dict[str, Any] = {}
    for name, c in vs_single.items():
        ev[f"dual - {name}"] = _num(c.get("delta"))
        ev[f"Holm p (vs {name})"] = _num(c.get("p_holm"))
        ev[f"Cohen's d (vs {name})"] = _num(c.get("d"))
    vr = vs_rerank or {}
    ent = entity_over_rerank if isinstance(entity_over_rerank, dict) else \
        ({"delta": entity_over_rerank} if entity_over_rerank is not None else None)
    e = _num((ent or {}).get("delta"))
    ev.update({"dual - flat+reranker": _num(vr.get("delta")), "Holm p (vs flat+reranker)": _num(vr.get("p_holm")),
               "entity-spanning: dual - flat+reranker": e})
    singles = {n: c for n, c in vs_single.items() if _num(c.get("delta")) is not None}
    if not singles:
        return hypothesis("H1b", "Dual path", crit, NOT_RUN, f"not run: {why_missing}", ev, component="dual path")
    basis = ""
    if chosen in singles:  # dev chose the single path: one comparison on test
        ev["single path chosen on dev"] = chosen
        ev["vs each single path (Holm, supporting)"] = "; ".join(
            f"{n}: {_num(c.get('delta')):+.3f} ({_p(_num(c.get('p_holm')))})" for n, c in singles.items())
        singles = {chosen: singles[chosen]}
        basis = f"vs {chosen} (chosen on dev; one comparison): "
    closest = min(singles, key=lambda n: singles[n]["delta"])  # shown as the row's interval
    c = singles[closest]
    method = {"t": "paired t", "bca": "paired BCa bootstrap", "percentile": "paired percentile bootstrap"}.get(
        str(c.get("ci_method") or "t"), str(c.get("ci_method")))
    kw = dict(n=c.get("n"), interval=(c.get("ci_low"), c.get("ci_high")),
              interval_kind=f"{method} {pct()} (dual - {closest})", component="dual path")
    got = {n: _clause(sc, "single") for n, sc in singles.items()}
    g2 = _clause(vr, "rerank")
    g3 = _clause(ent, "entity")
    firsts = (basis + got[chosen][1]) if basis else "; ".join(f"vs {n}: {t}" for n, (_, t) in got.items())
    text = firsts + f"; vs flat + reranker: {g2[1]}; entity-spanning: {g3[1] if e is not None else 'not run'}"
    worse = [n for n, (k, _) in got.items() if k == reg.NEG]
    if worse:
        ev["decided_by"] = ", ".join(f"vs {n}" for n in worse)
        return hypothesis("H1b", "Dual path", crit, NOGO, f"decided by {ev['decided_by']} (the dual path surely "
                          f"short of +{H1B_OVER_SINGLE} over it): " + text, ev, **kw)
    if e is None and all(k == reg.POS for k, _ in got.values()):
        return hypothesis("H1b", "Dual path", crit, NOT_RUN, "not run: no entity-spanning queries (the design's third "
                          f"clause); vs {closest}: {got[closest][1]}", ev, **kw)
    named = [(f"vs {n}", k) for n, (k, _) in got.items()] + [("vs flat + reranker", g2[0]), ("entity-spanning", g3[0])]
    codes = [k for _, k in named]
    if all(k == reg.POS for k in codes):
        ev["decided_by"] = "every clause"
        return hypothesis("H1b", "Dual path", crit, GO, "decided by every clause: the dual path pays: " + text, ev,
                          **kw)
    if any(k in (reg.NEG, reg.MID) for k in codes):
        ev["decided_by"] = ", ".join(w for w, k in named if k in (reg.NEG, reg.MID))
        return hypothesis("H1b", "Dual path", crit, SOFT, f"decided by {ev['decided_by']}: a clause surely misses "
                          "its margin: " + text, ev, **kw)
    need = reg.n_for_power(reg.sd_from(_num(c.get("ci_low")), _num(c.get("ci_high")), c.get("n")), H1B_OVER_SINGLE)
    return hypothesis("H1b", "Dual path", crit, UNDECIDABLE, f"{reg.text_undecidable(c.get('n'), need)}: " + text,
                      ev, **kw)


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
    distinct routing accuracy, with its Fisher 95% interval, which must exclude the bands it does not decide: the
    whole interval >= 0.7: go; wholly < 0.3: no-go (routing does not explain quality); wholly between: soft no-go;
    else not decidable at n conditions. Cross-links (>= 15% on entity-spanning queries) and the observed accuracy
    vs the (1 - eps)^d model are reported beside it; without an interval they decide nothing."""
    crit = (f"Pearson r(routing accuracy, nDCG@10) across conditions of distinct accuracy: Fisher CI wholly >= "
            f"{H1C_GO_R} go, wholly < {H1C_KILL_R} no-go, wholly between soft no-go; reported: cross-links >= +{LINKS_GAIN:.0%} sufficiency@400 on "
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
    kw = dict(n=len(acc), interval=iv, interval_kind=f"Fisher-z {pct()} of r", component="routing")
    name = "Routing explains quality"
    if r is None:
        why = (f"{len(acc)} condition(s) of distinct routing accuracy ({len(accuracy)} logged); the correlation "
               f"needs >= {MIN_CONDITIONS}" if len(acc) < MIN_CONDITIONS else "no variance across conditions")
        return hypothesis("H1c", name, crit, NOT_RUN, f"not run: {why}{tail}", ev, **kw)
    ivs = f"Fisher {pct()} [{iv[0]:+.2f}, {iv[1]:+.2f}]" if iv else "no interval with 3 points"
    words = f"r = {r:.2f} over {len(acc)} conditions of distinct routing accuracy ({ivs})"
    code = reg.decide_one(reg.get("H1c"), *(iv or (None, None)))
    if code == reg.NEG:
        return hypothesis("H1c", name, crit, NOGO, f"{words}: routing accuracy does not explain quality{tail}", ev,
                          **kw)
    if code == reg.MID:
        return hypothesis("H1c", name, crit, SOFT, f"{words}: surely between {H1C_KILL_R} and {H1C_GO_R}{tail}", ev,
                          **kw)
    if code == reg.UND:
        need = reg.n_for_power_r(H1C_GO_R, -reg.get("H1c").margin)
        return hypothesis("H1c", name, crit, UNDECIDABLE, f"{reg.text_undecidable(len(acc), need, 'conditions')}: "
                          f"{words}{tail}", ev, **kw)
    # cross-links and the (1 - eps)^d model are point figures without an interval: findings, not deciders
    return hypothesis("H1c", name, crit, GO, f"{words}{tail}" + (" (cross-links and the model are reported, not "
                      "decided: no interval)" if extras else ""), ev, **kw)


def failure_rate(rate: float | None, n: int = 0, system: str = "the system", oracle_failure: float | None = None,
                 why_missing: str = "no evidence-based sufficiency at 400 tokens", *,
                 perfect_failure: float | None = None, basis: str = "budget-feasible queries",
                 finding: str | None = None, passage_failure: float | None = None, passage: str = "passage") -> dict:
    """The failure rate at 400 tokens, decided on its Wilson 95% interval: wholly <= 20% go, wholly > 30% no-go
    (context selection needs fixing), wholly between soft no-go (concerning), else not decidable at n (needs ~ M).
    Judged only when the oracle context and the passage-level perfect retriever of the subject's delivery mode
    (``passage_failure``, row ``passage``) each fail <= 5% (else a harness defect, not decidable); the perfect
    document ranking (``perfect_failure``) is reported, never a gate. ``basis`` says which failures are counted
    and on which queries; ``finding`` (the anatomy: retrieval / delivery / selection misses) is reported beside
    it."""
    crit = (f"{system} failure rate on {basis} @400, Wilson {pct()} CI: wholly <= {FAIL_OK:.0%} go, wholly > "
            f"{FAIL_CONCERN:.0%} no-go, wholly between soft no-go")
    v = _num(rate)
    iv = wilson(v * n, n) if v is not None and n else None
    ev = {"failure_rate": v, "n_feasible": n, "oracle_failure@400": _num(oracle_failure),
          "passage_failure@400": _num(passage_failure), "perfect_failure@400": _num(perfect_failure),
          "basis": basis}
    if finding:
        ev["context selection"] = finding
    kw = dict(n=n or None, interval=iv, interval_kind=f"Wilson {pct()}", component="context selection")
    name = "Failure rate on budget-feasible queries"
    if v is None:
        return hypothesis("failure_rate", name, crit, NOT_RUN, f"not run: {why_missing}", ev, **kw)
    words = f"{system} fails {v:.0%} of {n} {basis} at 400 tokens " \
            f"(Wilson {pct()} [{iv[0]:.2f}, {iv[1]:.2f}])" if iv else f"{system} fails {v:.0%}"
    if finding:
        words += f"; {finding}"
    gate = oracle_gate(oracle_failure, n) or harness_gate(passage_failure, n, passage)
    if gate is not None:
        return hypothesis("failure_rate", name, crit, UNDECIDABLE, f"{gate} ({words})", ev, **kw)
    code = reg.decide_one(reg.get("failure_rate"), *(iv or (None, None)))
    if code == reg.POS:
        return hypothesis("failure_rate", name, crit, GO, f"{words}: surely <= {FAIL_OK:.0%}", ev, **kw)
    if code == reg.MID:
        return hypothesis("failure_rate", name, crit, SOFT, f"{words}: concerning", ev, **kw)
    if code == reg.NEG:
        return hypothesis("failure_rate", name, crit, NOGO, f"{words}: context selection needs fixing", ev, **kw)
    need = reg.n_for_power_proportion(reg.get("failure_rate"))
    return hypothesis("failure_rate", name, crit, UNDECIDABLE, f"{reg.text_undecidable(n, need)}: {words}", ev,
                      **kw)


def corpus_size(points: Sequence[dict[str, Any]] | None, at: str = "medium", why_missing: str | None = None) -> dict:
    """The corpus-size rule: a statistical advantage of HCR over the kill baseline at the medium size on
    entity-spanning and multi-hop queries (the 95% CI wholly above zero): go; wholly below: no-go; otherwise
    not decidable at n (needs ~ M, for power 0.8 at +0.03). The trend of the all-query delta across sizes is reported beside it.
    ``points``: growth.json's, each with ``subset`` = {"delta", "p", "ci_low", "ci_high", "d", "n"}."""
    crit = (f"system - kill baseline at {at} on entity-spanning + multi-hop queries (raw nDCG@10 difference): "
            f"{pct()} CI wholly > 0 go; wholly < 0 no-go (Cohen's d reported)")
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
    method = {"t": "paired t", "bca": "paired BCa bootstrap", "percentile": "paired percentile bootstrap"}.get(
        str(sub.get("ci_method") or "t"), str(sub.get("ci_method")))
    kw = dict(n=sub.get("n"), interval=(lo, hi), interval_kind=f"{method} {pct()} (subset at {at})",
              component="scaling")
    words = f"at {at}, entity-spanning + multi-hop: {d:+.3f} ({_p(p, 'raw')}, {_ci(lo, hi)}, n {sub.get('n')})"
    code = reg.decide_one(reg.get("corpus_size"), lo, hi)
    if code == reg.POS:
        return hypothesis("corpus_size", "Corpus size", crit, GO, f"{words}: a statistical advantage{tail}", ev, **kw)
    if code == reg.NEG:
        return hypothesis("corpus_size", "Corpus size", crit, NOGO, f"{words}: a significant disadvantage{tail}", ev,
                          **kw)
    need = reg.n_for_power(reg.sd_from(lo, hi, sub.get("n")), reg.get("corpus_size").margin)
    return hypothesis("corpus_size", "Corpus size", crit, UNDECIDABLE,
                      f"{reg.text_undecidable(sub.get('n'), need)}: {words}: no statistical advantage{tail}", ev, **kw)


def single_kill(delta: float | None, p_holm: float | None, low: float | None = None, high: float | None = None,
                d: float | None = None, *, n: int | None = None, size: str = "?", full_size: bool = False,
                baseline: str = "flat + reranker", metric: str = "nDCG@10", tested_on: str = "",
                system: str = "the system", interval_kind: str = "paired t 95% (the kill test, its own family)") -> dict:
    """The single kill criterion, one pre-specified test in a family of its own (``p_holm`` is its own p): the
    kill baseline beats the system at the FULL corpus size (p < 0.05 and the whole 95% CI below zero): kill, the
    architecture is invalidated; the whole CI above zero (p < 0.05): go (Cohen's d reported, not required);
    otherwise not decidable at n (needs ~ M for power 0.8 at 0.03). At a smaller size nothing is decided: ``not
    decidable`` with the figures as a preview and the command that decides it."""
    crit = f"{baseline} beats {system} on {metric} at the full corpus size (p < {alpha_level():.3g}, {pct()} CI wholly < 0): kill; " \
           f"CI wholly > 0: go"
    dl, pp, lo, hi, dd = _num(delta), _num(p_holm), _num(low), _num(high), _num(d)
    ev = {"delta": dl, "p_holm": pp, "ci_low": lo, "ci_high": hi, "cohens_d": dd, "size": size,
          "full_size": bool(full_size), "tested_on": tested_on}
    kw = dict(n=n, interval=(lo, hi) if lo is not None else None, interval_kind=interval_kind,
              component="architecture")
    name = "Single kill criterion"
    if dl is None:
        return hypothesis("kill", name, crit, NOT_RUN, f"not run: {system} or the kill baseline has no scores", ev,
                          **kw)
    words = f"{system} {'trails' if dl < 0 else 'leads'} {baseline} by {abs(dl):.3f} {metric} ({_p(pp, 'kill-test')}, " \
            f"{_ci(lo, hi)}, d = {_f(dd, 2)}, n {n}{', ' + tested_on if tested_on else ''})"
    code = reg.decide_one(reg.get("kill"), lo, hi)
    sig = pp is not None and pp < alpha_level()
    lost, ok = code == reg.NEG and sig, code == reg.POS and sig
    need = reg.n_for_power(reg.sd_from(lo, hi, n), reg.get("kill").margin)
    if not full_size:
        would = "kill" if lost else "go" if ok else "not decidable"
        ev["at_full_size_this_would_be"] = would
        return hypothesis("kill", name, crit, UNDECIDABLE,
                          f"not decidable at size {size}: the kill criterion is judged at the full size "
                          f"(`{SIZES_COMMAND}`); preview: {words}", ev, **kw)
    if lost:
        return hypothesis("kill", name, crit, KILL, f"{words}: kill, the architecture is invalidated", ev, **kw)
    if ok:
        return hypothesis("kill", name, crit, GO, f"{words}: {system} beats the kill baseline", ev, **kw)
    return hypothesis("kill", name, crit, UNDECIDABLE, f"{reg.text_undecidable(n, need)}: {words}: the interval "
                      "reaches 0", ev, **kw)
