"""First-stage retrievers and rerankers (BM25, dense, hybrid, rerank, run file) behind one small protocol.

Importing this package imports no heavy library (bm25s, torch, faiss): they load when a system is built.
"""

from hcrbench.retrieve.base import (
    Retriever,
    accepted_params,
    available_retrievers,
    make_retriever,
    register_retriever,
)
from hcrbench.retrieve.fusion import normalise_scores, rrf, trec_ranks, weighted_fusion
from hcrbench.retrieve.fusion_methods import fuse

__all__ = [
    "Retriever",
    "accepted_params",
    "available_retrievers",
    "fuse",
    "make_retriever",
    "normalise_scores",
    "register_retriever",
    "rrf",
    "trec_ranks",
    "weighted_fusion",
]
