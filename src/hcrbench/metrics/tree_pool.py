"""One tree-metrics document from the documents of several worlds' trees.

A system run on a dataset of several worlds builds one tree per world (a query routes only in its own world's
tree), so its routing and tree measures are measured per world and pooled here, as a meta-analysis pools
studies: counts are summed (queries, nodes, pairs, per-level query counts), every rate or mean is the mean of
the worlds' values weighted by what it was measured on (a sibling ``n``, the per-level ``n_at_level``, else the
world's logged queries), minima and maxima stay minima and maxima, and the tree's depth is the deepest world's.
A NaN (a measure a world could not compute) takes no weight. The per-world documents are kept under ``worlds``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def _weight_of(doc: Mapping[str, Any]) -> float:
    n = doc.get("n_queries_logged")
    return float(n) if isinstance(n, (int, float)) and not isinstance(n, bool) and n > 0 else 1.0


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _mean(values: Sequence[float], weights: Sequence[float]) -> float:
    pairs = [(v, w) for v, w in zip(values, weights) if _is_num(v) and not math.isnan(v) and w > 0]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else float("nan")


def _pool_list(key: str, lists: list[list[Any]], weights: list[list[float]]) -> list[Any]:
    longest = max(len(x) for x in lists)
    out = []
    for i in range(longest):
        vals = [x[i] for x in lists if i < len(x)]
        ws = [w[i] for x, w in zip(lists, weights) if i < len(x)]
        if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
            out.append(sum(vals))
        else:
            out.append(_mean(vals, ws))
    return out


def _pool(key: str, values: list[Any], weights: list[float], siblings: list[Mapping[str, Any]]) -> Any:
    first = values[0]
    if all(isinstance(v, Mapping) for v in values):
        return _pool_dicts(values, weights)
    if all(isinstance(v, list) for v in values):
        per_level = [s.get("n_at_level") for s in siblings]
        ws = [list(map(float, p)) if isinstance(p, list) and key != "n_at_level" and len(p) == len(v) else [w] * len(v)
              for v, p, w in zip(values, per_level, weights)]
        return _pool_list(key, values, ws)
    if all(_is_num(v) for v in values):
        if key == "min":
            return min(values)
        if key in ("max", "depth"):
            return max(values)
        if all(isinstance(v, int) for v in values):
            return sum(values)
        return _mean(values, weights)
    return first if all(v == first for v in values) else None


def _pool_dicts(docs: list[Mapping[str, Any]], weights: list[float]) -> dict[str, Any]:
    # a dict that counts what its rates were measured on ({"n": 12, "beam": 0.4}) weighs them by that count
    own = [float(d["n"]) if _is_num(d.get("n")) else w for d, w in zip(docs, weights)]
    keys: list[str] = []
    for d in docs:
        keys += [k for k in d if k not in keys]
    out: dict[str, Any] = {}
    for k in keys:
        have = [(d[k], w, d) for d, w in zip(docs, own) if k in d and d[k] is not None]
        if have:
            out[k] = _pool(k, [v for v, _, _ in have], [w for _, w, _ in have], [d for _, _, d in have])
    return out


def pool_tree_reports(per_world: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The pooled document of ``{"w02": doc, "w03": doc, ...}`` (module docstring), with ``worlds`` holding
    each world's own document; one world's document is returned as it is."""
    docs = list(per_world.values())
    if len(docs) == 1:
        return dict(docs[0])
    pooled = _pool_dicts(docs, [_weight_of(d) for d in docs])
    pooled["worlds"] = {w: dict(d) for w, d in per_world.items()}
    return pooled
