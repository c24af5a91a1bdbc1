"""Terminal rendering of the routing and tree report (``hcrbench tree-metrics``), ending with a bottom line."""

from __future__ import annotations

import math
from typing import Any


def _f(x: Any, nd: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def render_tree_report(rep: dict[str, Any]) -> str:
    """Plain-text tables of a :func:`hcrbench.metrics.tree.tree_report` dict."""
    lines: list[str] = []
    r = rep["routing"]
    lines.append(f"routing over {r['n_queries']} judged queries (paths: "
                 + ", ".join(f"{k} {v}" for k, v in rep["paths"].items()) + ")")
    lines.append("  level  eps_any  eps_all  queries_at_level")
    for i, (a, b, n) in enumerate(zip(r["eps_any"], r["eps_all"], r["n_at_level"]), start=1):
        lines.append(f"  {i:>5}  {_f(a):>7}  {_f(b):>7}  {n:>16}")
    lines.append(f"  cumulative accuracy {_f(r['accuracy'])} observed vs {_f(r['predicted_product'])} = prod(1 - eps_l)"
                 f" vs {_f(r['predicted_power'])} = (1 - mean eps)^d")
    c = rep["cost"]
    lines.append(f"cost per query: {c['nodes_scored_per_query']:.0f} nodes, {c['chunks_scored_per_query']:.0f} chunks "
                 f"of {c['n_chunks']} ({c['chunks_scored_per_query'] / max(c['n_chunks'], 1):.1%}), "
                 f"{c['reranked_per_query']:.0f} reranked, {c['links_followed_per_query']:.1f} links followed")
    pa = rep["path_agreement"]
    if pa.get("n_queries"):
        lines.append(f"beam vs collapsed: top document agrees on {_f(pa['agreement'])} of {pa['n_queries']} queries; "
                     "nDCG@10 by category | agreement:")
        lines.append(f"  {'category|paths':<34} {'n':>3} {'beam':>6} {'collapsed':>9} {'returned':>8}")
        for key, v in pa["by_category"].items():
            lines.append(f"  {key:<34} {v['n']:>3} {_f(v['beam']):>6} {_f(v['collapsed']):>9} {_f(v['returned']):>8}")
    t = rep["tree"]
    lines.append(f"tree: depth {t['depth']}, {t['n_nodes']} nodes")
    if "sibling_distinctiveness" in t:
        s = t["sibling_distinctiveness"]
        lines.append(f"  sibling distinctiveness (cosine distance): mean {_f(s['mean'])} min {_f(s['min'])} "
                     f"sd {_f(s['sd'])} over {s['n']} pairs")
    if "summary_fidelity" in t:
        s = t["summary_fidelity"]
        lines.append(f"  summary fidelity: cosine to centroid {_f(s['cosine_mean'])}, closest to own centroid "
                     f"{_f(s['own_centroid_rate'])}")
    if "purity_per_level" in t:
        lines.append("  purity per level: " + ", ".join(f"L{k} {_f(v)}" for k, v in t["purity_per_level"].items())
                     + f"; dendrogram purity {_f(t['dendrogram_purity'])}")
    if t.get("leaf_reachability"):
        lines.append("  leaf reachability under simulated error: "
                     + ", ".join(f"eps {k}: {_f(v)}" for k, v in t["leaf_reachability"].items()))
    if "entity_links" in rep:
        e = rep["entity_links"]
        lines.append(f"entity links: extractor covers {_f(e['coverage'])} of {e['pairs']} (document, entity) pairs")
    lines.append(bottom_line(rep))
    return "\n".join(lines)


def bottom_line(rep: dict[str, Any]) -> str:
    """One sentence a person can act on: where routing loses relevant branches."""
    r = rep["routing"]
    eps = [(e, i) for i, e in enumerate(r["eps_any"], start=1) if not math.isnan(e)]
    if not eps:
        return "bottom line: no judged query was routed (no levels in the log, or no relevant chunks)."
    worst, lvl = max(eps)
    lost = 1 - r["accuracy"]
    if lost <= 0:
        return "bottom line: routing kept a relevant branch for every judged query at every level."
    return (f"bottom line: routing loses every relevant branch for {lost:.0%} of judged queries; the worst level is "
            f"L{lvl} (eps_any {worst:.3f}) - widen the beam there or improve its summaries.")
