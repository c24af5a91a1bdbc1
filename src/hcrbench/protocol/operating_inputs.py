"""What each rule's operating characteristics are replayed from, gathered from one experiment's results: the real
per-query differences behind each comparison, the kill baseline's and the oracle's per-query scores (the mixture
construction), the n of each rate, the sd of a mean, the number of routing conditions.

Only rules that were run get inputs (a rule "not run" has no n to replay at).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from hcrbench.protocol.inputs import GROWTH_CATEGORIES
from hcrbench.protocol.operating import Inputs
from hcrbench.protocol.rules import NOT_RUN


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
    from hcrbench.protocol.row import Row

    return Row.word_of(row)


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


def system_vs_kill(ctx: Any, s: Any) -> Inputs | None:
    """The system's per-query differences from the kill baseline, with the kill baseline's and the oracle's
    per-query scores for the mixture construction (None with fewer than two common queries)."""
    base_run = ctx.evaluation.runs.get(ctx.p.kill_baseline)
    if s.scores is None or base_run is None:
        return None
    a, b = aligned(s.scores, base_run, ctx.metric)
    if a.size < 2:
        return None
    oracle = ctx.cache.get("oracle_scores")
    high = aligned(oracle, base_run, ctx.metric)[0] if oracle is not None else np.ones_like(b)
    if high.size != b.size:
        high = np.ones_like(b)
    return Inputs(n=int(a.size), diffs=a - b, base=b, high=high, low=np.zeros_like(b))


def dict_diff_inputs(a: dict[str, float] | None, b: dict[str, float] | None) -> Inputs | None:
    """Paired per-query differences of two ``{query: value}`` maps on their common queries."""
    d = _dict_diffs(a, b)
    return None if d is None else Inputs(n=int(d.size), diffs=d)


def gather(ctx: Any, s: Any, rows: dict[str, dict]) -> dict[str, Inputs]:
    """``{rule id: Inputs}`` for every rule of ``rows`` (id -> row) that ran, each from its own rule
    (``Rule.replay_inputs``), in the registry's order."""
    from hcrbench.protocol import registry as reg

    out: dict[str, Inputs] = {}
    for rule in reg.rules():
        row = rows.get(rule.id)
        if row is None or _status(row) == NOT_RUN:
            continue
        x = rule.replay_inputs(ctx, s, row)
        if x is not None:
            out[rule.id] = x
    return out


@dataclasses.dataclass
class Folder:
    """A finished experiment folder as the rules' replays read it back (``per_query.csv``, ``verdicts.json``):
    the per-query scores wide (query x run), the verdicts' rows by id, and ``n_override`` (replay at that n)."""

    out: Any
    verdicts: dict[str, Any]
    wide: Any
    df: Any
    rows: dict[str, dict]
    n_override: int | None = None

    def n_of(self, n: int) -> int:
        return int(self.n_override or n)

    def _sys_base(self, baseline: str) -> tuple[np.ndarray, np.ndarray] | None:
        v = self.verdicts
        members = ((v.get("seed_aggregate") or {}).get("members")) or [v["system"]]
        if baseline not in self.wide or not all(x in self.wide for x in members) or \
                v["kill_baseline"] not in self.wide:
            return None
        sysv = self.wide[members].mean(axis=1).to_numpy(dtype=np.float64)
        return sysv, self.wide[baseline].to_numpy(dtype=np.float64)

    def system_vs_kill(self) -> Inputs | None:
        got = self._sys_base(self.verdicts["kill_baseline"])
        if got is None:
            return None
        sysv, base = got
        d = sysv - base
        return Inputs(n=self.n_of(d.size), diffs=d, base=base, high=np.ones_like(base), low=np.zeros_like(base))

    def kill_inputs(self, rule_id: str) -> Inputs | None:
        """The kill criterion's pair (against its row's ``evidence.judged_against`` when the kill baseline is no
        barrier), with the queries' clusters when the replay is at the run's own n."""
        x = self.system_vs_kill()
        if x is None:
            return None
        other = (self.rows.get(rule_id) or {}).get("evidence", {}).get("judged_against")
        if other and other in self.wide:
            sysv, ob = self._sys_base(other)  # type: ignore[misc]
            x = Inputs(n=x.n, diffs=sysv - ob, base=ob, high=np.ones_like(ob), low=np.zeros_like(ob))
        clusters = _clusters_of(self.out, list(self.wide.index))
        if clusters is not None and self.n_override is None:
            x = dataclasses.replace(x, clusters=clusters)
        return x

    def growth_inputs(self) -> Inputs | None:
        """System - kill baseline on the entity-spanning and multi-hop queries (per_query.csv's ``category``)."""
        x = self.system_vs_kill()
        if x is None or "category" not in self.df.columns:
            return None
        cats = self.df.drop_duplicates("query_id").set_index("query_id")["category"]
        keep = [q in set(cats[cats.isin(GROWTH_CATEGORIES)].index) for q in self.wide.index]
        if sum(keep) < 2:
            return None
        return Inputs(n=self.n_of(int(sum(keep))), diffs=x.diffs[np.asarray(keep)])  # type: ignore[index]

    def rate_inputs(self, rule_id: str, scaled: bool = True) -> Inputs | None:
        """A rate or count rule replayed at the n of its row (``scaled``: at ``n_override`` when given)."""
        r = self.rows.get(rule_id)
        if not r or not r.get("n") or _status(r) == NOT_RUN:
            return None
        return Inputs(n=self.n_of(int(r["n"])) if scaled else int(r["n"]))


def from_out(out: Any, n_override: int | None = None) -> tuple[dict[str, Inputs], dict[str, Any]]:
    """Inputs read back from a finished experiment folder (``per_query.csv``, ``verdicts.json``): the paired
    nDCG@10 rules from the per-query scores (the system's seed group averaged), the rates and conditions at the
    n of their rows, each by its own rule (``Rule.replay_inputs_from_out``). ``n_override`` replays every rule at
    that n instead (a larger suite's operating characteristics from this one's per-query spread). Returns
    (inputs, verdicts doc)."""
    import json
    from pathlib import Path

    from hcrbench.data.per_query import read_per_query
    from hcrbench.protocol import registry as reg

    out = Path(out)
    v = json.loads((out / "verdicts.json").read_text(encoding="utf-8"))
    df = read_per_query(out)
    wide = df.pivot_table(index="query_id", columns="run", values=v["metric"], aggfunc="mean")
    rows = {r["id"]: r for r in (*v["checkpoints"], *v["hypotheses"])}
    folder = Folder(out, v, wide, df, rows, n_override)
    ins: dict[str, Inputs] = {}
    for rule in reg.rules():
        x = rule.replay_inputs_from_out(folder)
        if x is not None:
            ins[rule.id] = x
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
