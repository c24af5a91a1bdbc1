"""What each rule's operating characteristics are replayed from, gathered from one experiment's results: the real
per-query differences behind each comparison, the kill baseline's and the oracle's per-query scores (the mixture
construction), the n of each rate, the sd of a mean, the number of routing conditions.

Only rules that were run get inputs (a rule "not run" has no n to replay at).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from hcrbench.protocol.inputs import GROWTH_CATEGORIES, category_qids
from hcrbench.protocol.operating import Inputs
from hcrbench.protocol.rules import NOT_RUN, z_level


def aligned(a: Any, b: Any, metric: str, qids: set[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-query values of ``a`` and ``b`` on their common queries (optionally within ``qids``), in ``a``'s order."""
    pos = {q: i for i, q in enumerate(b.query_ids)}
    va, vb = np.asarray(a.values[metric], dtype=np.float64), np.asarray(b.values[metric], dtype=np.float64)
    keep = [(i, pos[q]) for i, q in enumerate(a.query_ids) if q in pos and (qids is None or q in qids)]
    if not keep:
        return np.zeros(0), np.zeros(0)
    ia, ib = zip(*keep)
    return va[list(ia)], vb[list(ib)]


def cluster_index(ctx: Any, a: Any, b: Any) -> np.ndarray | None:
    """The cluster index of each query :func:`aligned` keeps (in its order), from the labels the kill interval
    reads (:func:`inputs.cluster_labels`: an unlabelled query is its own cluster); None when no query carries one."""
    from hcrbench.protocol.inputs import cluster_labels

    pos = set(b.query_ids)
    labels, known = cluster_labels(getattr(ctx, "data", None), [q for q in a.query_ids if q in pos])
    if not known:
        return None
    ids = {c: i for i, c in enumerate(dict.fromkeys(labels))}
    return np.asarray([ids[c] for c in labels])


def _dict_diffs(a: dict[str, float] | None, b: dict[str, float] | None) -> np.ndarray | None:
    if not a or not b:
        return None
    common = sorted(set(a) & set(b))
    return np.asarray([a[q] - b[q] for q in common], dtype=np.float64) if len(common) >= 2 else None


def _status(row: dict | None) -> str:
    return NOT_RUN if row is None else str(row.get("status", row.get("verdict")))


def judged_baseline(ctx: Any, kill_row: dict | None) -> str:
    """The baseline the kill criterion was judged against: the strongest flat system when the kill baseline is no
    value barrier (:func:`field.against_strongest` names it in ``evidence.judged_against``), else the kill
    baseline."""
    other = ((kill_row or {}).get("evidence") or {}).get("judged_against")
    return other if other and other in ctx.evaluation.runs else ctx.p.kill_baseline


def kill_inputs(ctx: Any, s: Any, kill_row: dict, x: Inputs, oracle: Any) -> Inputs:
    """The kill criterion's replay inputs on the pair it was judged on (the system against
    :func:`judged_baseline`), with its clusters and the tree-seed component."""
    seed = ctx.cache.get("kill_seed") or {}
    base_run = ctx.evaluation.runs[judged_baseline(ctx, kill_row)]
    a, b = aligned(s.scores, base_run, ctx.metric)
    if a.size < 2:
        return x
    high = aligned(oracle, base_run, ctx.metric)[0] if oracle is not None else np.ones_like(b)
    if high.size != b.size:
        high = np.ones_like(b)
    return Inputs(n=int(a.size), diffs=a - b, base=b, high=high, low=np.zeros_like(b),
                  extra_half=float(seed.get("half") or 0.0), clusters=cluster_index(ctx, s.scores, base_run))


def gather(ctx: Any, s: Any, rows: dict[str, dict]) -> dict[str, Inputs]:
    """``{rule id: Inputs}`` for every rule of ``rows`` (id -> row) that ran."""
    m, kill = ctx.metric, ctx.p.kill_baseline
    out: dict[str, Inputs] = {}
    run = {k: r for k, r in rows.items() if _status(r) != NOT_RUN}
    base_run = ctx.evaluation.runs.get(kill)
    if s.scores is not None and base_run is not None:
        a, b = aligned(s.scores, base_run, m)
        if a.size >= 2:
            oracle = ctx.cache.get("oracle_scores")
            high = aligned(oracle, base_run, m)[0] if oracle is not None else np.ones_like(b)
            if high.size != b.size:
                high = np.ones_like(b)
            x = Inputs(n=int(a.size), diffs=a - b, base=b, high=high, low=np.zeros_like(b))
            if "vs_kill_baseline" in run:
                out["vs_kill_baseline"] = x
            if "kill" in run:  # the kill interval carries the tree-seed component (subject.seed_component)
                out["kill"] = kill_inputs(ctx, s, run["kill"], x, oracle)
        qids = category_qids(ctx.data, GROWTH_CATEGORIES)
        if "corpus_size" in run and qids:
            a2, b2 = aligned(s.scores, base_run, m, qids)
            n_med = (rows["corpus_size"] or {}).get("n")
            if a2.size >= 2:
                out["corpus_size"] = Inputs(n=int(n_med or a2.size), diffs=a2 - b2)
        singles = [n for n in (ctx.p.beam_only, ctx.p.collapsed_only) if n is not None and n in ctx.evaluation.runs]
        chosen = (ctx.cache.get("dev_selection") or {}).get("chosen")
        if "H1b" in run and singles:
            sp = chosen if chosen in singles else singles[0]
            a3, b3 = aligned(s.scores, ctx.evaluation.runs[sp], m)
            if a3.size >= 2:
                out["H1b"] = Inputs(n=int(a3.size), diffs=a3 - b3)
    if "H1a" in run:
        d = _dict_diffs(s.suff400, ctx.suff(kill))
        if d is not None:
            out["H1a"] = Inputs(n=int(d.size), diffs=d)
    if "token_efficiency" in run:
        d = _dict_diffs(s.suff400, ctx.suff(ctx.flat))
        if d is not None:
            out["token_efficiency"] = Inputs(n=int(d.size), diffs=d)
    if "failure_rate" in run and run["failure_rate"].get("n"):
        out["failure_rate"] = Inputs(n=int(run["failure_rate"]["n"]))
    if "easy_routing" in run:
        _eps, n_at, _n, _why = ctx.routing
        if n_at:
            out["easy_routing"] = Inputs(n=int(min(n_at)))
    if "H1c" in run and run["H1c"].get("n"):
        out["H1c"] = Inputs(n=int(run["H1c"]["n"]))
    ts = run.get("tree_sanity")
    if ts is not None and ts.get("n") and ts.get("interval"):
        lo, hi = ts["interval"]
        sd = (hi - lo) / 2 / z_level() * float(ts["n"]) ** 0.5
        out["tree_sanity"] = Inputs(n=int(ts["n"]), sd=sd)
    return out


