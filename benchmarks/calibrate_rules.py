"""Calibrate the nDCG-difference rules where the truth is known: fresh Meridian worlds, real systems run on each,
known-truth subjects built per world, every rule's own decision replayed at a fixed n and under the sequential
stopping rule (test worlds added in batches, optional stopping included).

**Population.** ``--worlds`` Meridian worlds of 500 documents (``generate_meridian(..., grow=False)``) on seeds
``--seed-base + i`` (seeds no doc or test names), each scored through ``hcrbench run`` (``run_experiment`` on a
config per world: BM25, BM25 without stemming and the hash-encoder dense system, nDCG@10 on all of the world's
queries, whatever their split: each world is fresh, so its 300 queries are one more sample of the population).
The population is these worlds; a truth is a mean over them (each world weighted equally, as the draws below
weight them). A test set draws ``--worlds-per-batch`` worlds per batch with replacement from the population and
``--queries-per-world`` of each drawn world's queries without replacement; a query's topic cluster is its world
draw plus Meridian's ``cluster``.

**Known-truth subjects** (per query, from the real systems' per-query nDCG@10; B = BM25 is the kill baseline):
- ``dense``: per query, subject and baseline swap BM25 / BM25-no-stem at random (an exact null: the per-query
  swap of two real rankings), plus a constant ``truth``;
- ``dense, heavy noise``: the same with the hash-dense system instead of BM25-no-stem;
- ``sparse``: the swapped pair, and on a random share of queries the subject gets the ideal ranking (nDCG 1:
  truth > 0) or a ranking with no relevant document (nDCG 0: truth < 0), the share making the population
  truth ``truth`` (both are run files a user could hand in); at truth 0 it is the exact null;
- ``skewed``: the real BM25-no-stem - BM25 differences, shifted by the population mean to ``truth`` (their
  skew kept);
- ``real pair``: BM25-no-stem vs BM25 and hash-dense vs BM25 as they are; the truth is their population mean.

**Rules** (their own intervals at the level in force, :func:`hcrbench.protocol.rules.at_confidence`): the kill
rule (CR2 cluster-robust t on Bell-McCaffrey df over topic clusters, threshold 0; and the same over the drawn
worlds as clusters, the level where worlds are the replicates), checkpoint 3 vs the kill
baseline (betting interval, threshold -0.02), the corpus-size rule (paired t, threshold 0), H1b's dual-vs-single
clause (paired t, go above 0, no-go below its +0.03 margin). Truths: each rule's threshold + {0, +-margin, +-0.06}.
A decision is wrong when a claim it makes is false at the truth (a go claims "above the go threshold", a no-go
"below the no-go threshold", a soft no-go both); nominal is 2.5% per threshold the truth sits on.

**Designs.** ``fixed 1``: one batch judged at 95%; ``fixed K``: all K batches at 95%; ``sequential``: after each
batch every rule at :func:`hcrbench.protocol.sequential.level` (k, K), stopping at its first decision.
``needs M``: for rows undecided after the first batch, :func:`sequential.project`'s "needs ~ M more batches"
(observed mean and sd) checked against the same draw's later looks: the share decided by look 1 + M.

    python benchmarks/calibrate_rules.py [--quick] [--worlds 12] [--reps 2000] [--max-looks 5]
        [--worlds-per-batch 2] [--queries-per-world 60] [--seed-base 734100] [--workdir DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from statistics import NormalDist

import numpy as np

SYSTEMS = {"B": ("bm25", 'type = "bm25"'),
           "A": ("bm25-nostem", 'type = "bm25"\nparams = { stemmer = "none" }'),
           "H": ("dense-hash", 'type = "dense"\nparams = { backend = "hash" }')}
NAMES = {k: name for k, (name, _) in SYSTEMS.items()}
SEED_BASE = 734_100
QUICK = {"worlds": 3, "reps": 300, "max_looks": 3, "worlds_per_batch": 1, "queries_per_world": 60, "need_slots": 6}
FULL = {"worlds": 12, "reps": 2000, "max_looks": 5, "worlds_per_batch": 2, "queries_per_world": 60, "need_slots": 48}
OFFSETS = (-0.06, -1, 0.0, 1, 0.06)  # 1 / -1: plus / minus the rule's margin
NEED_SAMPLE = 40                     # undecided draws per cell whose "needs ~ M" is checked (25 ms per power call)


# ------------------------------------------------------------------------------------------------ population


def _world(i: int, seed: int, workdir: Path) -> dict:
    """Generate world ``i`` and score the three systems on all its queries through ``run_experiment``."""
    from hcrbench.experiment.runner import run_experiment
    from hcrbench.synth.generate import GENERATOR_VERSION, generate_meridian

    cached = workdir / f"scores{i:02d}-s{seed}-g{GENERATOR_VERSION}.npz"  # another generator's worlds are not these
    if cached.is_file():  # this world's per-query scores from an earlier run of the script
        z = np.load(cached)
        return {"seed": seed, "qids": int(z["A"].size), **{k: z[k] for k in ("A", "B", "H", "cluster")}}
    folder = workdir / f"world{i:02d}"
    man = folder / "manifest.json"
    if not man.is_file() or json.loads(man.read_text(encoding="utf-8")).get("generator_version") != GENERATOR_VERSION:
        # new, stopped half-written, or another generator's world: generate it afresh
        shutil.rmtree(folder, ignore_errors=True)
        generate_meridian(folder, size=500, seed=seed, grow=False)
    rows = ["query-id\tcorpus-id\tscore\n"]
    for split in ("tune", "dev", "test"):
        rows += (folder / "qrels" / f"{split}.tsv").read_text(encoding="utf-8").splitlines(True)[1:]
    (folder / "qrels" / "all.tsv").write_text("".join(rows), encoding="utf-8")
    out = workdir / f"run{i:02d}"
    systems = "".join(f'\n[[systems]]\nname = "{name}"\n{body}\n' for name, body in SYSTEMS.values())
    cfg = workdir / f"world{i:02d}.toml"
    cfg.write_text(f'name = "calibrate-{i}"\noutput_dir = "{out}"\nseed = 0\nmetrics = ["nDCG@10"]\n'
                   f'baseline = "bm25"\nk = 100\nn_resamples = 200\n\n[dataset]\npath = "{folder}"\n'
                   f'split = "all"\n{systems}', encoding="utf-8")
    run_experiment(cfg, progress=False)
    ev = json.loads((out / "eval.json").read_text(encoding="utf-8"))["runs"]
    per = {k: ev[name]["per_query"]["nDCG@10"] for k, (name, _) in SYSTEMS.items()}
    qids = sorted(set.intersection(*(set(v) for v in per.values())))
    meta = {}
    with (folder / "queries.meta.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            meta[r["query_id"]] = r.get("cluster")
    topics = {c: j for j, c in enumerate(dict.fromkeys(meta[q] for q in qids))}
    out = {"seed": seed, "qids": len(qids), **{k: np.array([per[k][q] for q in qids]) for k in per},
           "cluster": np.array([topics[meta[q]] for q in qids])}
    np.savez(cached.with_suffix(".tmp.npz"), **{k: out[k] for k in ("A", "B", "H", "cluster")})
    cached.with_suffix(".tmp.npz").replace(cached)
    return out


def population(n_worlds: int, seed_base: int, workdir: Path) -> list[dict]:
    out = []
    for i in range(n_worlds):
        t0 = time.time()
        out.append(_world(i, seed_base + i, workdir))
        print(f"world {i + 1}/{n_worlds} (seed {seed_base + i}): {out[-1]['qids']} queries, "
              f"{time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    return out


# ------------------------------------------------------------------------------------------------ intervals


def cr2_rows(d: np.ndarray, c: np.ndarray, g: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise CR2 variance of the mean and its Bell-McCaffrey df (:func:`hcrbench.stats.cluster.cr2_rows`)."""
    from hcrbench.stats.cluster import cr2_rows as rows

    return rows(d, c, g)


