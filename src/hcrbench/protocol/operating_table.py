"""The operating table docs/protocol.md publishes, from ``verdicts.json["operating"]`` or
:func:`operating.operating_all` (``benchmarks/protocol_operating.py`` prints it)."""

from __future__ import annotations

from typing import Any


def markdown(ops: dict[str, dict[str, Any]], construction: str = "re-centred") -> str:
    """The operating table docs/protocol.md publishes: per rule and truth, P(go) / P(no-go) / P(soft) / P(not
    decidable) of the first construction (re-centred for paired differences), P(go) / P(no-go) of the mixture
    where there is one, whether the replay at the rule's n meets its targets (false decisions within nominal, power
    at the margin; worst over constructions) and the n it needs. That column is the replay's, reported only: it
    voids no row, so a rule decided on its interval shows its verdict beside "short" without
    contradiction; the column says "short of its targets", never "not decidable"."""
    lines = ["| rule | n | truth | P(go / pass) | P(no-go / kill / stop) | P(soft) | P(not decidable) | mixture: "
             "P(go) / P(no-go) | replay at n (reported only, voids nothing) | needs n ~ |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for rid, op in ops.items():
        if rid == "overall":
            continue
        rows = op["constructions"].get(construction) or next(iter(op["constructions"].values()), [])
        mix = {round(r["truth"], 10): r for r in op["constructions"].get("mixture", [])}
        for i, r in enumerate(rows):
            mx = mix.get(round(r["truth"], 10))
            mtxt = f"{mx['p_go']:.1%} / {mx['p_nogo']:.1%}" if mx else "—"
            tail = (f"{'meets its targets' if op['decidable'] else 'short of its targets: ' + op['why']} | "
                    f"{op['needs_n'] or '—'}" if i == 0 else " | ")
            lines.append(f"| {rid if i == 0 else ''} | {op['n'] if i == 0 else ''} | {r['truth']:+.3f} | "
                         f"{r['p_go']:.1%} | {r['p_nogo']:.1%} | {r['p_soft']:.1%} | {r['p_undecidable']:.1%} | "
                         f"{mtxt} | {tail} |")
    return "\n".join(lines)