def from_out(out: Any, n_override: int | None = None) -> tuple[dict[str, Inputs], dict[str, Any]]:
    """Inputs read back from a finished experiment folder (``per_query.csv``, ``verdicts.json``): the paired
    nDCG@10 rules from the per-query scores (the system's seed group averaged), the rates and conditions at the
    n of their rows. ``n_override`` replays every rule at that n instead (a larger suite's operating
    characteristics from this one's per-query spread). Returns (inputs, verdicts doc)."""
    import json
    from pathlib import Path

    from hcrbench.data.per_query import read_per_query

    out = Path(out)
    v = json.loads((out / "verdicts.json").read_text(encoding="utf-8"))
    df = read_per_query(out)
    m, kill, system = v["metric"], v["kill_baseline"], v["system"]
    members = ((v.get("seed_aggregate") or {}).get("members")) or [system]
    wide = df.pivot_table(index="query_id", columns="run", values=m, aggfunc="mean")
    rows = {r["id"]: r for r in (*v["checkpoints"], *v["hypotheses"])}
    ins: dict[str, Inputs] = {}

    def n_of(n: int) -> int:
        return int(n_override or n)

    if kill in wide and all(x in wide for x in members):
        sysv = wide[members].mean(axis=1).to_numpy(dtype=np.float64)
        base = wide[kill].to_numpy(dtype=np.float64)
        d = sysv - base
        x = Inputs(n=n_of(d.size), diffs=d, base=base, high=np.ones_like(base), low=np.zeros_like(base))
        ins["kill"] = ins["vs_kill_baseline"] = x
        other = (rows.get("kill") or {}).get("evidence", {}).get("judged_against")
        if other and other in wide:  # the kill baseline is no barrier: the criterion was judged against ``other``
            ob = wide[other].to_numpy(dtype=np.float64)
            ins["kill"] = Inputs(n=n_of(d.size), diffs=sysv - ob, base=ob, high=np.ones_like(ob),
                                 low=np.zeros_like(ob))
        clusters = _clusters_of(out, list(wide.index))
        if clusters is not None and n_override is None:
            ins["kill"] = dataclasses.replace(ins["kill"], clusters=clusters)
        if "category" in df.columns:
            cats = df.drop_duplicates("query_id").set_index("query_id")["category"]
            keep = [q in set(cats[cats.isin(GROWTH_CATEGORIES)].index) for q in wide.index]
            if sum(keep) >= 2:
                ins["corpus_size"] = Inputs(n=n_of(int(sum(keep))), diffs=d[np.asarray(keep)])
    for rid in ("failure_rate", "easy_routing", "H1c"):
        r = rows.get(rid)
        if r and r.get("n") and (r.get("status", r.get("verdict")) != NOT_RUN):
            ins[rid] = Inputs(n=n_of(int(r["n"])) if rid != "H1c" else int(r["n"]))
    return ins, v


def _clusters_of(out: Any, qids: list[str]) -> np.ndarray | None:
    """Each query's cluster index from the dataset's ``queries.meta.jsonl`` (``[dataset] path`` of OUT's
    config.toml; Meridian writes it), when every query of ``qids`` has one."""
    import json
    from pathlib import Path

    import tomllib

    try:
        cfg = tomllib.loads((Path(out) / "config.toml").read_text(encoding="utf-8"))
        side = Path(out) / str(cfg["dataset"]["path"]) / "queries.meta.jsonl"
        lines = side.read_text(encoding="utf-8").splitlines() if side.is_file() else []
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return None
    got = {}
    for line in lines:
        if line.strip():
            rec = json.loads(line)
            if rec.get("cluster") is not None:
                got[str(rec.get("query_id"))] = str(rec["cluster"])
    if any(q not in got for q in qids):
        return None
    ids = {k: i for i, k in enumerate(dict.fromkeys(got[q] for q in qids))}
    return np.asarray([ids[got[q]] for q in qids]) if len(ids) >= 2 else None