def decide(rule, d: np.ndarray, level: float, clusters: tuple | None, rng) -> np.ndarray:
    """The rule's verdict codes on each row of ``d`` at the two-sided ``level``; ``clusters``: ``(var, df, skew)``
    of the clustered interval (``skew``: both ends moved by :func:`hcrbench.stats.cluster.skew_shift`)."""
    from hcrbench.protocol import operating as opc
    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.rules import at_confidence, t_level
    from hcrbench.stats.cluster import skew_shift_rows

    with at_confidence(level):
        if clusters is not None:  # the clustered interval: CR2 over topic clusters (and worlds)
            var, df, skew = clusters
            m = d.mean(axis=1)
            h = t_level(df) * np.sqrt(var)
            shift = skew_shift_rows(d, level) if skew else 0.0
            return reg.decide(rule, m - h + shift, m + h + shift)
        if rule.interval == "betting":  # differences of two nDCG lie in [-1, 1]: a construction past them (a
            d = np.clip(d, -1.0, 1.0)    # shift of +-1 on a query) is clipped, or the replay falls back to a t
        return reg.decide(rule, *opc._interval(rule, d, rng))


def wrong(rule, codes: np.ndarray, truth: float) -> np.ndarray:
    """Does each decision make a claim that is false at ``truth``?"""
    from hcrbench.protocol import registry as reg

    s = 1.0 if rule.higher_is_better else -1.0
    pos, neg = np.isin(codes, (reg.POS, reg.MID)), np.isin(codes, (reg.NEG, reg.MID))
    return (pos & ~(s * truth > s * rule.go + 1e-12)) | (neg & ~(s * truth < s * rule.nogo - 1e-12))


def nominal(rule, truth: float) -> float:
    """2.5% for each side whose threshold the truth sits on (5% for a one-threshold rule at its threshold)."""
    on_go, on_nogo = abs(truth - rule.go) < 1e-9, abs(truth - rule.nogo) < 1e-9
    if rule.go == rule.nogo:
        return 0.05 if on_go else 0.0
    return 0.025 * on_go + 0.025 * on_nogo


# ------------------------------------------------------------------------------------------------ draws


