"""Per-query values of every measure from a run's judged hits (trec_eval semantics; see docs/metrics.md).

Each measure is a few numpy operations over the hits (judged retrieved docs, sorted by query then rank), the
per-query relevant counts and, for nDCG, the ideal gains. Sums run in rank order like trec_eval's loops, so
values agree with pytrec_eval to the last few ulps.
"""

from __future__ import annotations

import numpy as np

from hcrbench.metrics import cascade, incomplete, interpolated
from hcrbench.metrics._groups import count_before
from hcrbench.metrics.encode import Hits, QrelsIndex
from hcrbench.metrics.measures import Measure

#: GMAP's floor on AP before the log (trec_eval's MIN_GEO_MEAN).
MIN_GEO_MEAN = 0.00001


class _Context:
    """Caches shared by the measures of one run: relevance masks and relevant counts per threshold."""

    def __init__(self, hits: Hits, index: QrelsIndex) -> None:
        self.hits = hits
        self.index = index
        self.nq = index.n_queries
        self._nrel: dict[int, np.ndarray] = {}
        self._ideal: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.hits.query[mask], minlength=self.nq).astype(np.float64)

    def rel(self, t: int) -> np.ndarray:
        g = self.hits.grade
        return (g >= t) & (g >= 0)

    def n_rel(self, t: int) -> np.ndarray:
        if t not in self._nrel:
            self._nrel[t] = self.index.n_relevant(t)
        return self._nrel[t]

    def n_nonrel(self, t: int) -> np.ndarray:
        """Per qrels query, judged docs with 0 <= grade < t (bpref's judged non-relevant)."""
        g = self.index.qrels.grades
        mask = (g >= 0) & (g < t)
        return np.bincount(self.index.entry_query, weights=mask, minlength=self.nq).astype(np.int64)

    def ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._ideal is None:
            self._ideal = self.index.ideal_gains()
        return self._ideal


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(num.shape[0], dtype=np.float64)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


def _cut(rank: np.ndarray, k: int | None) -> np.ndarray:
    return np.ones(rank.shape[0], dtype=bool) if k is None else rank < k


def _discounted(query: np.ndarray, rank: np.ndarray, gain: np.ndarray, k: int | None, nq: int) -> np.ndarray:
    keep = _cut(rank, k) & (gain > 0)
    r, g = rank[keep], gain[keep]
    return np.bincount(query[keep], weights=g / np.log2(r + 2.0), minlength=nq)


