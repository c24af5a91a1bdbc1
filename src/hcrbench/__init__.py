"""hcrbench: honest, fast retrieval evaluation — trec_eval-exact metrics, paired statistics, a falsification gate.

The top-level API mirrors the CLI: :func:`evaluate` scores runs against qrels, :func:`compare` adds the paired
statistics. Heavy sub-packages are imported on first use.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "compare", "evaluate"]


def evaluate(qrels: Any, run_or_runs: Any, metrics: Any = "nDCG@10", **kwargs: Any):
    """Score one run or several against qrels; see :func:`hcrbench.metrics.evaluate`."""
    from hcrbench.metrics import evaluate as _evaluate

    return _evaluate(qrels, run_or_runs, metrics, **kwargs)


def compare(*args: Any, **kwargs: Any):
    """Paired statistics of runs against a baseline; see :func:`hcrbench.stats.compare`."""
    from hcrbench.stats import compare as _compare

    return _compare(*args, **kwargs)
