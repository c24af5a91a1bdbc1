"""The subject's cost per query beside the kill baseline's (eval.json's ``cost``): ratios, one sentence, and a note
when the two return rankings of different depth (a measure reading past the shorter one compares unlike runs)."""

from __future__ import annotations

from typing import Any

from hcrbench.protocol.words import signed_diff

UNCUT = ("AP", "MAP", "map", "nDCG", "ndcg", "R-Prec", "Rprec", "bpref")  # measures over the whole ranking


def depth_sensitive(metric: str, depth: float) -> bool:
    """Does ``metric`` read past ``depth`` documents (a cutoff above it, or no cutoff)?"""
    if "@" in metric:
        try:
            return float(metric.rsplit("@", 1)[1]) > depth
        except ValueError:
            return True
    return metric in UNCUT


def cost_summary(doc: dict, system: str, group: list[str], kill: str, metric: str, delta: float | None,
                 metrics: list[str], units: tuple[str, str] = ("chunks", "chunks")) -> dict[str, Any] | None:
    """HCR's cost per query beside the kill baseline's (eval.json's ``cost``), as ratios and one sentence, and a
    note when depth-sensitive measures compare runs of different depth."""
    cost = doc.get("cost") or {}
    mine = [cost.get(n) for n in group if cost.get(n)]
    base = cost.get(kill)
    if not mine or not base:
        return None
    keys = ("chunks_scored", "nodes_scored", "reranker_calls", "context_tokens", "depth")
    avg = {k: (sum(c[k] for c in mine) / len(mine) if all(c.get(k) is not None for c in mine) else None)
           for k in keys}
    ratio = {k: (avg[k] / base[k] if avg[k] is not None and base.get(k) else None) for k in keys}
    bits = []
    for k, label in (("chunks_scored", "chunks scored"), ("reranker_calls", "reranker calls")):
        if avg[k] is not None and base.get(k) is not None:
            r = f" ({ratio[k]:.2f}x)" if ratio[k] is not None else ""
            if k == "chunks_scored" and units != ("chunks", "chunks"):  # a system over whole documents
                bits.append(f"{avg[k]:,.0f} {units[0]} scored vs {base[k]:,.0f} {units[1]}{r}")
            else:
                bits.append(f"{avg[k]:,.0f} {label} vs {base[k]:,.0f}{r}")
    if avg["nodes_scored"]:
        bits.append(f"{avg['nodes_scored']:,.0f} tree nodes scored")
    line = f"cost per query, {system} vs {kill}: " + ", ".join(bits) if bits else None
    if line and delta is not None:
        line += f", for {signed_diff(delta)} {metric}"
    depth_note = None
    da, db = avg["depth"], base.get("depth")
    if da is not None and db is not None and abs(da - db) > 0.5:
        sens = [m for m in metrics if depth_sensitive(m, min(da, db))]
        if sens:
            depth_note = (f"{', '.join(sens)} compare runs of different depth ({system} returns {da:.0f} documents "
                          f"per query, {kill} {db:.0f}): not comparable between them")
    return {"system": {k: avg[k] for k in keys}, "kill_baseline": {k: base.get(k) for k in keys},
            "ratio": ratio, "line": line, "depth_note": depth_note}
