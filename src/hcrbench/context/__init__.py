"""Token-budgeted context selection: from a system's ranked chunks to the context a reader gets under B tokens.

:class:`ChunkIndex` expands a (document or chunk) run into ranked :class:`Candidate` chunks; :func:`select`
chooses among them by ``greedy`` (skip or stop at first overflow), ``mmr`` or ``submodular`` (AdaGReS-style) so
that the chosen chunks total at most ``B`` tokens of one named counter. Scoring the contexts (sufficiency@B) is
``hcrbench.metrics.sufficiency``'s job.
"""

from hcrbench.context.candidates import Candidate, ChunkIndex
from hcrbench.context.select import (
    METHODS,
    Selection,
    adaptive_beta,
    greedy,
    greedy_positions,
    mmr,
    select,
    submodular,
)
from hcrbench.context.similarity import (
    RANKING_SIGNALS,
    TfidfSimilarity,
    VectorSimilarity,
    delivered_overlap,
    rank_gain,
    ranking_signals,
)

__all__ = [
    "METHODS",
    "RANKING_SIGNALS",
    "Candidate",
    "ChunkIndex",
    "Selection",
    "TfidfSimilarity",
    "VectorSimilarity",
    "adaptive_beta",
    "delivered_overlap",
    "greedy",
    "greedy_positions",
    "mmr",
    "rank_gain",
    "ranking_signals",
    "select",
    "submodular",
]
