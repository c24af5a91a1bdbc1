"""An evaluation as trec_eval prints it (``trec_eval [-q] qrels run``): ``measure<TAB>query<TAB>value`` lines.

Per run: with ``per_query`` every query's lines first (trec_eval ``-q``), queries in trec_eval's order (query ids
sorted as byte strings, ``strcmp``: ``10`` before ``9``), then the ``all`` lines: ``runid`` (the run tag of the
file when the caller gives it, as trec_eval prints it, else the run's name),
``num_q`` and each measure's mean (``%-22s\\t%s\\t%6.4f``, trec_eval's format). Measures use trec_eval's names
where it has one (``ndcg_cut_10``, ``map``, ``P_5``; :func:`~hcrbench.metrics.measures.trec_eval_name`) and
hcrbench's otherwise; the counts (``num_rel``, ``num_ret``, ``num_rel_ret``, ir_measures' summed measures such as
``NumQ``) are integers and their ``all`` line is the sum over queries, as in trec_eval
(:mod:`hcrbench.metrics.aggregate`). Several runs give one block each, each opening with its ``runid``.
"""

from __future__ import annotations

from typing import Any

from hcrbench.metrics.aggregate import aggregation
from hcrbench.metrics.measures import parse_measure, trec_eval_name


def trec_eval_text(result: Any, per_query: bool = False, run_ids: dict[str, str] | None = None) -> str:
    """``result`` (an :class:`~hcrbench.metrics.EvaluationResult`) as trec_eval's text output; ``run_ids`` maps a
    run's name to the ``runid`` printed (the file's run tag)."""
    lines: list[str] = []
    for name, run in result.runs.items():
        measures = [(m, parse_measure(m)) for m in result.metrics]
        labels = [trec_eval_name(pm) or m for m, pm in measures]
        counts = [aggregation(pm) == "sum" for _, pm in measures]

        def cell(v: float, count: bool) -> str:
            return str(round(v)) if count else f"{v:6.4f}"

        if per_query:
            order = sorted(range(len(run.query_ids)), key=lambda i: run.query_ids[i].encode("utf-8", "surrogatepass"))
            for i in order:
                q = run.query_ids[i]
                for (m, _), label, count in zip(measures, labels, counts):
                    lines.append(f"{label:<22}\t{q}\t{cell(float(run.values[m][i]), count)}")
        lines.append(f"{'runid':<22}\tall\t{(run_ids or {}).get(name, name)}")
        lines.append(f"{'num_q':<22}\tall\t{len(run.query_ids)}")
        for (m, _), label, count in zip(measures, labels, counts):
            value = float(run.means[m])
            lines.append(f"{label:<22}\tall\t{cell(value, count)}")
    return "\n".join(lines) + "\n"
