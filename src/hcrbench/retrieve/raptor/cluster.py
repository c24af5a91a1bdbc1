"""RAPTOR's clustering, as in parthsarthi03/raptor ``cluster_utils.py``: UMAP then a Gaussian mixture chosen by BIC.

One level of clustering: a *global* UMAP (``n_neighbors = int((N-1)**0.5)``, cosine, ``min(dim, N-2)``
components) and a GMM whose component count minimises BIC over ``1 .. min(max_clusters, N) - 1`` (the code's
``np.arange(1, max_clusters)``); every point joins each component it belongs to with probability > ``threshold``
(soft assignment, so a point can sit in several clusters). Inside each global cluster a *local* UMAP
(``n_neighbors=10``) and a second BIC-chosen GMM split it again. :func:`raptor_clusters` then re-clusters any
cluster whose texts exceed ``max_cluster_tokens`` (3,500).

Guards against the original's known failures (each a documented deviation): a group too small for UMAP (fewer
than ``n_neighbors + 1`` points, fewer than ``dim + 2``, or ``n_neighbors < 2``) is kept as one cluster instead
of crashing; re-clustering is bounded in depth and a cluster that cannot be split under the cap is cut into
consecutive runs of nodes under the cap (split-by-order), so it never recurses forever. Members are tracked by
position, not by matching embedding rows (the original's matching merges duplicate texts). UMAP and the GMM take
``seed``; with ``random_state`` set UMAP runs single-threaded, so the result is reproducible.

Speed (documented deviations, neither changes what a fit computes): the local UMAP + GMM fits of sibling global
clusters run in parallel worker processes (``n_jobs``, 0 = every core), gathered in cluster order, and so do the
GMM fits of the global BIC scan (consecutive counts at a time, judged in count order); the BIC scan
stops once BIC has risen for ``bic_patience`` (5) consecutive component counts (``bic_patience = 0`` is the
original's full scan). ``max_clusters`` stays the original's 50: no cap below it by default.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hcrbench.retrieve.progress import report

RANDOM_SEED = 224
"""The original's seed (``cluster_utils.RANDOM_SEED``); our default."""

_PARALLEL_BIC_MIN = 500
"""Points from which a BIC scan's fits go to worker processes (below, a fit costs less than a dispatch)."""


@dataclass(frozen=True)
class ClusterConfig:
    """The knobs of one RAPTOR clustering pass; defaults are the original code's."""

    reduction_dimension: int = 10
    threshold: float = 0.1
    max_clusters: int = 50
    local_neighbors: int = 10
    max_cluster_tokens: int = 3500
    max_recluster_depth: int = 8
    metric: str = "cosine"
    seed: int = RANDOM_SEED
    bic_patience: int = 5
    n_jobs: int = 0


def umap_fits(n_points: int, n_neighbors: int, dim: int) -> bool:
    """True when UMAP can embed ``n_points`` with ``n_neighbors`` into ``dim`` components without failing."""
    return n_neighbors >= 2 and dim >= 1 and n_points >= n_neighbors + 1 and n_points >= dim + 2


def reduce(x: np.ndarray, dim: int, n_neighbors: int, *, metric: str = "cosine", seed: int = RANDOM_SEED
           ) -> np.ndarray:
    """UMAP of ``x`` to ``dim`` components (seeded, so single-threaded and reproducible)."""
    import umap

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "n_jobs overridden by setting random_state": intended
        model = umap.UMAP(n_neighbors=int(n_neighbors), n_components=int(dim), metric=metric,
                          random_state=int(seed), n_jobs=1)
        return np.asarray(model.fit_transform(x), dtype=np.float64)


def _bic(x: np.ndarray, seed: int, n: int) -> float:
    from sklearn.mixture import GaussianMixture

    return float(GaussianMixture(n_components=n, random_state=seed).fit(x).bic(x))


