"""The measures added for issue #13 (bpref, infAP, gm_map, IPrec, 11pt_avg, SetP/R/F) vs pytrec_eval, side by side.

Same synthetic data as bench_metrics.py (Q queries x D docs, ties, 30 judged docs per query, grades 0-3).
Timed: pytrec_eval's ``evaluate(run_dict)`` alone vs hcrbench's ``evaluate(Qrels, Run, ...)`` (the whole call).
Per-query values are compared (max |difference| printed; iprec/11pt_avg can differ where trec_eval 9's
``(long)(x*R + 0.9)`` and trec_eval 10's ``lround(x*R)`` disagree, so only the measures without that
difference are compared).

Usage: python benchmarks/bench_measures_extra.py [--queries 2000] [--depth 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import pytrec_eval

from bench_metrics import make_data
from hcrbench.metrics import evaluate

PTE = {"bpref": "Bpref", "infAP": "infAP", "gm_map": "GMAP", "set_P": "SetP", "set_recall": "SetR",
       "set_F": "SetF", "iprec_at_recall_0.50": "IPrec@0.5", "11pt_avg": "11pt_avg"}
COMPARED = ("bpref", "infAP", "gm_map", "set_P", "set_recall", "set_F")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    qrels, run, qd, rd = make_data(a.queries, a.depth, a.seed)
    ev = pytrec_eval.RelevanceEvaluator(qd, {"bpref", "infAP", "gm_map", "set_P", "set_recall", "set_F",
                                             "iprec_at_recall", "11pt_avg"})
    t_pte, t_ours = [], []
    for _ in range(a.repeat):
        t = time.perf_counter()
        want = ev.evaluate(rd)
        t_pte.append(time.perf_counter() - t)
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = next(iter(evaluate(qrels, run, list(PTE.values()))))
        t_ours.append(time.perf_counter() - t)
    diff = max(abs(got.per_query[PTE[m]][q] - want[q][m]) for m in COMPARED for q in want)
    print(f"{a.queries} queries x {a.depth} docs, 8 measures (bpref, infAP, gm_map, IPrec@0.5, 11pt_avg, set_P/R/F)")
    print(f"pytrec_eval evaluate: {min(t_pte):.2f} s   hcrbench evaluate: {min(t_ours):.2f} s   "
          f"ratio {min(t_pte) / min(t_ours):.1f}x   max |diff| {diff:.1e}")


if __name__ == "__main__":
    main()
