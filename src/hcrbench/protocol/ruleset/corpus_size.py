"""The corpus-size rule: a statistical advantage of the system over the kill baseline at the medium size on
entity-spanning and multi-hop queries (the interval wholly above zero): go; wholly below: no-go; otherwise not
decidable (needs ~ M for power 0.8 at +0.03). The trend of the all-query delta across sizes is reported beside
it. Judged on growth.json (``hcrbench quickstart --sizes``); one run shows its own size's figure as evidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import GO, NOGO, NOT_RUN, SOFT, UNDECIDABLE, _ci, _num, _p, hypothesis, pct
from hcrbench.protocol.ruleset._gates import SIZES_COMMAND, ci_method

ID = "corpus_size"


class CorpusSize(reg.Rule):
    def judge_run(self, ctx: Any, s: Any) -> dict[str, Any]:
        single = None if ctx.cfg.dataset.generate == "meridian" else \
            f"one corpus as given: the rule compares Meridian sizes ({SIZES_COMMAND})"
        row = corpus_size(ctx.growth, why_missing=single)
        row["evidence"]["subset_at_this_size"] = growth_probe(ctx, s)
        return row

    def judge_growth(self, points: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
        """The row judged again on growth.json's ``points``, keeping this size's figure from ``row``, at the level
        the medium size's last look judged its figure at (its ``sequential`` record; 0.95 for one world)."""
        from hcrbench.protocol.rules import at_confidence, confidence

        level = _num(((_point(points, "medium") or {}).get("sequential") or {}).get("level"))
        with at_confidence(level or confidence()):
            new = corpus_size(points)
        new["evidence"]["subset_at_this_size"] = row["evidence"].get("subset_at_this_size")
        return new

    def annotate_growth(self, points: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
        """The judged (and gated) row with the evidence it was judged on: see :func:`annotate_growth`."""
        return annotate_growth(row, points)

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        from hcrbench.protocol.inputs import GROWTH_CATEGORIES, category_qids
        from hcrbench.protocol.operating import Inputs
        from hcrbench.protocol.operating_inputs import aligned

        base_run = ctx.evaluation.runs.get(ctx.p.kill_baseline)
        qids = category_qids(ctx.data, GROWTH_CATEGORIES)
        if s.scores is None or base_run is None or not qids:
            return None
        a, b = aligned(s.scores, base_run, ctx.metric, qids)
        return Inputs(n=int(row.get("n") or a.size), diffs=a - b) if a.size >= 2 else None

    def replay_inputs_from_out(self, folder: Any) -> Any | None:
        return folder.growth_inputs()


RULE = reg.register(CorpusSize(
    ID, "Corpus size", "hypothesis",
    "system - kill baseline on entity-spanning + multi-hop queries at medium (paired 95%)", "difference",
    go=0.0, nogo=0.0, margin=0.03, centre=0.0, component="scaling", order=9, short="corpus size",
    reads_subject=False, role="growth"))


def corpus_size(points: Sequence[dict[str, Any]] | None, at: str = "medium", why_missing: str | None = None) -> dict:
    """The rule on growth.json's ``points``, each with ``subset`` = {"delta", "p", "ci_low", "ci_high", "d",
    "n"}."""
    rule = reg.get(ID)
    crit = (f"system - kill baseline at {at} on entity-spanning + multi-hop queries (raw nDCG@10 difference): "
            f"{pct()} CI wholly > {rule.go:g} go; wholly < {rule.nogo:g} no-go (Cohen's d reported)")
    pts = list(points or [])
    ev = {f"delta@{p.get('size')}": _num(p.get("delta")) for p in pts}
    trend = [f"{p.get('size')} {_num(p.get('delta')):+.3f}" for p in pts if _num(p.get("delta")) is not None]
    tail = f" (all queries: {' -> '.join(trend)})" if trend else ""
    pt = _point(pts, at)
    sub = (pt or {}).get("subset") or {}
    if pt is None or _num(sub.get("delta")) is None:
        why = why_missing or (f"needs the comparison at the {at} size ({SIZES_COMMAND})" if pt is None else
                              f"no entity-spanning / multi-hop queries at {at}")
        return hypothesis(ID, rule.name, crit, NOT_RUN, f"not run: {why}{tail}", ev, component=rule.component)
    d, p, lo, hi = _num(sub["delta"]), _num(sub.get("p")), _num(sub.get("ci_low")), _num(sub.get("ci_high"))
    ev.update({f"subset@{at}": d, f"subset p@{at}": p})
    kw = dict(n=sub.get("n"), interval=(lo, hi), interval_kind=f"{ci_method(sub.get('ci_method'))} {pct()} "
              f"(subset at {at})", component=rule.component)
    words = f"at {at}, entity-spanning + multi-hop: {d:+.3f} ({_p(p, 'raw')}, {_ci(lo, hi)}, n {sub.get('n')})"
    code = reg.decide_one(rule, lo, hi)
    if code == reg.POS:
        return hypothesis(ID, rule.name, crit, GO, f"{words}: a statistical advantage{tail}", ev, **kw)
    if code == reg.NEG:
        return hypothesis(ID, rule.name, crit, NOGO, f"{words}: a significant disadvantage{tail}", ev, **kw)
    if _num(sub.get("world_sd")) and sub.get("n_worlds"):  # an interval over worlds: sized in worlds
        need, und = reg.undecided_worlds(rule, sub.get("n"), _num(sub["world_sd"]), int(sub["n_worlds"]))
    else:
        need = rule.n_needed(_num(sub.get("sd")) or reg.sd_from(lo, hi, sub.get("n")))
        und = reg.undecided(sub.get("n"), need)
    return hypothesis(ID, rule.name, crit, UNDECIDABLE,
                      f"{reg.text_undecidable(sub.get('n'), need)}: {words}: no statistical advantage{tail}", ev,
                      **kw, undecided=und)


def annotate_growth(row: dict[str, Any], points: Sequence[dict[str, Any]] | None, at: str = "medium"
                    ) -> dict[str, Any]:
    """``row`` (judged on growth.json's ``points``) with what its size's looks say of it: after how many looks,
    test worlds and rule queries of the ``at`` size it was decided, or how many more test worlds of that size would
    decide it (``evidence["sequential"]``, ``undecided["more_worlds"]``, a sentence in ``text``), read from the
    point's ``sequential`` record (``{"look", "max_looks", "worlds", "worlds_per_batch"}``: that size's last look,
    ``worlds`` its test worlds). A point without it (one world per size) leaves the row as it is. The row's
    queries per world are its own (entity-spanning + multi-hop ones), not the split's."""
    from hcrbench.protocol import batches
    from hcrbench.protocol import sequential as sq

    seq = (_point(points, at) or {}).get("sequential") or {}
    n, worlds = _num(row.get("n")), _num(seq.get("worlds"))
    if row.get("verdict") == NOT_RUN or not seq.get("look") or not n or not worlds:
        return row
    per_world = float(n) / float(worlds)
    doc: dict[str, Any] = {"checkpoints": [], "hypotheses": [row]}
    sq.annotate(doc, look=int(seq["look"]), max_looks=int(seq.get("max_looks") or seq["look"]), worlds=int(worlds),
                queries=int(n), worlds_per_batch=int(seq.get("worlds_per_batch") or 1), queries_per_world=per_world)
    batches.price_undecided(doc, test_worlds=int(worlds), queries_per_world=per_world,
                            seconds_per_world=_num(seq.get("seconds_per_world")))
    if "sequential" in row["evidence"]:
        row["evidence"]["sequential"]["size"] = at
    return row


def point_sequential(verdicts: dict[str, Any] | None) -> dict[str, Any]:
    """A growth.json point's ``sequential`` record from its size's ``verdicts.json`` (its last look: look number,
    looks allowed, its level, test worlds, worlds per batch, test queries), for :func:`annotate_growth`; {} for a size
    judged in one world."""
    seq = (verdicts or {}).get("sequential") or {}
    if not seq.get("look"):
        return {}
    return {"sequential": {k: seq.get(k) for k in ("look", "max_looks", "level", "worlds", "worlds_per_batch",
                                                   "queries")}}


def _point(points: Sequence[dict[str, Any]] | None, size: str) -> dict[str, Any] | None:
    return next((p for p in points or () if p.get("size") == size), None)


def bottom_line_part(hypotheses: Sequence[dict[str, Any]], *, overall: str | None = None) -> str | None:
    """The bottom line's words for the corpus-size row once it was judged across sizes (``--sizes``): its verdict
    and, undecided, how many more test worlds of its size would decide it; None when it was not run or when the
    ``overall`` verdict is its no-go (the bottom line names it there already)."""
    from hcrbench.protocol import batches
    from hcrbench.protocol.words import rule_name

    h = next((h for h in hypotheses if h.get("id") == ID), None)
    if h is None or h.get("verdict") == NOT_RUN or (h.get("verdict") == overall and overall in (NOGO, SOFT)):
        return None
    more = batches.more_words(h["undecided"] if isinstance(h.get("undecided"), dict) else None)
    at = ((h.get("evidence") or {}).get("sequential") or {}).get("size") or "medium"
    return f"{rule_name(ID, h.get('name'))} (at {at}): {h['verdict']}" + (f", {more}" if more else "")


def growth_probe(ctx: Any, s: Any) -> dict | None:
    """The system - kill baseline on the entity-spanning and multi-hop queries at this size (the rule's figure;
    one comparison, raw p): ``{"delta", "p", "ci_low", "ci_high", "d", "n"}``."""
    from hcrbench.protocol.inputs import GROWTH_CATEGORIES, category_qids, subset
    from hcrbench.protocol.rules import confidence

    kill = ctx.p.kill_baseline
    qids = category_qids(ctx.data, GROWTH_CATEGORIES)
    if s.scores is None or not qids or kill not in ctx.evaluation.runs:
        return None
    from types import SimpleNamespace

    from hcrbench.stats import compare

    a, b = subset(s.scores, qids), subset(ctx.evaluation.runs[kill], qids)
    if len(a.query_ids) < 2:
        return None
    ev = SimpleNamespace(metrics=[ctx.metric], runs={kill: b, s.name: a})
    c = next(iter(compare(ev, kill, [ctx.metric], n_resamples=ctx.cfg.n_resamples, seed=ctx.cfg.seed,
                          family="metric", confidence=confidence())))
    from hcrbench.protocol.subject import clustered_interval

    return {"delta": _num(c.delta), "p": _num(c.p), "ci_low": _num(c.ci_low), "ci_high": _num(c.ci_high),
            "d": _num(c.cohens_d), "n": int(c.n), "categories": list(GROWTH_CATEGORIES), "ci_method": c.ci_method,
            **(clustered_interval(ctx, a, b) or {})}