def optimal_clusters(x: np.ndarray, max_clusters: int = 50, seed: int = RANDOM_SEED, patience: int = 0,
                     n_jobs: int = 1) -> int:
    """The component count in ``1 .. min(max_clusters, N) - 1`` with the lowest GMM BIC (1 when N < 3).

    ``patience = 0`` scans every count, as the original does. ``patience = p > 0`` (our default 5, a documented
    deviation) stops once BIC has risen above the best so far for ``p`` consecutive counts: BIC over k is
    close to convex for these fits, so the scan rarely finds a lower minimum later, and a full scan at 50 counts
    costs ~60 CPU-s per level on 4k points.

    ``n_jobs`` (0 = every core): the fits of consecutive counts run in worker processes, as many at a time as
    there are workers, and the rule above is applied to their BICs in count order, so the answer is the serial
    scan's (fits past the stopping count are wasted, never used)."""
    top = min(int(max_clusters), len(x))
    if top < 2:
        return 1  # one point (the original would argmin an empty list)
    candidates = list(range(1, top))
    step = min(workers(n_jobs), len(candidates)) if n_jobs != 1 and len(x) >= _PARALLEL_BIC_MIN else 1
    best, best_bic, worse = 1, np.inf, 0
    for s in range(0, len(candidates), step):
        batch = candidates[s : s + step]
        bics = _map(functools.partial(_bic, x, seed), batch, step) if step > 1 else [_bic(x, seed, batch[0])]
        report(f"RAPTOR: GMM BIC scan over {len(x):,} points", batch[-1], len(candidates))
        for n, bic in zip(batch, bics):
            if bic < best_bic:  # strict: the first minimum wins, as np.argmin does
                best, best_bic, worse = n, bic, 0
            else:
                worse += 1
                if patience and worse >= patience:
                    return best
    return best


def gmm_soft(x: np.ndarray, threshold: float, max_clusters: int = 50, seed: int = RANDOM_SEED, patience: int = 0,
             n_jobs: int = 1) -> tuple[list[np.ndarray], int]:
    """Per point the components it belongs to with probability > ``threshold``, and the component count."""
    from sklearn.mixture import GaussianMixture

    n = optimal_clusters(x, max_clusters, seed, patience, n_jobs)
    probs = GaussianMixture(n_components=n, random_state=seed).fit(x).predict_proba(x)
    return [np.flatnonzero(p > threshold) for p in probs], n


def _soft_groups(labels: list[np.ndarray], n: int) -> list[np.ndarray]:
    """Members of each component (positions, ascending); empty components dropped."""
    groups = [[] for _ in range(n)]
    for i, ls in enumerate(labels):
        for j in ls:
            groups[int(j)].append(i)
    return [np.asarray(g, dtype=np.int64) for g in groups if g]


def cluster_level(emb: np.ndarray, cfg: ClusterConfig) -> list[np.ndarray]:
    """One global + local clustering pass over ``emb``: member positions of every cluster, in label order."""
    n = len(emb)
    dim = cfg.reduction_dimension
    g_dim = min(dim, n - 2)
    g_neighbors = int((n - 1) ** 0.5) if n > 1 else 0
    if not umap_fits(n, g_neighbors, g_dim):
        return [np.arange(n, dtype=np.int64)]  # guard: too few points for UMAP, keep them together
    reduced = reduce(emb, g_dim, g_neighbors, metric=cfg.metric, seed=cfg.seed)
    # the global BIC scan fits its counts in parallel (same answer as the serial scan; the local fits below are
    # parallel across clusters instead, each scanning serially)
    labels, n_global = gmm_soft(reduced, cfg.threshold, cfg.max_clusters, cfg.seed, cfg.bic_patience, cfg.n_jobs)
    groups = _soft_groups(labels, n_global)
    # the local fits of sibling global clusters are independent: run them in parallel (each seeded, results
    # gathered in cluster order, so the clusters are the same as a serial run's)
    todo = [i for i, m in enumerate(groups)
            if not (len(m) <= dim + 1 or not umap_fits(len(m), cfg.local_neighbors, dim))]
    fitted = _map(_local_fit, [(emb[groups[i]], cfg) for i in todo], cfg.n_jobs)
    local_of = dict(zip(todo, fitted))
    out: list[np.ndarray] = []
    for i, members in enumerate(groups):
        if i not in local_of:
            out.append(members)  # the original's rule (<= dim + 1: one local cluster), plus the UMAP guard
            continue
        out.extend(members[g] for g in local_of[i])
    return out


