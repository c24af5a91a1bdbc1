"""RAPTOR (recursive abstractive processing for tree-organised retrieval) as a baseline, registered as ``raptor``.

``cluster`` (UMAP + GMM/BIC, soft assignment, re-clustering with guards), ``tree`` (build, persist, reload),
``select`` (collapsed tree and tree traversal, nodes -> documents), ``retriever`` (the registered system).
UMAP and scikit-learn load only when a tree is built.
"""

from hcrbench.retrieve.raptor.cluster import ClusterConfig, raptor_clusters
from hcrbench.retrieve.raptor.retriever import RaptorRetriever
from hcrbench.retrieve.raptor.tree import RaptorTree, TreeConfig, build_tree

__all__ = ["ClusterConfig", "RaptorRetriever", "RaptorTree", "TreeConfig", "build_tree", "raptor_clusters"]