def draws(pop: list[dict], reps: int, slots: int, q: int, rng: np.random.Generator) -> dict:
    """``reps`` test sets of ``slots`` world draws x ``q`` queries: per-query A, B, H, cluster (draw x topic)."""
    tmax = max(int(w["cluster"].max()) + 1 for w in pop)
    w_idx = rng.integers(0, len(pop), size=(reps, slots))
    out = {k: np.zeros((reps, slots * q)) for k in ("A", "B", "H")}
    out["C"] = np.zeros((reps, slots * q), dtype=np.int64)
    for r in range(reps):
        for j in range(slots):
            w = pop[w_idx[r, j]]
            pick = rng.choice(w["qids"], size=min(q, w["qids"]), replace=False)
            cols = slice(j * q, j * q + pick.size)
            for k in ("A", "B", "H"):
                out[k][r, cols] = w[k][pick]
            out["C"][r, cols] = j * tmax + w["cluster"][pick]
    out["G"] = slots * tmax
    out["sign"] = np.where(rng.random((reps, slots * q)) < 0.5, -1.0, 1.0)
    out["u"] = rng.random((reps, slots * q))
    return out


def means(pop: list[dict]) -> dict[str, float]:
    """Population means (each world weighted equally) of each system and pair."""
    m = {k: float(np.mean([w[k].mean() for w in pop])) for k in ("A", "B", "H")}
    m["A-B"], m["H-B"] = m["A"] - m["B"], m["H"] - m["B"]
    return m


def construct(kind: str, truth: float, x: dict, mu: dict) -> np.ndarray | None:
    """Per-query subject - baseline differences of construction ``kind`` at population truth ``truth``."""
    a, b, h, sign = x["A"], x["B"], x["H"], x["sign"]
    if kind == "dense":
        return sign * (a - b) + truth
    if kind == "dense, heavy noise":
        return sign * (h - b) + truth
    if kind == "skewed":
        return (a - b) - mu["A-B"] + truth
    if kind == "sparse":
        base = np.where(sign > 0, b, a)          # the baseline's per-query score after the swap
        d = np.where(sign > 0, a - b, b - a)
        if truth == 0:
            return d
        mbar = (mu["A"] + mu["B"]) / 2
        share = truth / (1 - mbar) if truth > 0 else -truth / mbar
        if not 0 < share <= 1:
            return None
        return np.where(x["u"] < share, (1.0 if truth > 0 else 0.0) - base, d)
    raise ValueError(kind)


KINDS = ("dense", "dense, heavy noise", "sparse", "skewed")


def rules() -> list[tuple[str, object, str | None]]:
    """``(name, rule, interval)``: "nested" is the interval the paired-difference rules decide on when their
    queries carry topic clusters and come from several worlds (:func:`hcrbench.stats.cluster.cluster_ci` with
    ``worlds``: the kill rule and the corpus-size rule), "nested, skew" the same with its ends moved for the
    differences' skew (H1b's single-path clause, whose two claims sit at two thresholds:
    :func:`hcrbench.stats.cluster.skew_shift`), "topic" the topic-clustered CR2 alone; the plain "nested" for H1b
    and "topic" for the kill are kept as the references the fixes are measured against; None the rule's own
    (checkpoint 3's betting interval)."""
    from hcrbench.protocol import registry as reg

    return [("kill", reg.get("kill"), "nested"), ("kill, topic clusters only", reg.get("kill"), "topic"),
            ("vs_kill_baseline", reg.get("vs_kill_baseline"), None), ("corpus_size", reg.get("corpus_size"), "nested"),
            ("H1b:single", reg.H1B_CLAUSES["single"], "nested, skew"),
            ("H1b:single, no skew correction", reg.H1B_CLAUSES["single"], "nested")]


# ------------------------------------------------------------------------------------------------ simulation


def _rate(v: np.ndarray) -> float:
    return float(np.mean(v)) if v.size else float("nan")


def _clustered(cluster: str, d: np.ndarray, x: dict, cols: int, per_world: int, n_slots: int
               ) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(var, df, skew)`` of each row's mean over its first ``cols`` queries: topic-clustered CR2 ("topic") or
    the world-aware one ("nested": :func:`hcrbench.stats.cluster.nested_cr2_rows`, the worlds being the draws;
    "nested, skew": the same with its ends moved for the skew, :func:`hcrbench.stats.cluster.skew_shift`)."""
    from hcrbench.stats.cluster import nested_cr2_rows

    topics = x["C"][:, :cols]
    if cluster == "topic":
        return (*cr2_rows(d[:, :cols], topics, x["G"]), False)
    worlds = np.broadcast_to(np.arange(cols) // per_world, (d.shape[0], cols))
    var, df, _ = nested_cr2_rows(d[:, :cols], topics, x["G"], worlds, n_slots)
    return var, df, cluster.endswith("skew")


def sequential_codes(code_at, looks: int, spending: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Replay the stopping rule: at look k every draw not yet decided is judged at
    :func:`hcrbench.protocol.sequential.level` (k, looks); ``code_at(k, level)`` gives the codes. Returns each
    draw's verdict code and the look it was decided at (0: never)."""
    from hcrbench.protocol import sequential as sq

    seq = at = None
    for k in range(1, looks + 1):
        c = code_at(k, sq.level(k, looks, spending=spending))
        if seq is None:
            seq, at = np.zeros(c.shape, dtype=np.int8), np.zeros(c.shape, dtype=np.int64)
        new = (at == 0) & (c != 0)
        seq[new], at[new] = c[new], k
    return seq, at


