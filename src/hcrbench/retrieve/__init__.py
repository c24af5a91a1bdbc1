"""First-stage retrievers and rerankers (BM25, dense, hybrid, rerank, run file) behind one small protocol.

Importing this package imports no heavy library (bm25s, torch, faiss): they load when a system is built.
"""

from hcrbench.retrieve.base import (
    Retriever,
    accepted_params,
    available_retrievers,
    check_params,
    is_builtin,
    is_known,
    make_retriever,
    register_retriever,
)
from hcrbench.retrieve.fusion import normalise_scores, rrf, trec_ranks, weighted_fusion
from hcrbench.retrieve.fusion_methods import fuse
from hcrbench.retrieve.system_traits import Traits, traits

__all__ = [
    "Retriever",
    "Traits",
    "accepted_params",
    "available_retrievers",
    "check_params",
    "fuse",
    "is_builtin",
    "is_known",
    "make_retriever",
    "normalise_scores",
    "register_retriever",
    "rrf",
    "traits",
    "trec_ranks",
    "weighted_fusion",
]
