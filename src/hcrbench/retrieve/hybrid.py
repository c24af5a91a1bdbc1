"""Hybrid retrieval: run several first-stage systems (default BM25 + dense) and fuse their runs.

``method="rrf"`` (default; k = ``rrf_k`` = 60) or ``method="weighted"`` (per-query ``norm``-alised scores summed with
``weights``). Each system retrieves ``max(depth, k)`` documents per query before fusion; the fused run is cut
to ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hcrbench.data.types import Corpus, Costs, Queries, RunResult
from hcrbench.errors import InputError
from hcrbench.retrieve.base import Retriever, make_retriever, register_retriever
from hcrbench.retrieve.fusion import NORMS, rrf, weighted_fusion
from hcrbench.retrieve.system_traits import Traits
from hcrbench.retrieve.util import finite_float, finite_nonneg, int_at_least, prefixed_costs, timed


def _split(v: str | Sequence[Any]) -> list[str]:
    return [s.strip() for s in v.split(",") if s.strip()] if isinstance(v, str) else [str(s) for s in v]


@register_retriever("hybrid")
class HybridRetriever:
    """Fuses ``systems`` (comma list of registered names). Per-system parameters go in ``system_params``."""

    traits = Traits(stage="first", encoder_param="dense_backend")

    def __init__(
        self,
        systems: str | Sequence[str] = "bm25,dense",
        method: str = "rrf",
        rrf_k: float = 60,
        weights: str | Sequence[float] | None = None,
        norm: str = "minmax",
        depth: int = 100,
        system_params: dict[str, dict[str, Any]] | None = None,
        dense_backend: str | None = None,
        dense_model: str | None = None,
        cache: bool = True,
        cache_dir: str | None = None,
        name: str = "hybrid",
        retrievers: Sequence[Retriever] | None = None,
    ) -> None:
        if method not in ("rrf", "weighted"):
            raise InputError(f"unknown fusion method {method!r} (expected 'rrf' or 'weighted')", field="method")
        if norm not in NORMS:
            raise InputError(f"unknown normalisation {norm!r} (expected one of {', '.join(NORMS)})", field="norm")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise InputError(f"depth must be an integer >= 1, got {depth!r}", field="depth")
        rrf_k = finite_nonneg(rrf_k, "rrf_k")
        if system_params is not None and (not isinstance(system_params, dict) or not all(
                isinstance(v, dict) for v in system_params.values())):
            raise InputError(f"system_params must be a table of tables ({{system: {{param: value}}}}), "
                             f"got {system_params!r}", field="system_params")
        if retrievers is None:
            names = _split(systems)
            if len(names) < 1 or "hybrid" in names:
                raise InputError(f"systems must list first-stage systems, got {systems!r}", field="systems")
            sp = {k: dict(v) for k, v in (system_params or {}).items()}
            if dense_backend is not None:
                sp.setdefault("dense", {})["backend"] = dense_backend
            if dense_model is not None:
                sp.setdefault("dense", {})["model"] = dense_model
            retrievers = []
            for n in names:
                p = sp.get(n, {})
                if n in ("bm25", "dense"):
                    p = {"cache": cache, "cache_dir": cache_dir, **p}
                retrievers.append(make_retriever(n, **p))
        self.retrievers = list(retrievers)
        if weights is None:
            self.weights = [1.0] * len(self.retrievers)
        else:
            if isinstance(weights, str):
                items: Sequence[Any] = weights.split(",")
            elif isinstance(weights, (list, tuple)):
                items = weights
            else:  # a single number
                items = [weights]
            self.weights = [finite_float(w, "weights") for w in items]
            if len(self.weights) != len(self.retrievers):
                raise InputError(f"{len(self.weights)} weights for {len(self.retrievers)} systems",
                                 field="weights")
        self.method, self.rrf_k, self.norm, self.depth, self.name = method, float(rrf_k), norm, int(depth), name
        self.index_costs = Costs()

    @property
    def params(self) -> dict[str, Any]:
        p: dict[str, Any] = {"method": self.method, "depth": self.depth, "weights": self.weights,
                             "systems": {r.name: r.params for r in self.retrievers}}
        if self.method == "rrf":
            p["rrf_k"] = self.rrf_k
        else:
            p["norm"] = self.norm
        return p

    def index(self, corpus: Corpus) -> None:
        costs = Costs()
        for r in self.retrievers:
            r.index(corpus)
            costs = costs.merge(prefixed_costs(getattr(r, "index_costs", Costs()), r.name))
        self.index_costs = costs

    def search(self, queries: Queries, k: int = 100) -> RunResult:
        k = int_at_least(k, "k", 1)
        costs = Costs()
        runs = []
        for r in self.retrievers:
            res = r.search(queries, max(self.depth, k))
            runs.append(res.run)
            costs = costs.merge(prefixed_costs(res.costs, r.name))
        with timed(costs, "fusion"):
            if self.method == "rrf":
                fused = rrf(runs, k=self.rrf_k, weights=self.weights, name=self.name)
            else:
                fused = weighted_fusion(runs, self.weights, norm=self.norm, name=self.name)
            fused = fused.top_k(k)
        costs.add("queries", len(queries))
        return RunResult(fused, costs)