def run_cell(rule, cluster: str | None, d: np.ndarray, truth: float, x: dict, looks: int, per: int, rng,
             need_sample: int = NEED_SAMPLE) -> dict:
    """Fixed and sequential decisions of ``rule`` on the draws ``d`` (reps x all queries) at ``truth``;
    ``cluster``: the clustered interval ("topic" or "nested": :func:`_clustered`), else the rule's own."""
    from hcrbench.protocol import sequential as sq

    _reps, n_all = d.shape
    step = n_all // looks
    q = n_all // (looks * per)

    def codes(k: int, level: float) -> np.ndarray:
        cols = k * step
        cl = None if cluster is None else _clustered(cluster, d, x, cols, q, looks * per)
        return decide(rule, d[:, :cols], level, cl, rng)

    fixed1 = codes(1, 0.95)
    fixed_k = codes(looks, 0.95)
    seq, at = sequential_codes(codes, looks)
    out = {}
    for name, c in (("fixed1", fixed1), ("fixedK", fixed_k), ("seq", seq)):
        w = wrong(rule, c, truth)
        out[name] = {"wrong": _rate(w), "right": _rate((c != 0) & ~w), "undecided": _rate(c == 0)}
    out["seq"]["worlds"] = float(np.mean(np.where(at > 0, at, looks))) * per
    # "needs ~ M more": the first look's undecided draws, projected from their own mean and sd
    und = np.flatnonzero(fixed1 == 0)
    if und.size == 0 or nominal(rule, truth) > 0 or need_sample <= 0:
        return out
    pick = und[:need_sample]
    s = 1.0 if rule.higher_is_better else -1.0
    hit, within = 0, 0
    for r in pick:
        first = d[r, :step]
        est, sd = float(first.mean()), float(first.std(ddof=1))
        sides = [t for t, ok in ((rule.go, s * est > s * rule.go), (rule.nogo, s * est < s * rule.nogo)) if ok]
        if not sides:
            continue
        thr = max(sides, key=lambda t: abs(est - t))  # the verdict the estimate reaches first
        p = sq.project(est, thr, sd, look=1, max_looks=looks, worlds_per_batch=per, queries_per_world=step / per)
        if not p.within_budget:
            continue
        within += 1
        hit += int(seq[r] != 0 and at[r] <= 1 + int(p.batches_more))
    out["needs"] = {"checked": int(pick.size), "within_budget": within,
                    "decided_by_M": hit / within if within else None}
    return out


def at_margin(rule, truth: float) -> bool:
    """Is ``truth`` a margin past one of the rule's thresholds, on the side its claim holds (the truth its
    "needs ~ n" is sized for, power 0.8) with no claim false there?"""
    return nominal(rule, truth) == 0 and any(abs(abs(truth - t) - rule.margin) < 1e-9 for t in (rule.go, rule.nogo))


