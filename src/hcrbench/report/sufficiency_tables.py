"""The sufficiency section's tables beside its curves: why contexts failed (failure anatomy, per system and per
query category) and the token efficiency of each system against the baseline, one row per system."""

from __future__ import annotations

from typing import Any

from hcrbench.report.model import Cell, Table

CLASSES = ("retrieval", "selection", "delivery")


def failure_tables(doc: dict[str, Any]) -> list[Table]:
    """Failures on budget-feasible queries at the reference budget, split into retrieval / selection / delivery
    misses (``eval.json["sufficiency"]["systems"][s]["failures"]``): one row per system, then one row per
    (category, system) for the controls and the highlighted systems."""
    from hcrbench.report.curves import roles

    have = {n: e["failures"] for n, e in doc["systems"].items() if e.get("failures")}
    if not have:
        return []
    ref = doc.get("reference_budget")
    rows = []
    for name, f in have.items():
        n = f["n_feasible"]

        def pct(k: str, f: dict[str, Any] = f, n: int = n) -> str:
            return f"{f[k]} ({100 * f[k] / n:.0f}%)" if n else "—"

        rows.append([Cell(name + (f" ({doc['systems'][name]['control']} control)"
                                  if doc["systems"][name].get("control") else "")),
                     Cell(str(n), num=True), Cell(pct("insufficient"), num=True),
                     *[Cell(pct(c), num=True) for c in CLASSES]])
    out = [Table("failures", f"Why contexts failed at B={ref}: budget-feasible queries whose context lacks a needed "
                             "fact, by cause",
                 ["system", "feasible", "insufficient", "retrieval miss", "selection miss", "delivery miss"], rows,
                 notes="retrieval: a needed fact is stated in none of the documents/units the system ranked in its "
                       "top k (the retriever's failure); selection: every fact is stated in the delivered documents "
                       "but not in the delivered units; delivery: every fact is in the top k, but the context did "
                       "not keep it within B (docs/context.md).")]
    show = [n for n in roles(doc) if n in have]
    cats = sorted({c for n in show for c in have[n].get("by_category", {})})
    if show and cats:
        crow = []
        for c in cats:
            cells = [Cell(c)]
            for n in show:
                v = have[n]["by_category"].get(c)
                cells.append(Cell("—" if not v else f"{v['retrieval']} / {v['selection']} / {v['delivery']} "
                                                    f"of {v['n_feasible']}", num=True))
            crow.append(cells)
        out.append(Table("failures_by_category", f"Failures at B={ref} per query category: retrieval / selection / "
                                                 "delivery misses of the feasible queries (highlighted systems)",
                         ["category", *show], crow, latex=False))
    return out


def efficiency_table(doc: dict[str, Any]) -> Table | None:
    """One row per system: its sufficiency at the reference budget, the smallest budget at which the baseline
    matches it, the token-efficiency ratio (and its bootstrap interval where the run computed one)."""
    te = doc.get("token_efficiency") or {}
    design = doc.get("token_efficiency_design")
    if not te and not design:
        return None
    ref, base = doc.get("reference_budget"), doc.get("baseline")
    rows = []
    pairs = [(f"{n} vs {base}", t) for n, t in te.items()]
    if design:  # the design's ratio first: the system under test against the flat system
        pairs.insert(0, (f"{design['system']} vs {design['flat']} (the design's ratio)", design))
    for name, t in pairs:
        if t.get("target") is None:
            continue
        ci = t.get("ratio_ci")
        rows.append([Cell(name, bold=t is design), Cell(f"{100 * t['target']:.1f}", num=True),
                     Cell("never" if t["budget"] is None else str(t["budget"]), num=True),
                     Cell("—" if t["ratio"] is None else f"{t['ratio']:.2f}", num=True),
                     Cell("—" if not ci else f"[{_r(ci[0])}, {_r(ci[1])}]", num=True)])
    if not rows:
        return None
    subject = design["system"] if design else "the system under test"
    return Table("token_efficiency", f"Token efficiency: the smallest budget at which the second system of each "
                                     f"pair matches the first one's sufficiency at B={ref}",
                 ["system vs reference", f"sufficiency@{ref} %", "reference matches at B", "ratio", "95% CI"],
                 rows,
                 notes=f"ratio = that budget / {ref}; > 1: the system saves tokens; “never”: the reference does not "
                       "reach it within the budgets tried (an unbounded ratio). 95% CI: percentile bootstrap over "
                       f"queries. The design's go criterion {subject}@400 >= flat@600 is a ratio >= 1.5.")


def _r(x: float | None) -> str:
    return "never" if x is None else f"{x:.2f}"
