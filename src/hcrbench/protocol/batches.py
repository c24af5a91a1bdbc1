"""Test worlds in batches until the rules are decided: which rows more worlds can decide, what the next batch will
cost, and the record of every look.

The quickstart scores its first test world(s), judges, and while a rule is "not decidable at n = N" for want of
queries (not for want of routing conditions, nor because it is judged at another corpus size), adds a batch of
fresh test worlds (:func:`hcrbench.synth.worlds.world_split`: every world after tune and dev is a test world) and
judges again on all test worlds so far, until every such rule is decided, ``max_worlds`` is reached or the next
batch would overrun the time budget. Each look's intervals are at the level the sequential design gives that look
(:mod:`hcrbench.protocol.sequential` when present), so the error rate holds whenever the run stops.

The next batch's cost is forecast from the look before it (:func:`forecast`): the systems' measured seconds per
world that was computed (each world's part of each run, :mod:`hcrbench.experiment.world_cache`) as if the world had
been cold (embeddings found cached from before the look priced at the look's measured seconds per encoded text),
the generator's seconds per world, and the look's fixed work (loading, reused worlds, pooling, scoring, gate,
verdicts) with its query-bound stages scaled by the test queries they will read. The forecast and the time the
batch then took are both recorded (``verdicts.json["sequential"]``) and printed side by side, so its error is
measured, not assumed.
"""

from __future__ import annotations

import math
import re
from typing import Any

from hcrbench.protocol.looks import DEFAULT_BUDGET_MINUTES as DEFAULT_BUDGET_MINUTES  # the loop's defaults
from hcrbench.protocol.looks import DEFAULT_MAX_WORLDS as DEFAULT_MAX_WORLDS
from hcrbench.protocol.row import Row, Undecided
from hcrbench.protocol.rules import UNDECIDABLE

#: how many test worlds a batch adds (each holds the whole suite, 300 queries by default)
BATCH_WORLDS = 1
_UNDECIDED = re.compile(r"not decidable at n = ([\d,]+)(?P<unit> [a-z]+)?(?: \((?P<rest>[^)]*)\))?")
_NEEDS = re.compile(r"needs ~ ?([\d,]+)")
#: the stages of a look that grow with the number of test queries (the manifest's ``stages``)
SCALED_STAGES = ("scoring", "gate+tree+verdicts")


def rows(verdicts: dict[str, Any] | None) -> list[dict[str, Any]]:
    v = verdicts or {}
    return [*(v.get("checkpoints") or []), *(v.get("hypotheses") or [])]