def _mapped_gains(measure: Measure, grade: np.ndarray, index: QrelsIndex
                  ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Hit gains and the ideal (query, rank, gain) under a ``gains={grade: gain}`` mapping."""
    table = dict(measure.param("gains"))  # type: ignore[arg-type]

    def remap(g: np.ndarray) -> np.ndarray:
        out = g.astype(np.float64).copy()
        for k, v in table.items():
            out[g == k] = v
        return np.maximum(out, 0.0)

    qg = remap(index.qrels.grades.astype(np.int64))
    pos = qg > 0
    q, g = index.entry_query[pos], qg[pos]
    order = np.lexsort((-g, q))
    q, g = q[order], g[order]
    return remap(grade), (q, count_before(q, np.ones(q.size, dtype=bool)), g)


def compute(measure: Measure, hits: Hits, index: QrelsIndex, rel_threshold: int, ctx: _Context | None = None
            ) -> np.ndarray:
    """Values of ``measure`` for every qrels query (position order of ``index``)."""
    ctx = ctx or _Context(hits, index)
    t = measure.threshold(rel_threshold)
    k = measure.cutoff
    kind = measure.kind
    q, rank = hits.query, hits.rank
    if kind == "nDCG":
        gains = np.maximum(hits.grade, 0).astype(np.float64)
        iq, irank, igain = ctx.ideal()
        if measure.param("gains") is not None:  # ir_measures' gains={grade: gain} (unmapped grades keep theirs)
            gains, (iq, irank, igain) = _mapped_gains(measure, hits.grade, index)
        if measure.param("dcg") == "exp-log2":  # Burges et al.: gain 2^g - 1 (ranx ndcg_burges, gdeval)
            gains, igain = np.exp2(gains) - 1.0, np.exp2(igain) - 1.0
        dcg = _discounted(q, rank, gains, k, ctx.nq)
        idcg = _discounted(iq, irank, igain, k, ctx.nq)
        return _divide(dcg, idcg)
    if kind == "DCG":  # ranx dcg / dcg_burges: nDCG's numerator alone (gain = grade, or 2^grade - 1)
        gains = np.maximum(hits.grade, 0).astype(np.float64)
        if measure.param("dcg") == "exp-log2":
            gains = np.exp2(gains) - 1.0
        return _discounted(q, rank, gains, k, ctx.nq)
    if kind in ("ERR", "nERR"):
        grade = np.where(hits.grade > 0, hits.grade, 0)
        gmax = int(measure.param("max"))  # type: ignore[call-overload]
        if kind == "ERR":
            return cascade.err_values(q, rank, grade, k, gmax, ctx.nq)  # type: ignore[arg-type]
        return cascade.nerr_values(q, rank, grade, ctx.ideal(), k, gmax, ctx.nq)  # type: ignore[arg-type]
    if kind in ("Judged", "Unjudged") or (kind == "NumRet" and measure.rel is None):
        n_ret = hits.n_ret.astype(np.float64)
        if kind == "NumRet":
            return n_ret
        depth = n_ret if k is None else np.minimum(n_ret, k)
        if kind == "Judged":  # any qrels entry, negative grades included (ir_measures)
            return _divide(ctx.count(_cut(rank, k)), depth)
        judged = ctx.count(_cut(rank, k) & (hits.grade >= 0))  # trec_eval unj: negative grade = unjudged
        return (depth - judged) / float(k)  # type: ignore[arg-type]
    rel = ctx.rel(t)
    n_rel = ctx.n_rel(t).astype(np.float64)
    if kind == "NumRel":
        return n_rel
    if kind in ("NumRelRet", "NumRet"):  # NumRet(rel=r): retrieved docs with grade >= r (ir_measures)
        return ctx.count(rel)
    if kind == "Hits":  # ranx hits@k: how many relevant docs are in the top k
        return ctx.count(rel & _cut(rank, k))
    if kind in ("SetP", "SetR", "SetF"):
        n_rel_ret = ctx.count(rel)
        set_p = _divide(n_rel_ret, hits.n_ret.astype(np.float64))
        set_r = _divide(n_rel_ret, n_rel)
        if kind == "SetP":
            return set_p
        if kind == "SetR":
            return set_r
        b2 = float(measure.param("beta")) ** 2  # type: ignore[arg-type]
        return _divide((1.0 + b2) * set_p * set_r, b2 * set_p + set_r)
    if kind == "Bpref":
        return incomplete.bpref_values(q, hits.grade, t, n_rel, ctx.n_nonrel(t).astype(np.float64), ctx.nq)
    if kind == "infAP":
        return incomplete.infap_values(q, rank, hits.grade, t, n_rel, ctx.nq)
    if kind in ("IPrec", "11pt_avg"):
        levels = (float(measure.param("recall")),) if kind == "IPrec" else interpolated.ELEVEN_POINTS  # type: ignore[arg-type]
        values = interpolated.iprec_values(q, rank, rel, ctx.n_rel(t), ctx.nq, levels)
        return values[0] if kind == "IPrec" else values.sum(axis=0) / len(levels)
    if kind == "RBP":
        return cascade.rbp_values(q, rank, rel, float(measure.param("p")), k, ctx.nq)  # type: ignore[arg-type]
    if kind == "GMAP":  # per-query ln(max(AP, 1e-5)); the mean is exp(mean) (see RunEvaluation.means)
        ap = compute(Measure("AP", None, measure.rel), hits, index, rel_threshold, ctx)
        return np.log(np.maximum(ap, MIN_GEO_MEAN))
    if kind == "P":
        return ctx.count(rel & _cut(rank, k)) / float(k)  # type: ignore[arg-type]
    if kind == "R":
        return _divide(ctx.count(rel & _cut(rank, k)), n_rel)
    if kind == "F1":  # ranx f1@k = 2 P@k R@k / (P@k + R@k); without k, P is over every retrieved doc
        found = ctx.count(rel & _cut(rank, k))
        depth = hits.n_ret.astype(np.float64) if k is None else np.full(ctx.nq, float(k))
        prec, rec = _divide(found, depth), _divide(found, n_rel)
        return _divide(2.0 * prec * rec, prec + rec)
    if kind == "Success":
        return (ctx.count(rel & _cut(rank, k)) > 0).astype(np.float64)
    if kind == "Rprec":
        return _divide(ctx.count(rel & (rank < ctx.n_rel(t)[q])), n_rel)
    rq, rr = q[rel], rank[rel]  # relevant hits, grouped by query, rank ascending
    if kind == "RR":
        out = np.zeros(ctx.nq, dtype=np.float64)
        if rq.size:
            first = np.r_[True, rq[1:] != rq[:-1]]
            fq, fr = rq[first], rr[first]
            keep = _cut(fr, k)
            out[fq[keep]] = 1.0 / (fr[keep] + 1.0)
        return out
    if kind == "AP":
        if rq.size == 0:
            return np.zeros(ctx.nq, dtype=np.float64)
        first = np.r_[True, rq[1:] != rq[:-1]]
        starts = np.flatnonzero(first)
        seen = np.arange(1, rq.size + 1) - np.repeat(starts, np.diff(np.r_[starts, rq.size]))
        prec = seen / (rr + 1.0)
        keep = _cut(rr, k)
        return _divide(np.bincount(rq[keep], weights=prec[keep], minlength=ctx.nq), n_rel)
    raise ValueError(f"unknown measure kind {kind!r}")  # parse_measure never lets one through


def compute_all(measures: list[Measure], hits: Hits, index: QrelsIndex, rel_threshold: int
                ) -> dict[str, np.ndarray]:
    """``{measure name: values per qrels query}`` for one run."""
    ctx = _Context(hits, index)
    return {m.name: compute(m, hits, index, rel_threshold, ctx) for m in measures}
