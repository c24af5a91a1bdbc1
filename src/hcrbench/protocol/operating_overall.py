"""The overall verdict's operating characteristics: how often the aggregation of every row says each overall
verdict when the system's nDCG@10 difference from its baselines is known.

Replayed at the truths centre + {0, ±m, ±2m} of the kill criterion: the margin checkpoint (system - kill baseline)
and the kill criterion (system - the baseline it was judged against: the kill baseline, or the strongest flat
system when the kill baseline is no value barrier) are re-decided on the same resamples, each on its own pair's
re-centred differences; every other row is held at its observed verdict and :func:`verdicts.overall` is applied
to each draw. When queries carry clusters the draws resample clusters (G with replacement, as the kill rule's own
replay does) and the kill criterion is judged on the CR2 interval with Bell-McCaffrey df, as it is on the data;
queries are resampled only when they are independent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hcrbench.protocol import registry as reg
from hcrbench.protocol.operating import REPS, _interval, _rng, betting_decision_interval
from hcrbench.protocol.rules import stops, t_level


def _centred(d: np.ndarray, t: float) -> np.ndarray:
    d = np.asarray(d, dtype=np.float64)
    return d - d.mean() + t


def _cluster_draws(dk: np.ndarray, dc: np.ndarray, g: np.ndarray, reps: int, rng: np.random.Generator,
                   extra: float, cp_rule: reg.Rule) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """On ``reps`` cluster bootstrap draws (the same clusters for both pairs): the kill criterion's interval (CR2,
    BM df, the tree-seed component) and the margin checkpoint's verdict codes on the resampled queries (its
    own interval, the betting one, on the draw's queries in cluster order)."""
    from hcrbench.stats.cluster import bm_df

    G = int(g.max()) + 1
    cnt = np.bincount(g, minlength=G).astype(np.float64)
    idx = rng.integers(0, G, size=(reps, G))
    C = cnt[idx]
    n = C.sum(axis=1)
    S = np.bincount(g, weights=dk, minlength=G)[idx]
    m = S.sum(axis=1) / n
    q = 1.0 / (1.0 - C / n[:, None])
    se = np.sqrt((q * (S - m[:, None] * C) ** 2).sum(axis=1)) / n
    h = np.hypot(t_level(bm_df(C)) * se, extra)
    members = [dc[g == j] for j in range(G)]
    width = int(n.max())
    x = np.zeros((reps, width))
    valid = np.zeros((reps, width), dtype=bool)
    for r in range(reps):
        row = np.concatenate([members[j] for j in idx[r]])
        x[r, :row.size], valid[r, :row.size] = row, True
    if cp_rule.interval == "betting":
        cc = reg.decide(cp_rule, *betting_decision_interval(cp_rule, x, valid))
    else:  # a paired t over each draw's queries
        w = valid.astype(np.float64)
        m2 = (x * w).sum(axis=1) / n
        var = np.maximum(((x - m2[:, None]) ** 2 * w).sum(axis=1), 0.0) / (n - 1)
        h2 = t_level(n - 1) * np.sqrt(var / n)
        cc = reg.decide(cp_rule, m2 - h2, m2 + h2)
    return (m - h, m + h), cc


def operating_overall(rows: Sequence[dict], checkpoints: Sequence[dict], diffs: np.ndarray | None, n: int, *,
                      full_size: bool, overall_fn: Callable[[list[dict], list[dict]], str], reps: int = REPS,
                      seed: int = 0, extra: float = 0.0,
                      kill_diffs: np.ndarray | None = None, clusters: np.ndarray | None = None
                      ) -> dict[str, Any] | None:
    """``{"rule": "overall", "truths": [{truth, <overall verdict>: frequency}], ...}``; ``diffs``: system - kill
    baseline per query (the margin checkpoint's pair), ``kill_diffs``: the kill criterion's pair in the same query
    order (default ``diffs``), ``clusters``: each query's cluster index (resample clusters)."""
    if diffs is None or np.asarray(diffs).size < 2 or n < 2:
        return None
    kill_rule, cp_rule = reg.with_role("architecture"), reg.with_role("margin")
    if kill_rule is None or cp_rule is None:
        return None
    dc0 = np.asarray(diffs, dtype=np.float64)
    dk0 = dc0 if kill_diffs is None or np.asarray(kill_diffs).size != dc0.size else \
        np.asarray(kill_diffs, dtype=np.float64)
    g = None if clusters is None or np.asarray(clusters).size != dc0.size else np.asarray(clusters)
    if g is not None and len(set(g.tolist())) < 2:
        g = None
    table = []
    for t in kill_rule.truths():
        rng = _rng(seed, "overall", t)
        dk, dc = _centred(dk0, t), _centred(dc0, t)
        if g is not None:
            (klo, khi), cc = _cluster_draws(dk, dc, g, reps, rng, extra, cp_rule)
            kc = reg.decide(kill_rule, klo, khi)
        else:
            ix = rng.integers(0, dc0.size, size=(reps, n))
            kc = reg.decide(kill_rule, *_interval(kill_rule, dk[ix], rng, extra))
            cc = reg.decide(cp_rule, *_interval(cp_rule, dc[ix], rng))
        counts: dict[str, int] = {}
        cache: dict[tuple[int, int], str] = {}
        for k, c in zip(kc.tolist(), cc.tolist()):
            key = (k, c)
            if key not in cache:
                kv = kill_rule.words(k)  # at every size; overall_fn scopes a smaller size's kill
                cv = cp_rule.words(c)
                hs = [dict(h, verdict=kv) if h["id"] == kill_rule.id else h for h in rows]
                cs = [dict(r, status=(f"{cv}: {cp_rule.component}" if stops(cv) else cv))
                      if r["id"] == cp_rule.id else r for r in checkpoints]
                cache[key] = overall_fn(cs, hs)
            counts[cache[key]] = counts.get(cache[key], 0) + 1
        table.append({"truth": t, **{k: v / reps for k, v in sorted(counts.items())}})
    return {"rule": "overall", "n": int(n), "reps": reps, "seed": seed,
            "construction": "cluster bootstrap" if g is not None else "re-centred",
            "resamples": f"clusters ({len(set(g.tolist()))})" if g is not None else "queries",
            "kill_pair": "the pair the kill criterion judged" if kill_diffs is not None else "system vs kill baseline",
            "held": "every row but the margin checkpoint and the kill criterion at its observed verdict",
            "truths": table}