def undecided_for_queries(verdicts: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The rows more test queries can decide: ``{"id", "name", "n", "needs"}`` (``needs`` None when the estimate
    sits near the threshold: more evidence narrows the interval but no n is promised). Read from each row's
    structured ``undecided`` field (``{"at_n", "needs_n", "unit"}``); a document written before rows carried it
    is read from the row's text."""
    out = []
    for r in rows(verdicts):
        row = Row.of(r)
        if row.word != UNDECIDABLE:
            continue
        und = row.undecided or Undecided.of(_from_text(r))
        if und is None or und.unit or und.at_n is None:
            continue  # "at n = 5 conditions": more worlds add no routing conditions
        at, need = int(und.at_n), und.needs_n
        if need is None:  # no n in reach decides it
            continue
        out.append({"id": r.get("id"), "name": r.get("name"), "n": at,
                    "needs": int(need) if int(need) > at else None})
    return out


def _from_text(r: dict[str, Any]) -> dict[str, Any] | None:
    """The ``undecided`` field of a row that predates it, from its text ("not decidable at n = N (needs ~ M)")."""
    m = _UNDECIDED.search(str(r.get("text") or ""))
    if m is None:
        return None
    rest = m.group("rest") or ""
    n = int(m.group(1).replace(",", ""))
    need = _NEEDS.search(rest)
    if "power 0.8" in rest:  # power at the margin reached: no n promised, but more evidence may decide it
        needs: int | None = n
    else:
        needs = int(need.group(1).replace(",", "")) if need and "no n in reach" not in rest else None
    return {"at_n": n, "needs_n": needs, "unit": (m.group("unit") or "").strip() or None}


def worlds_to_decide(undecided: list[dict[str, Any]], queries_per_world: float) -> int | None:
    """More test worlds the power computation says every row needs (None when a row promises no n)."""
    if not undecided or queries_per_world <= 0:
        return 0 if not undecided else None
    if any(u["needs"] is None for u in undecided):
        return None
    return max(math.ceil(max(0, u["needs"] - u["n"]) / queries_per_world) for u in undecided)


def price_undecided(verdicts: dict[str, Any] | None, *, test_worlds: int, queries_per_world: float,
                    seconds_per_world: float | None) -> list[dict[str, Any]]:
    """Say, on every row more test queries can decide (:func:`undecided_for_queries`), what its "needs ~ M"
    queries come to here: ``needs_worlds`` = the worlds the rule sized it in where it was judged on an interval over
    worlds (its ``world_sd``: :func:`hcrbench.protocol.registry.undecided_worlds`, a t on worlds - 1 df), else
    M / the row's own queries per world (its n over the worlds judged: a rule on a subset, such as routing on easy
    queries, gains only its share of each new world; at most the run's test queries per world), rounded up;
    ``more_worlds``
    beyond the ``test_worlds`` judged; ``needs_minutes`` = those worlds at ``seconds_per_world`` (the look's own
    cost per world, :func:`cost_per_world`). Written into the row's ``undecided`` field (its other fields kept)
    and its text; returns the rows priced. A row whose n already reaches M promises no n and is not priced."""
    out = []
    if not verdicts or queries_per_world <= 0:
        return out
    priced = {u["id"]: u for u in undecided_for_queries(verdicts) if u["needs"] is not None}
    for r in rows(verdicts):
        u = priced.get(r.get("id"))
        if u is None or not isinstance(r.get("undecided"), dict):
            continue
        und = r["undecided"]
        sized = und.get("world_sd") is not None and und.get("needs_worlds")
        # a rule judged on a subset of the queries (routing on easy queries) gains its own share of each world
        per_world = min(queries_per_world, u["n"] / test_worlds) if u.get("n") and test_worlds > 0 else queries_per_world
        need_w = int(und["needs_worlds"]) if sized else math.ceil(u["needs"] / per_world - 1e-9)
        more = max(0, need_w - int(test_worlds))
        mins = None if seconds_per_world is None else round(more * float(seconds_per_world) / 60, 1)
        r["undecided"] = {**r["undecided"], "at_worlds": int(test_worlds), "needs_worlds": need_w,
                          "more_worlds": more, "needs_minutes": mins}
        words = more_words(r["undecided"])
        if words and words not in str(r.get("text") or ""):
            r["text"] = f"{r.get('text', '')} ({words})"
        out.append(r)
    return out


def more_words(und: dict[str, Any] | None) -> str:
    """``~3 more test worlds (5 in all) for power 0.8 at the margin, ~12.5 min at this run's cost per world`` from
    a priced ``undecided`` field ("" when it is not priced)."""
    if not und or und.get("more_worlds") is None:
        return ""
    more = int(und["more_worlds"])
    mins = und.get("needs_minutes")
    cost = f", ~{mins:g} min at this run's cost per world" if mins is not None else ""
    return (f"~{more} more test world{'s' if more != 1 else ''} ({und.get('needs_worlds')} in all) for power 0.8 at "
            f"the margin{cost}")


def cost_per_world(manifest: dict[str, Any], *, generate_s: float = 0.0, rate: float | None = None) -> float | None:
    """Seconds one more test world costs at this look: the systems' cold seconds per computed world
    (:func:`world_seconds`) plus the generator's ``generate_s``; None when the look computed no world."""
    per = world_seconds(manifest, encode_rate(manifest) or rate)
    return (sum(per.values()) / len(per) + generate_s) if per else None


def _computed_parts(manifest: dict[str, Any]):
    """``(system, world, its manifest record)`` of every world part this look computed (reused ones cost nothing)."""
    systems = manifest.get("systems") or {}
    items = systems.items() if isinstance(systems, dict) else ((e.get("name"), e) for e in systems)
    for name, entry in items:
        for w, e in ((entry or {}).get("worlds") or {}).items():
            if not e.get("reused"):
                yield name, w, e


def _is_encode(stage: str) -> bool:
    """``encode_chunks``, ``encode_queries`` and a composite's ``dense.encode_corpus`` alike."""
    return stage.rsplit(".", 1)[-1].startswith("encode")


def encode_rate(manifest: dict[str, Any]) -> float | None:
    """Seconds per text encoded cold in this look: the encode stages' seconds over the texts they encoded, over
    the world parts that encoded any (None when nothing was encoded: the look's every vector came from a cache)."""
    secs = texts = 0.0
    for _, _, e in _computed_parts(manifest):
        n = float(e.get("texts_encoded") or 0)
        if n > 0:
            texts += n
            secs += sum(float(v) for k, v in (e.get("stage_seconds") or {}).items() if _is_encode(k))
    return secs / texts if texts else None


def world_seconds(manifest: dict[str, Any], rate: float | None = None) -> dict[str, float]:
    """Seconds the systems spent on each world this look computed, as if the world had been cold: a system's
    seconds on a world plus, priced at ``rate`` seconds per text, the embeddings it found cached from before the
    look (``cache_hits_prior``; a fresh world has none, while sharing between systems inside a look recurs)."""
    out: dict[str, float] = {}
    for _, w, e in _computed_parts(manifest):
        prior = float(e.get("cache_hits_prior") or 0) * (rate or 0.0)
        out[w] = out.get(w, 0.0) + float(e.get("seconds") or 0.0) + prior
    return out


def parallelism(manifest: dict[str, Any]) -> float:
    """How many of the look's cells ran at once, on average: the seconds of the world parts it computed over the
    wall time of its systems phase (the manifest's ``system:<name>`` stages); 1 when they ran one after another
    or the stages are not recorded."""
    stages = manifest.get("stages") or {}
    wall = sum(float((s or {}).get("wall_s") or 0.0) for n, s in stages.items() if str(n).startswith("system:"))
    computed = sum(float(e.get("seconds") or 0.0) for _, _, e in _computed_parts(manifest))
    return max(1.0, computed / wall) if wall > 0 else 1.0


def forecast(manifest: dict[str, Any], *, n_test: int, n_next: int, batch: int, generate_s: float,
             look_s: float | None = None, rate: float | None = None) -> dict[str, Any]:
    """Seconds the next look will take, from this look's manifest (module docstring).

    The next look computes ``batch`` new worlds: per world, the systems' cold seconds (:func:`world_seconds`, the
    embeddings cached before this look priced at this look's measured :func:`encode_rate`, else ``rate``) and the
    generator's ``generate_s``. It repeats the look's fixed work: with ``look_s`` (this look's run, generation
    excluded), everything that was not a computed world part (loading, reusing the kept worlds, pooling, scoring,
    gate, verdicts), its query-bound stages (:data:`SCALED_STAGES`) scaled by ``n_next / n_test``; without it,
    those stages alone. A tree or index the look found cached from before it (``index_hits_prior``) has no cold
    cost measured here: ``indexes_cached_before_look`` counts them, and the forecast is then a lower bound.
    Cells that ran side by side (``[execution] workers``) took less wall time than their seconds add up to: the
    systems' seconds are divided by the look's :func:`parallelism`, which the next look's cells share."""
    measured = encode_rate(manifest)
    use = measured if measured is not None else rate
    par = parallelism(manifest)
    per = world_seconds(manifest, use)
    per_world = sum(per.values()) / len(per) / par if per else 0.0
    prior = sum(float(e.get("cache_hits_prior") or 0) for _, _, e in _computed_parts(manifest))
    indexes = sum(int(e.get("index_hits_prior") or 0) for _, _, e in _computed_parts(manifest))
    stages = manifest.get("stages") or {}
    scaled = sum(float((stages.get(s) or {}).get("wall_s") or 0.0) for s in SCALED_STAGES)
    factor = n_next / n_test if n_test else 1.0
    computed = sum(float(e.get("seconds") or 0.0) for _, _, e in _computed_parts(manifest)) / par
    other = max(0.0, look_s - computed - scaled) if look_s is not None else 0.0
    total = batch * (per_world + generate_s) + scaled * factor + other
    return {"seconds": round(total, 1), "systems_per_world_s": round(per_world, 1), "parallelism": round(par, 2),
            "scaled_stages_s": round(scaled * factor, 1), "other_s": round(other, 1),
            "generate_per_world_s": round(generate_s, 1), "cached_before_look": int(prior),
            "indexes_cached_before_look": indexes,
            "encode_s_per_text": None if use is None else round(use, 6)}


def eta_words(eta: dict[str, Any]) -> str:
    """``~3.1 min`` (``at least ~3.1 min: 2 trees or indexes were cached from before this look`` when some were)."""
    n = int(eta.get("indexes_cached_before_look") or 0)
    return (f"at least ~{minutes(eta['seconds'])}: {n} tree{'s' if n != 1 else ''} or index{'es' if n != 1 else ''} "
            "cached from before this look" if n else f"~{minutes(eta['seconds'])}")


def forecast_line(look: int, forecast_s: float, actual_s: float) -> str:
    """``look 2 took 3.1 min; forecast 2.9 min (-6%)``: the forecast beside what the look then took."""
    err = f" ({(forecast_s / actual_s - 1) * 100:+.0f}%)" if actual_s > 0 else ""
    return f"look {look} took {minutes(actual_s)}; forecast {minutes(forecast_s)}{err}"


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


def look_line(look: int, test_worlds: int, n_test: int, seconds: float, verdicts: dict[str, Any] | None) -> str:
    """``look 1 (1 test world, 285 queries, 4.2 min): no-go; undecided for want of queries: H1a``."""
    und = undecided_for_queries(verdicts)
    priced = {r.get("id"): more_words(r.get("undecided")) for r in rows(verdicts)}
    names = ", ".join(str(u["name"] or u["id"]) + (f" ({priced[u['id']]})" if priced.get(u["id"]) else "")
                      for u in und)
    overall = (verdicts or {}).get("overall") or "no verdict"
    return (f"look {look} ({test_worlds} test world{'s' if test_worlds != 1 else ''}, {n_test} queries, "
            f"{minutes(seconds)}): {overall}" + (f"; undecided for want of queries: {names}" if und else
                                                 "; every rule that queries can decide is decided"))


def _projection(verdicts: dict[str, Any] | None, rid: Any) -> dict[str, Any] | None:
    row = next((r for r in rows(verdicts) if r.get("id") == rid), None)
    return ((row or {}).get("evidence") or {}).get("sequential")


def any_within_reach(verdicts: dict[str, Any] | None, undecided: list[dict[str, Any]]) -> bool:
    """Whether one more batch can be worth it: some undecided row has no projection (no claim either way) or a
    projection that a look within ``--max-worlds`` decides (:func:`hcrbench.protocol.sequential.annotate`)."""
    for u in undecided:
        p = _projection(verdicts, u["id"])
        if p is None or "within_budget" not in p or p.get("within_budget"):
            return True
    return False


def more_worlds(verdicts: dict[str, Any] | None, undecided: list[dict[str, Any]]) -> int | None:
    """More test worlds every undecided row's projection needs (None when a row has none within reach)."""
    need = 0
    for u in undecided:
        p = _projection(verdicts, u["id"])
        if not p or not p.get("within_budget") or p.get("worlds_more") is None:
            return None
        need = max(need, int(p["worlds_more"]))
    return need
