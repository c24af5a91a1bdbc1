"""Terminal tables for ``policy-compare``: the aggregate per (chunker, embedding, policy), deltas, strata, verdict."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console

from hcrbench.report.terminal import Table

_COLS = (("recall_at_10", "R@10"), ("file_recall_at_10", "File-R@10"), ("ndcg_at_10", "nDCG@10"),
         ("mrr", "RR"), ("recall_at_5", "R@5"), ("snippet_jaccard_at_10", "SnipJ@10"))


def _f(x: Any, nd: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def _p(p: Any) -> str:
    if p is None:
        return "—"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def aggregate_table(doc: dict[str, Any]) -> Table:
    rows = doc["aggregate"]["rows"]
    cols = [(k, h) for k, h in _COLS if any(k in r for r in rows)]
    t = Table(title=f"{doc['config']['benchmark']}: {doc['config']['system']}, budget "
                    f"{doc['config']['single_hop']['total_budget']} units, {doc['config']['n_queries']} queries",
              title_justify="left")
    for h in ("chunker", "embedding", "policy", *[h for _, h in cols], "embed calls", "passes", "examined",
              "hops"):
        t.add_column(h, justify="left" if h in ("chunker", "embedding", "policy") else "right")
    for r in rows:
        t.add_row(r["chunker"], r["embedding"], r["policy"], *[_f(r.get(k)) for k, _ in cols],
                  _f(r["embedding_calls"], 2), _f(r["retrieval_passes"], 2), _f(r["chunks_examined"], 2),
                  _f(r["hops_used"], 2))
    return t


def deltas_table(doc: dict[str, Any]) -> Table:
    from collections import Counter

    from hcrbench.report.legend import p_header

    t = Table(title="Multi-hop minus single-hop (95% bootstrap CI; one test: paired permutation, Holm per chunking)",
              title_justify="left")
    per = Counter(d["chunker"] for d in doc["aggregate"]["deltas"])
    for h in ("chunker", "policy", "metric", "delta", "95% CI", p_header(per.values()), "helped/hurt/tied",
              "embed-call ratio", "examined ratio"):
        t.add_column(h, justify="left" if h in ("chunker", "policy", "metric") else "right")
    for d in doc["aggregate"]["deltas"]:
        sig = d["p_holm"] is not None and d["p_holm"] < 0.05
        delta = f"{d['delta']:+.4f}"
        t.add_row(d["chunker"], f"{d['policy']} vs {d['baseline']}", d["metric"],
                  f"[bold]{delta}[/bold]" if sig else delta, f"[{_f(d['ci_low'])}, {_f(d['ci_high'])}]",
                  _p(d["p_holm"]), f"{d['helped']}/{d['hurt']}/{d['tied']}",
                  _f(d["embed_call_ratio"], 2), _f(d["chunks_examined_ratio"], 2))
    return t


def strata_table(doc: dict[str, Any]) -> Table:
    from collections import Counter

    from hcrbench.report.legend import p_header

    t = Table(title="R@10 per stratum (paired permutation; Holm over the strata of one chunking)", title_justify="left")
    per = Counter(s["chunker"] for s in doc["aggregate"]["strata"])
    for h in ("chunker", "stratum", "n", "single", "multi", "delta", "95% CI", p_header(per.values())):
        t.add_column(h, justify="left" if h in ("chunker", "stratum") else "right")
    for s in doc["aggregate"]["strata"]:
        t.add_row(s["chunker"], s["stratum"], str(s["n"]), _f(s["single"]), _f(s["multi"]), f"{s['delta']:+.4f}",
                  f"[{_f(s['ci_low'])}, {_f(s['ci_high'])}]", _p(s["p_holm"]))
    return t


def chunkers_table(doc: dict[str, Any]) -> Table:
    from hcrbench.report.legend import p_header

    t = Table(title="Chunkings against the first, single-hop (95% CI; paired permutation, Holm over the table)",
              title_justify="left")
    for h in ("chunking", "metric", "delta", "95% CI", p_header(len(doc["aggregate"]["chunkers"]))):
        t.add_column(h, justify="left" if h in ("chunking", "metric") else "right")
    for c in doc["aggregate"]["chunkers"]:
        t.add_row(f"{c['run']} vs {c['baseline']}", c["metric"], f"{c['delta']:+.4f}",
                  f"[{_f(c['ci_low'])}, {_f(c['ci_high'])}]", _p(c["p_holm"]))
    return t


def native_table(doc: dict[str, Any]) -> Table:
    t = Table(title="The benchmark's own scores (MultiHop-RAG retrieval_evaluate.py: fact substring matches)",
              title_justify="left")
    for h in ("chunker", "policy", "n", "MAP@10", "MRR@10", "Hits@4", "Hits@10"):
        t.add_column(h, justify="left" if h in ("chunker", "policy") else "right")
    for r in doc["aggregate"]["native"]:
        t.add_row(r["chunker"], r["policy"], str(r["n"]), *[_f(r[k]) for k in ("MAP@10", "MRR@10", "Hits@4",
                                                                                  "Hits@10")])
    return t


def bottom_line(doc: dict[str, Any]) -> str:
    """One sentence per chunking a person can act on: did multi-hop help at the same budget, and at what cost."""
    lines = []
    for d in doc["aggregate"]["deltas"]:
        if d["metric"] != "R@10":
            continue
        ratio = d["retrieval_pass_ratio"]
        cost = f"{ratio:.1f}x the retrieval passes" if ratio is not None else "the same passes"
        if d["embed_call_ratio"] is not None:
            cost += f", {d['embed_call_ratio']:.1f}x the embedding calls"
        cost += f", {d['chunks_examined_ratio']:.2f}x the units examined" if d["chunks_examined_ratio"] else ""
        sig = d["p_holm"] is not None and d["p_holm"] < 0.05 and not (d["ci_low"] <= 0 <= d["ci_high"])
        if sig and d["delta"] > 0:
            verdict = "multi-hop HELPS: use it where the extra passes are affordable"
        elif sig:
            verdict = "multi-hop HURTS: keep single-hop"
        else:
            verdict = "no significant difference: keep single-hop (cheaper)"
        lines.append(f"bottom line [{d['chunker']}]: {d['policy']} vs {d['baseline']} R@10 "
                     f"{d['mean_baseline']:.4f} -> {d['mean_run']:.4f} ({d['delta']:+.4f}, 95% CI "
                     f"[{d['ci_low']:+.4f}, {d['ci_high']:+.4f}], Holm p {_p(d['p_holm'])}) at {cost}: {verdict}.")
    return "\n".join(lines)


def print_policy_comparison(doc: dict[str, Any], *, strata: bool = True, console: Console | None = None) -> None:
    console = console or Console()
    console.print(aggregate_table(doc))
    console.print(deltas_table(doc))
    if strata and len({s["stratum"] for s in doc["aggregate"]["strata"]}) > 1:
        console.print(strata_table(doc))
    if doc["aggregate"]["chunkers"]:
        console.print(chunkers_table(doc))
    if doc["aggregate"].get("native"):
        console.print(native_table(doc))
    console.print(bottom_line(doc), highlight=False, soft_wrap=True, markup=False)