def _local_fit(args: tuple[np.ndarray, ClusterConfig]) -> list[np.ndarray]:
    x, cfg = args
    local = reduce(x, cfg.reduction_dimension, cfg.local_neighbors, metric=cfg.metric, seed=cfg.seed)
    l_labels, n_local = gmm_soft(local, cfg.threshold, cfg.max_clusters, cfg.seed, cfg.bic_patience)
    return _soft_groups(l_labels, n_local)


def workers(n_jobs: int) -> int:
    """Worker processes for ``n_jobs`` (0 = every core this process may use: its share when it runs beside other
    cells, :func:`~hcrbench.retrieve.runtime.cell_cores`)."""
    from hcrbench.retrieve.runtime import cell_cores

    return n_jobs if n_jobs > 0 else cell_cores()


def _map(fn, items: list, n_jobs: int) -> list:
    """``[fn(x) for x in items]``, in worker processes when there are several items and workers."""
    n = min(workers(n_jobs), len(items))
    if n <= 1:
        return [fn(x) for x in items]
    from joblib import Parallel, delayed

    return list(Parallel(n_jobs=n, backend="loky")(delayed(fn)(x) for x in items))


def split_by_order(members: Sequence[int], tokens: Sequence[int], cap: int) -> list[np.ndarray]:
    """Consecutive runs of ``members`` whose token sum stays <= ``cap`` (a node over the cap alone)."""
    out: list[list[int]] = []
    cur: list[int] = []
    total = 0
    for m in members:
        t = int(tokens[m])
        if cur and total + t > cap:
            out.append(cur)
            cur, total = [], 0
        cur.append(int(m))
        total += t
    if cur:
        out.append(cur)
    return [np.asarray(g, dtype=np.int64) for g in out]


def raptor_clusters(emb: np.ndarray, tokens: Sequence[int], cfg: ClusterConfig | None = None,
                    *, stats: dict[str, int] | None = None) -> list[np.ndarray]:
    """RAPTOR's clusters of the nodes with embeddings ``emb`` and token counts ``tokens``.

    A cluster of more than one node whose tokens sum over ``cfg.max_cluster_tokens`` is clustered again (as
    ``RAPTOR_Clustering.perform_clustering`` does); when that does not split it, or the depth bound is hit, it
    is split by order. ``stats`` (optional) counts ``reclustered``, ``umap_skipped`` and ``split_by_order``.
    """
    cfg = cfg or ClusterConfig()
    stats = stats if stats is not None else {}
    return _recurse(np.asarray(emb), np.arange(len(emb), dtype=np.int64), list(tokens), cfg, 0, stats)


def _recurse(emb: np.ndarray, members: np.ndarray, tokens: list[int], cfg: ClusterConfig, depth: int,
             stats: dict[str, int]) -> list[np.ndarray]:
    if len(members) == 0:
        return []
    local = cluster_level(emb[members], cfg)
    if len(local) == 1 and len(members) > 1:
        n = len(members)
        small = not umap_fits(n, int((n - 1) ** 0.5), min(cfg.reduction_dimension, n - 2))
        key = "umap_skipped" if small else "one_cluster"
        stats[key] = stats.get(key, 0) + 1
    out: list[np.ndarray] = []
    for group in local:
        nodes = members[group]
        total = sum(tokens[i] for i in nodes)
        if len(nodes) == 1 or total <= cfg.max_cluster_tokens:
            out.append(nodes)
            continue
        if depth >= cfg.max_recluster_depth or len(nodes) == len(members):
            # Re-clustering cannot make progress (same node set again, or too deep): cut it by order.
            stats["split_by_order"] = stats.get("split_by_order", 0) + 1
            out.extend(split_by_order(nodes, tokens, cfg.max_cluster_tokens))
            continue
        stats["reclustered"] = stats.get("reclustered", 0) + 1
        out.extend(_recurse(emb, nodes, tokens, cfg, depth + 1, stats))
    return out
