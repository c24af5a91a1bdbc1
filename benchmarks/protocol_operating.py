"""Operating characteristics of every protocol rule on a finished experiment's own data, and how long they take.

    python benchmarks/protocol_operating.py OUT [--n N] [--reps 1000] [--seed 0] [--cr1]

OUT is an experiment folder (``hcrbench quickstart`` / ``hcrbench run``: per_query.csv, verdicts.json). ``--n``
replays every rule at N queries (e.g. another suite size) from OUT's per-query spread (clusters are then not
used). Prints the time of :func:`hcrbench.protocol.operating.operating_all` (all rules, ``--reps`` resamples each,
the replay search for the n each undecidable rule needs included) and the Markdown table docs/protocol.md
publishes (:func:`hcrbench.protocol.operating.markdown`, the same function). ``--cr1`` adds the kill criterion's
false-decision rates at truth 0 on the cluster bootstrap under CR1 (t on G - 1 df) beside CR2 (Bell-McCaffrey df),
on the pair the criterion judged.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats as sps

from hcrbench.protocol.operating import operating_all
from hcrbench.protocol.operating_inputs import from_out
from hcrbench.protocol.operating_table import markdown
from hcrbench.stats.cluster import bm_df


def cr1_vs_cr2(diffs: np.ndarray, clusters: np.ndarray, reps: int, seed: int) -> dict[str, tuple[float, float]]:
    """``{"CR1": (P(go), P(kill)), "CR2": ...}`` at truth 0 over ``reps`` cluster-bootstrap draws."""
    d = diffs - diffs.mean()
    G = int(clusters.max()) + 1
    sums = np.bincount(clusters, weights=d, minlength=G)
    cnt = np.bincount(clusters, minlength=G).astype(np.float64)
    idx = np.random.default_rng(seed).integers(0, G, size=(reps, G))
    S, C = sums[idx], cnt[idx]
    n = C.sum(axis=1)
    m = S.sum(axis=1) / n
    r2 = (S - m[:, None] * C) ** 2
    se1 = np.sqrt(G / (G - 1) * r2.sum(axis=1)) / n
    se2 = np.sqrt((r2 / (1 - C / n[:, None])).sum(axis=1)) / n
    out = {}
    for name, se, df in (("CR1", se1, np.full(reps, G - 1.0)), ("CR2", se2, bm_df(C))):
        h = sps.t.ppf(0.975, df) * se
        out[name] = (float(np.mean(m - h > 0)), float(np.mean(m + h < 0)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=None, help="replay every rule at this n")
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cr1", action="store_true", help="the kill's truth-0 error under CR1 beside CR2")
    a = ap.parse_args()
    ins, v = from_out(a.out, a.n)
    t0 = time.perf_counter()
    ops = operating_all(ins, reps=a.reps, seed=a.seed)
    dt = time.perf_counter() - t0
    kill = next((h for h in v["hypotheses"] if h["id"] == "kill"), {})
    against = (kill.get("evidence") or {}).get("judged_against") or v["kill_baseline"]
    g = ins["kill"].clusters if "kill" in ins else None
    print(f"{a.out}: system {v['system']}, kill baseline {v['kill_baseline']} (the kill criterion judged against "
          f"{against}), size {v.get('size')}, n {ins['kill'].n if 'kill' in ins else '?'}"
          + (f" in {len(set(g.tolist()))} clusters" if g is not None else "")
          + f"; {len(ops)} rules x {a.reps} resamples (+ the replay search for needs n) in {dt:.3f} s")
    if a.cr1 and g is not None:
        for name, (go, kl) in cr1_vs_cr2(ins["kill"].diffs, g, 20 * a.reps, a.seed).items():
            print(f"kill at truth 0, cluster bootstrap ({20 * a.reps:,} draws), {name}: P(go) {go:.1%}, "
                  f"P(kill) {kl:.1%} (nominal 2.5% each)")
    print(markdown(ops))


if __name__ == "__main__":
    main()
