"""trec_eval-exact retrieval metrics, vectorised, with a denominator ledger (semantics: docs/metrics.md).

``evaluate(qrels, runs, "nDCG@10,R@100,RR")`` -> :class:`EvaluationResult` (``.means``, ``.per_query``,
``.ledger``). Measure strings follow ir_measures (``P(rel=2)@5``) and trec_eval names (``ndcg_cut_10``).
"""

from hcrbench.metrics.diversity import alpha_ndcg
from hcrbench.metrics.evaluate import MISSING_POLICIES, EvaluationResult, RunEvaluation, evaluate
from hcrbench.metrics.ledger import Ledger
from hcrbench.metrics.measures import (
    KINDS,
    TREC_EVAL_NAMES,
    Measure,
    parse_measure,
    parse_measures,
    trec_eval_name,
)

__all__ = [
    "KINDS",
    "MISSING_POLICIES",
    "TREC_EVAL_NAMES",
    "EvaluationResult",
    "Ledger",
    "Measure",
    "RunEvaluation",
    "alpha_ndcg",
    "evaluate",
    "parse_measure",
    "parse_measures",
    "trec_eval_name",
]