def sd_rows(rule, cluster: str | None, d: np.ndarray, x: dict, cols: int, q: int, slots: int, rng
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(codes, sd, world_sd)`` of each row judged at 95% on its first ``cols`` queries, the per-query sd a row
    sized in queries reads (the clustered interval's standard error x sqrt(n), :func:`hcrbench.protocol.subject.
    clustered_interval`; the rule's own interval's half-width / z x sqrt(n) otherwise, :func:`registry.sd_from`),
    and, for the interval over worlds ("nested"), the sd of one world's mean its row sizes "needs ~ n" on in worlds
    (:func:`registry.world_sd`: the worlds' CR2 variance floored by the topic-clustered one; None otherwise)."""
    from hcrbench.protocol import operating as opc
    from hcrbench.protocol import registry as reg
    from hcrbench.protocol.rules import at_confidence

    if cluster is not None:
        cl = _clustered(cluster, d, x, cols, q, slots)
        wsd = None
        if cluster.startswith("nested"):
            vt, _ = cr2_rows(d[:, :cols], x["C"][:, :cols], x["G"])
            wsd = np.array([reg.world_sd(math.sqrt(a), math.sqrt(b), cols // q) or 0.0 for a, b in zip(cl[0], vt)])
        return decide(rule, d[:, :cols], 0.95, cl, rng), np.sqrt(cl[0] * cols), wsd
    with at_confidence(0.95):
        lo, hi = opc._interval(rule, np.clip(d[:, :cols], -1, 1) if rule.interval == "betting" else d[:, :cols], rng)
    return reg.decide(rule, lo, hi), (np.asarray(hi) - np.asarray(lo)) / 2 / 1.959964 * math.sqrt(cols), None


def needs_worlds_check(rule, cluster: str | None, d: np.ndarray, truth: float, x: dict, per: int, q: int,
                       rng, betting_sample: int = 150) -> dict:
    """The printed "needs ~ n", in worlds, checked: for each draw undecided after its first batch (``per``
    worlds), the worlds its row would print (:func:`hcrbench.protocol.batches.price_undecided`: on an interval over
    worlds, the rule's ``worlds_needed`` on the row's world sd, :func:`registry.undecided_worlds`; otherwise its
    queries, :mod:`hcrbench.protocol.needs_given`: the n at which its interval has power 0.8 at the margin on
    either side given the queries in hand, over ``q`` queries per world, rounded up; a betting row's power is
    simulated, so only its first ``betting_sample`` undecided draws are checked), and, where that is more than it
    has and no more than the draw's worlds, the same draw judged at 95% on exactly that many worlds: the share
    decided correctly is the power the figure promises (0.8 at the margin)."""
    from hcrbench.protocol.needs_given import n_given_queries, n_given_queries_betting

    slots = d.shape[1] // q
    n1 = per * q
    codes, sd, wsd = sd_rows(rule, cluster, d, x, n1, q, slots, rng)
    und = np.flatnonzero(codes == 0)
    total = int(und.size)
    if wsd is not None:
        worlds = np.array([rule.worlds_needed(float(s)) or 0 for s in wsd[und]], dtype=np.int64)
        need = worlds * q
    else:  # sized in queries given the ones in hand: the row's mean, its sd and df, or its betting interval's power
        if rule.interval == "betting":
            und = und[:betting_sample]  # ~0.3 s a draw: the interval's power is simulated
            need = np.array([n_given_queries_betting(rule, np.clip(d[r, :n1], -1, 1)) or 0 for r in und])
        else:
            _, df = cr2_rows(d[:, :n1], x["C"][:, :n1], x["G"])
            m1 = d[:, :n1].mean(axis=1)
            need = np.array([n_given_queries(rule, float(m1[r]), n1, float(sd[r]), float(df[r])) or 0 for r in und])
        need = need.astype(np.int64)
        worlds = np.ceil(need / q).astype(np.int64)
    priced = (need > 0) & (worlds > per)
    fits = priced & (worlds <= slots)
    right = wrong_n = 0
    for w in np.unique(worlds[fits]):
        rows = und[fits & (worlds == w)]
        sub = {"C": x["C"][rows], "G": x["G"]}
        c, _, _ = sd_rows(rule, cluster, d[rows], sub, int(w) * q, q, slots, rng)
        bad = wrong(rule, c, truth)
        right += int(np.sum((c != 0) & ~bad))
        wrong_n += int(np.sum(bad))
    n_fit = int(fits.sum())
    return {"undecided": total, "checked": int(und.size), "priced": int(priced.sum()), "fits": n_fit, "slots": slots,
            "decided": right / n_fit if n_fit else None, "wrong": wrong_n / n_fit if n_fit else None,
            "more_worlds_median": float(np.median(worlds[priced] - per)) if priced.any() else None}


SPENDINGS = ("obf", "hsd:-4", "hsd:-2", "hsd:0", "pocock")


def spending_rows(x: dict, mu: dict, looks: int, per: int, rng, spendings: tuple[str, ...] = SPENDINGS) -> list[dict]:
    """The kill rule (its world-aware interval) replayed under each spending function of :data:`SPENDINGS` on
    the same draws: the worst false-decision rate over the nulls, and per effect size the share decided correctly
    at the first look and by the last, and the worlds used."""
    from hcrbench.protocol import registry as reg
    from hcrbench.protocol import sequential as sq

    rule = reg.get("kill")
    cells = {}
    for kind in KINDS:
        for off in (-0.06, -rule.margin, 0.0, rule.margin, 0.06):
            d = construct(kind, round(off, 10), x, mu)
            if d is None:
                continue
            n_all = d.shape[1]
            step, q = n_all // looks, n_all // (looks * per)
            cl = [_clustered("nested", d, x, k * step, q, looks * per) for k in range(1, looks + 1)]
            cells[kind, off] = (d, step, cl)
    out = []
    for sp in spendings:
        row = {"spending": sp, "default": sp == sq.SPENDING, "levels": sq.levels(looks, spending=sp), "null": 0.0,
               "null_at": ""}
        acc: dict[str, list] = {}
        for (kind, off), (d, step, cl) in cells.items():
            seq, at = sequential_codes(lambda k, lvl, d=d, step=step, cl=cl: decide(rule, d[:, :k * step], lvl,
                                                                                 cl[k - 1], rng), looks, sp)
            w = wrong(rule, seq, off)
            if off == 0.0:
                if w.mean() >= row["null"]:
                    row["null"], row["null_at"] = float(w.mean()), kind
                continue
            right = (seq != 0) & ~w
            key = "0.06" if abs(abs(off) - 0.06) < 1e-9 else "margin"
            acc.setdefault(key, []).append((float(np.mean(right & (at == 1))), float(np.mean(right)),
                                            float(np.mean(np.where(at > 0, at, looks))) * per))
        for key, vals in acc.items():
            v = np.array(vals)
            row[key] = {"look1": float(v[:, 0].mean()), "overall": float(v[:, 1].mean()), "worlds": float(v[:, 2].mean())}
        out.append(row)
    return out


def brownian(looks: int, *, paths: int = 200_000, seed: int = 0, drifts: tuple[float, ...] = (2.8, 4.5),
             spendings: tuple[str, ...] = SPENDINGS) -> list[dict]:
    """Each spending function on a Brownian statistic with equal increments (the model its boundaries are built
    on): per drift (the fixed design's z at the last look; 2.8 is its 80% power) the share deciding at look 1, by
    look ``looks``, and the mean looks used; at drift 0 the share deciding at all (its alpha)."""
    from hcrbench.protocol import sequential as sq

    rng = np.random.default_rng(seed)
    inc = rng.standard_normal((paths, looks)) * math.sqrt(1 / looks)
    t = np.arange(1, looks + 1) / looks
    out = []
    for sp in spendings:
        c = np.array([sq.boundary(k, looks, spending=sp) for k in range(1, looks + 1)])
        row: dict = {"spending": sp, "drifts": {}}
        for theta in (0.0, *drifts):
            cross = np.abs((inc + theta / looks).cumsum(axis=1) / np.sqrt(t)) > c
            first = np.where(cross.any(axis=1), cross.argmax(axis=1) + 1, looks)
            row["drifts"][f"{theta:g}"] = {"look1": float(cross[:, 0].mean()), "by_k": float(cross.any(axis=1).mean()),
                                           "looks": float(first.mean())}
        out.append(row)
    return out


def needs_rows(pop: list[dict], mu: dict, *, reps: int, per: int, q: int, slots: int, rng) -> list[dict]:
    """:func:`needs_worlds_check` on every rule and construction at each truth a margin past a threshold, on
    draws of ``slots`` worlds (more than the design's K batches, so that a figure past K is checked too)."""
    x = draws(pop, reps, slots, q, rng)
    out = []
    for rname, rule, cr2 in rules():
        for kind in KINDS:
            for truth in sorted({round(t + off * rule.margin, 10) for t in (rule.go, rule.nogo) for off in (-1, 1)}):
                if not at_margin(rule, truth):
                    continue
                d = construct(kind, truth, x, mu)
                if d is None:
                    continue
                out.append({"rule": rname, "construction": kind, "truth": truth,
                            **needs_worlds_check(rule, cr2, d, truth, x, per, q, rng)})
    return out


def simulate(pop: list[dict], *, reps: int, looks: int, per: int, q: int, seed: int,
             spendings: tuple[str, ...] = SPENDINGS, need_sample: int = NEED_SAMPLE, need_slots: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    x = draws(pop, reps, looks * per, q, rng)
    mu = means(pop)
    rows = []
    for rname, rule, cr2 in rules():
        centre = rule.go
        for kind in KINDS:
            for off in OFFSETS:
                delta = off * rule.margin if off in (-1, 1) else off
                truth = round(centre + delta, 10)
                d = construct(kind, truth, x, mu)
                if d is None:
                    continue
                cell = run_cell(rule, cr2, d, truth, x, looks, per, rng, need_sample)
                rows.append({"rule": rname, "construction": kind, "truth": truth, "offset": delta,
                             "nominal": nominal(rule, truth), **cell})
        for kind, key, diff in (("real pair: bm25-nostem", "A-B", x["A"] - x["B"]),
                                ("real pair: dense-hash", "H-B", x["H"] - x["B"])):
            truth = mu[key]
            cell = run_cell(rule, cr2, diff, truth, x, looks, per, rng, need_sample)
            rows.append({"rule": rname, "construction": kind, "truth": truth, "offset": truth - centre,
                         "nominal": nominal(rule, truth), **cell})
    out = {"rows": rows, "means": mu, "spending": spending_rows(x, mu, looks, per, rng, spendings)}
    if need_slots > 0:
        out["needs_worlds"] = needs_rows(pop, mu, reps=reps, per=per, q=q, slots=need_slots, rng=rng)
    return out


# ------------------------------------------------------------------------------------------------ output


def _pm(p: float | None, reps: int) -> str:
    if p is None or p != p:
        return "—"
    se = math.sqrt(max(p, 1.0 / reps) * (1 - p) / reps)
    return f"{p:.1%} ±{1.96 * se:.1%}"


def summary(doc: dict) -> list[dict]:
    """Per rule and design: the worst false-decision rate at a null truth (over the constructions) against its
    nominal, and the lowest power at |truth - threshold| = margin and 0.06."""
    out = []
    reps = doc["config"]["reps"]
    for rname in dict.fromkeys(r["rule"] for r in doc["rows"]):
        rows = [r for r in doc["rows"] if r["rule"] == rname and not r["construction"].startswith("real")]
        for design in ("fixed1", "fixedK", "seq"):
            nulls = [r for r in rows if r["nominal"] > 0]
            worst = max(nulls, key=lambda r: r[design]["wrong"] - r["nominal"])
            # the worst of m noisy cells: its Monte-Carlo band is the one the largest of m rates at nominal stays
            # under 97.5% of the time (Bonferroni over the cells), not one cell's 1.96 SE
            z_m = float(NormalDist().inv_cdf(1 - 0.025 / len(nulls)))
            mc = z_m * math.sqrt(worst["nominal"] * (1 - worst["nominal"]) / reps)
            pooled = sum(r[design]["wrong"] - r["nominal"] for r in nulls) / len(nulls)
            pooled_mc = 1.96 * math.sqrt(sum(r["nominal"] * (1 - r["nominal"]) for r in nulls) / reps) / len(nulls)
            far = [r for r in rows if r["nominal"] == 0 and abs(abs(r["offset"]) - 0.06) < 1e-9]
            near = [r for r in rows if r["nominal"] == 0 and abs(abs(r["offset"]) - 0.06) > 1e-9]
            out.append({"rule": rname, "design": design, "worst_false": worst[design]["wrong"],
                        "worst_at": f"{worst['construction']}, truth {worst['truth']:+.3f}",
                        "nominal": worst["nominal"], "within": worst[design]["wrong"] <= worst["nominal"] + mc,
                        "cells": len(nulls), "band": mc, "pooled_excess": pooled, "pooled_mc": pooled_mc,
                        "power_margin": min((r[design]["right"] for r in near), default=None),
                        "power_006": min((r[design]["right"] for r in far), default=None),
                        "wrong_off_null": max((r[design]["wrong"] for r in rows if r["nominal"] == 0), default=0.0)})
    return out


DESIGN = {"fixed1": "fixed, 1 batch, 95%", "fixedK": "fixed, K batches, 95%", "seq": "sequential, up to K"}


def markdown(doc: dict) -> str:
    c = doc["config"]
    reps = c["reps"]
    gen = f" (generator {c['generator']})" if c.get("generator") else ""
    lines = [f"{c['worlds']} fresh Meridian worlds{gen} of 500 documents (seeds {c['seed_base']}-"
             f"{c['seed_base'] + c['worlds'] - 1}), {reps} test sets per cell, batches of {c['worlds_per_batch']} "
             f"world(s) x {c['queries_per_world']} queries, K = {c['max_looks']} batches at most; population means "
             f"(nDCG@10): " + ", ".join(f"{NAMES[k]} {doc['means'][k]:.3f}" for k in ("B", "A", "H")) +
             f"; BM25-no-stem - BM25 {doc['means']['A-B']:+.4f}, dense-hash - BM25 {doc['means']['H-B']:+.3f}. "
             "± = 1.96 Monte-Carlo SE.", "",
             "| rule | design | worst false decision at a null truth (where) | nominal | within nominal + MC of the "
             "worst of m cells | mean excess over the m null cells | "
             "lowest power at ± margin | lowest power at ± 0.06 | worst wrong off the null |",
             "|---|---|---|---:|---|---:|---:|---:|---:|"]
    for s in summary(doc):
        band = f" (m = {s['cells']}: +{s['band']:.1%})" if "cells" in s else ""
        pooled = f"{s['pooled_excess']:+.2%} ±{s['pooled_mc']:.2%}" if "pooled_excess" in s else "—"
        lines.append(f"| {s['rule']} | {DESIGN[s['design']]} | {_pm(s['worst_false'], reps)} ({s['worst_at']}) | "
                     f"{s['nominal']:.1%} | {'yes' if s['within'] else '**no**'}{band} | {pooled} | "
                     f"{_pm(s['power_margin'], reps)} | {_pm(s['power_006'], reps)} | "
                     f"{_pm(s['wrong_off_null'], reps)} |")
    if doc.get("spending"):
        lines += ["", "**Spending functions** (the kill rule, its world-aware interval, the same draws; power: the "
                  "share decided correctly, averaged over the dense-heavy-noise, sparse and skewed constructions "
                  "(dense is decided at once by all); nominal 5% overall):", "",
                  "| spending function | level at each look | worst false decision at truth 0 | "
                  "± margin: at look 1 / by look K | ± 0.06: at look 1 / by look K | worlds used at ± 0.06 |",
                  "|---|---|---:|---|---|---:|"]
        for r in doc["spending"]:
            lv = ", ".join(f"{round(v * 100, 3 if v > 0.9999 else 2):g}%" for v in r["levels"])
            mg, far = r.get("margin") or {}, r.get("0.06") or {}
            lines.append(f"| {r['spending']}{' (default)' if r.get('default') else ''} | {lv} | "
                         f"{_pm(r['null'], reps)} ({r['null_at']}) | "
                         f"{mg.get('look1', float('nan')):.1%} / {mg.get('overall', float('nan')):.1%} | "
                         f"{far.get('look1', float('nan')):.1%} / {far.get('overall', float('nan')):.1%} | "
                         f"{far.get('worlds', float('nan')):.1f} |")
    if doc.get("brownian"):
        ds = [k for k in doc["brownian"][0]["drifts"] if k != "0"]
        lines += ["", f"**The same spending functions on a Brownian statistic** (the model their boundaries are built "
                  f"on; K = {c['max_looks']} equal looks, 200,000 paths; drift = the fixed design's z at the last look, "
                  "2.8 = its 80% power): decided at look 1 / by look K / mean looks used", "",
                  "| spending function | drift 0: decided by K | " + " | ".join(f"drift {d}" for d in ds) + " |",
                  "|---|---:|" + "---|" * len(ds)]
        for r in doc["brownian"]:
            cells = [f"{r['drifts'][d]['look1']:.1%} / {r['drifts'][d]['by_k']:.1%} / {r['drifts'][d]['looks']:.2f}"
                     for d in ds]
            lines.append(f"| {r['spending']} | {r['drifts']['0']['by_k']:.2%} | " + " | ".join(cells) + " |")
    if doc.get("needs_worlds"):
        slots = doc["needs_worlds"][0]["slots"]
        lines += ["", "**\"needs ~ n\" in worlds, checked** (what an undecided row prints, "
                  "`undecided.needs_worlds`: on the interval over worlds, the worlds at which a t on worlds - 1 df "
                  "has power 0.8 at the margin, on one world's sd floored by the queries' topic-clustered sampling; "
                  "on the topic interval and checkpoint 3's, the n at which the interval it is judged on (the topic "
                  "CR2 t on its df; the betting interval, its power simulated) has power 0.8 at the margin on either "
                  "side given the queries in hand, over the queries per world, rounded up; a betting row's first "
                  "150 undecided draws checked, the count shown after /). Each draw undecided after its first batch, at a truth a margin past a threshold, judged "
                  f"again at 95% on exactly the worlds its row printed (up to {slots}); the figure promises 80%:", "",
                  "| rule | construction | truth | undecided after batch 1 | priced (more worlds printed) | "
                  "median more worlds | judged at the printed worlds | decided correctly there | wrong there |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in doc["needs_worlds"]:
            med = "—" if r["more_worlds_median"] is None else f"{r['more_worlds_median']:g}"
            dec = "—" if r["decided"] is None else f"{r['decided']:.0%}"
            bad = "—" if r["wrong"] is None else f"{r['wrong']:.1%}"
            und = r["undecided"] if r.get("checked", r["undecided"]) == r["undecided"] else \
                f"{r['undecided']} / {r['checked']}"
            lines.append(f"| {r['rule']} | {r['construction']} | {r['truth']:+.3f} | {und} | "
                         f"{r['priced']} | {med} | {r['fits']} | {dec} | {bad} |")
    lines += ["", "| rule | construction | truth | fixed 1 batch: wrong / right | fixed K: wrong / right | "
              "sequential: wrong / right | worlds used | needs ~ M decided by M |", "|---|---|---:|---|---|---|---:|---|"]
    for r in doc["rows"]:
        nd = r.get("needs")
        need = "—" if not nd or nd["decided_by_M"] is None else \
            f"{nd['decided_by_M']:.0%} of {nd['within_budget']} (of {nd['checked']})"
        lines.append(f"| {r['rule']} | {r['construction']} | {r['truth']:+.3f} | "
                     f"{r['fixed1']['wrong']:.1%} / {r['fixed1']['right']:.1%} | "
                     f"{r['fixedK']['wrong']:.1%} / {r['fixedK']['right']:.1%} | "
                     f"{r['seq']['wrong']:.1%} / {r['seq']['right']:.1%} | {r['seq']['worlds']:.1f} | {need} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"a few minutes: {QUICK}")
    for k, v in FULL.items():
        ap.add_argument(f"--{k.replace('_', '-')}", type=int, default=None, help=f"default {v} ({QUICK[k]} quick)")
    ap.add_argument("--seed-base", type=int, default=SEED_BASE)
    ap.add_argument("--seed", type=int, default=0, help="the draws' seed")
    ap.add_argument("--workdir", default=None, help="where the worlds and runs go (default: a temp folder)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    cfg = {k: (getattr(a, k) if getattr(a, k) is not None else (QUICK if a.quick else FULL)[k]) for k in FULL}
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="calibrate-") as tmp:
        work = Path(a.workdir or tmp).resolve()
        work.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("HCRBENCH_HOME", str(work / "home"))  # the worlds' scorings stay out of ~/.hcrbench
        pop = population(cfg["worlds"], a.seed_base, work)
    sim = simulate(pop, reps=cfg["reps"], looks=cfg["max_looks"], per=cfg["worlds_per_batch"],
                   q=cfg["queries_per_world"], seed=a.seed, need_slots=cfg["need_slots"])
    from hcrbench.synth.generate import GENERATOR_VERSION

    doc = {"config": {**cfg, "seed_base": a.seed_base, "seed": a.seed, "quick": bool(a.quick),
                      "generator": GENERATOR_VERSION}, **sim,
           "brownian": brownian(cfg["max_looks"])}
    print(markdown(doc))
    print(f"{time.time() - t0:.0f} s", file=sys.stderr)
    if a.json:
        p = Path(a.json)
        tmp_p = p.with_suffix(p.suffix + ".tmp")
        tmp_p.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        tmp_p.replace(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
