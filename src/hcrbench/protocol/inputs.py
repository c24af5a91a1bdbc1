"""What the protocol's rules read from an experiment's results: paired comparisons in the declared Holm family,
seed groups, per-query sufficiency, and the query subsets the design names.

A comparison is handed to the rules as a plain dict ``{"delta", "p", "p_holm", "ci_low", "ci_high", "d", "n",
"family_size"}``; a system in a ``seed_group`` is judged on its seed-averaged per-query scores.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from hcrbench.protocol.rules import _num, confidence, mean_ci

ENTITY_CATEGORY = "entity_spanning"
GROWTH_CATEGORIES = ("entity_spanning", "multi_hop")


def as_row(c: Any) -> dict[str, Any] | None:
    """A :class:`~hcrbench.stats.compare.Comparison` (or eval.json's dict of one) as the rules' plain dict."""
    if c is None:
        return None
    g = c.get if isinstance(c, dict) else lambda k, d=None: getattr(c, k, d)
    return {"delta": _num(g("delta")), "p": _num(g("p")), "p_holm": _num(g("p_holm")), "ci_low": _num(g("ci_low")),
            "ci_high": _num(g("ci_high")), "d": _num(g("cohens_d")), "n": g("n"), "family_size": g("family_size"),
            "ci_method": g("ci_method")}


def family_metrics(evaluation: Any, cfg: Any, metric: str) -> list[str]:
    """The metrics compared together: the experiment's metric set under ``family="run"`` (as in eval.json), else
    the one metric (its family then spans the systems)."""
    if cfg.family != "run":
        return [metric]
    return [metric, *[m for m in evaluation.metrics if m != metric]]


def compare_runs(evaluation: Any, cfg: Any, metric: str, base: str, runs: dict[str, Any]) -> dict[str, dict]:
    """``runs`` (name -> per-query object with ``query_ids`` and ``values``) each against ``base``, in the
    declared family over exactly these runs; ``{name: row}`` on ``metric``."""
    from hcrbench.stats import compare

    ev = SimpleNamespace(metrics=list(evaluation.metrics), runs={base: evaluation.runs[base], **runs})
    comps = compare(ev, base, family_metrics(evaluation, cfg, metric), n_resamples=cfg.n_resamples, seed=cfg.seed,
                    family=cfg.family, confidence=confidence())
    return {c.run: as_row(c) for c in comps if c.metric == metric}  # type: ignore[misc]


def seed_group_of(cfg: Any, name: str) -> list[Any]:
    """The systems of ``name``'s seed group (itself alone when it has none)."""
    me = next((s for s in cfg.systems if s.name == name), None)
    if me is None or not me.seed_group:
        return [me] if me is not None else []
    return [s for s in cfg.systems if s.seed_group == me.seed_group]


def members(cfg: Any, name: str, present: Any) -> list[str]:
    """The scored systems of ``name``'s seed group (``[name]`` without a group)."""
    return [s.name for s in seed_group_of(cfg, name) if s.name in present] or [name]


def seed_mean(values: list[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return float(np.mean(got)) if got and len(got) == len(values) else None


def mean_of(evaluation: Any, name: str | None, metric: str) -> float | None:
    if name is None or name not in evaluation.runs:
        return None
    return _num(np.mean(np.asarray(evaluation.runs[name].values[metric], dtype=np.float64)))


def per_query(evaluation: Any, names: list[str], metric: str) -> SimpleNamespace | None:
    """The seed-averaged per-query scores of ``names`` (one evaluation-like run), None when one is missing."""
    if not names or any(n not in evaluation.runs for n in names):
        return None
    first = evaluation.runs[names[0]]
    qids = list(first.query_ids)
    vals: dict[str, np.ndarray] = {}
    for m in evaluation.metrics:
        stack = []
        for n in names:
            r = evaluation.runs[n]
            pos = {q: i for i, q in enumerate(r.query_ids)}
            v = np.asarray(r.values[m], dtype=np.float64)
            stack.append(np.array([v[pos[q]] if q in pos else 0.0 for q in qids]))
        vals[m] = np.mean(stack, axis=0)
    return SimpleNamespace(query_ids=qids, values=vals)


def subset(run: Any, qids: set[str]) -> SimpleNamespace:
    keep = [i for i, q in enumerate(run.query_ids) if q in qids]
    return SimpleNamespace(query_ids=[run.query_ids[i] for i in keep],
                           values={m: np.asarray(v, dtype=np.float64)[keep] for m, v in run.values.items()})


def category_qids(data: Any, categories: tuple[str, ...] | str) -> set[str]:
    cats = (categories,) if isinstance(categories, str) else categories
    return {q for q in data.queries.query_ids if data.queries.meta(q).get("category") in cats}


def subset_mean(evaluation: Any, name: str, metric: str, qids: set[str]) -> float | None:
    r = evaluation.runs.get(name)
    if r is None:
        return None
    vals = [float(v) for q, v in zip(r.query_ids, r.values[metric]) if q in qids]
    return float(np.mean(vals)) if vals else None


# ------------------------------------------------------------------------------------------------ sufficiency


def suff_rate(sufficiency: dict | None, system: str | None, budget: int) -> float | None:
    if not sufficiency or system is None or not sufficiency.get("headline"):
        return None
    try:
        return _num(sufficiency["systems"][system]["rates"][str(budget)][sufficiency["headline"]]["rate"])
    except (KeyError, TypeError):
        return None


def oracle_failure(sufficiency: dict | None) -> tuple[float | None, int | None]:
    """The oracle context's failure rate on budget-feasible queries at 400 tokens (the sufficiency step's
    ``systems.oracle`` row), or (None, None) when there is no such row."""
    row = ((sufficiency or {}).get("systems") or {}).get("oracle") or {}
    f = row.get("failure_on_feasible") or {}
    return _num(f.get("rate")), f.get("n")


def suff_per_query(out: Path, system: str, kind: str | None, budget: int = 400) -> dict[str, float] | None:
    """``{query: 1.0 / 0.0}``: whether ``system``'s context at ``budget`` was sufficient (``contexts/<system>
    .jsonl``, the headline kind), None when the file or the kind is missing."""
    path = out / "contexts" / f"{system}.jsonl"
    if kind is None or not path.is_file():
        return None
    got: dict[str, float] = {}
    from hcrbench.data.structured import parse_json_line

    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            rec = parse_json_line(line, path=path, line_no=n)
            if rec.get("budget") == budget and kind in rec:
                got[str(rec["query_id"])] = 1.0 if rec[kind] else 0.0
    return got or None


def group_suff(out: Path, names: list[str], kind: str | None, budget: int = 400) -> dict[str, float] | None:
    """Seed-averaged per-query sufficiency of ``names`` (None when one is missing)."""
    per = [suff_per_query(out, n, kind, budget) for n in names]
    if not per or any(p is None for p in per):
        return None
    qids = set.intersection(*(set(p) for p in per))  # type: ignore[arg-type]
    return {q: float(np.mean([p[q] for p in per])) for q in sorted(qids)}  # type: ignore[index]


def paired_diff(a: dict[str, float] | None, b: dict[str, float] | None
                ) -> tuple[float | None, float | None, float | None, int | None]:
    """Mean of ``a - b`` over their common queries with its normal interval at :func:`rules.confidence`: (delta,
    low, high, n)."""
    if a is None or b is None:
        return None, None, None, None
    common = sorted(set(a) & set(b))
    res = mean_ci([a[q] - b[q] for q in common])
    return (None, None, None, None) if res is None else res


def cluster_labels(data: Any, qids: list[str]) -> tuple[list[Any], bool]:
    """``(labels, known)``: one cluster label per query of ``qids``, its topic cluster where it carries one
    (:func:`query_clusters`) and the query itself where it does not: an unlabelled query is its own cluster, never
    a reason to drop the others' clusters (one clustering path: the kill interval and its replay read the same
    labels). ``known``: some query is labelled and there are >= 2 clusters."""
    clusters = query_clusters(data)
    labels: list[Any] = [clusters.get(q, ("query", q)) for q in qids]
    return labels, any(q in clusters for q in qids) and len(set(labels)) >= 2


def query_clusters(data: Any) -> dict[str, str]:
    """``{query: cluster id}`` for queries that carry one: the query's metadata ``cluster`` or, when absent, the
    ``cluster`` key of ``queries.meta.jsonl`` beside the dataset (Meridian writes it); empty when none does."""
    out: dict[str, str] = {}
    if data is None or getattr(data, "queries", None) is None:
        return out
    for q in data.queries.query_ids:
        c = data.queries.meta(q).get("cluster")
        if c is not None:
            out[q] = str(c)
    side = Path(getattr(data, "root", "") or ".") / "queries.meta.jsonl"
    if not out and side.is_file():
        from hcrbench.data.beir import iter_jsonl

        wanted = set(data.queries.query_ids)
        for _, rec in iter_jsonl(side):
            q = str(rec.get("query_id", rec.get("_id", "")))
            if q in wanted and rec.get("cluster") is not None:
                out[q] = str(rec["cluster"])
    return out
