"""The page's legend, "How to read this page": every mark the report uses (significance letters, arrows, ticks,
the gate's HIT / UNDER-NS / MISS / NULL-FAIL, the verdict words, the plot markers), each explained once, so a
reader never meets a symbol the page does not define. :data:`MARKS` is the one list; the Chromium test checks
that every mark found on the page is in it."""

from __future__ import annotations

from hcrbench.report.model import Para, Section, Table

#: (mark as printed, what it means), in the order a reader meets them.
MARKS: list[tuple[str, str]] = [
    ("go / pass", "the rule's whole decision interval (at the level its column names: 95%, or a sequential "
                  "look's) lies past its go threshold"),
    ("soft no-go", "a real effect, but its interval lies short of the design's margin"),
    ("no-go", "the whole decision interval lies short of the threshold: that component needs work"),
    ("kill", "the single kill criterion is met at the full corpus size: the architecture is not worth it "
             "(verdicts.json's overall says invalidated)"),
    ("stop and diagnose", "a fail-fast checkpoint fired: fix the named part before judging the rest"),
    ("not decidable", "the interval straddles the threshold or the n is too small; the row "
                      "says which and what would decide it"),
    ("inconclusive", "a hypothesis whose interval decides it neither way (a control's expected outcome)"),
    ("undecided", "the verdict's word (as the console's verdict block) when no rule decided it either way "
                  "(verdicts.json's overall says inconclusive), and of a rule not decidable or inconclusive yet: "
                  "its line says what would decide it"),
    ("not run", "the input the rule or section needs is absent; the row says what would make it"),
    ("[a, b]", "an interval at the level its column or sentence names (of the difference, when the column is a "
               "difference); a decision interval is the rule's (a sequential look's level), a fixed-n one is "
               "descriptive"),
    ("+0.012 / -0.012", "a difference: the first system minus the one it is compared with"),
    ("p (Holm, family)", "one p value per row, adjusted by Holm over the family named beside it (the kill "
                         "criterion is a family of its own: kill-test p)"),
    ("a, b, c (superscript)", "after a score: significantly better than the system with that letter "
                              "(Holm p < 0.05 in the stated family)"),
    ("bold", "the best value of its column, the system under test, or a decisive verdict"),
    ("green / red cell", "better / worse than the baseline (significant where a p is shown, else by more than "
                         "0.02); yellow: a warning or an undecided verdict"),
    ("±", "mean ± standard deviation over seeds"),
    ("✓ / ✗", "passed / failed (a null beaten by the margin; a control classified as expected)"),
    ("→", "a setting changed: the system under test's value → this system's value"),
    ("—", "no value: not computed, or not applicable to that system"),
    ("HIT + / HIT −", "gate verdict: Holm p < 0.05 and the 95% interval excludes 0; + better, − worse"),
    ("UNDER-NS", "gate verdict: neither a difference nor an equivalence is shown; it can sit beside an interval "
                 "that excludes 0, because that interval is the comparison's own (unadjusted) while the verdict "
                 "needs the Holm p over the whole family (m) below 0.05"),
    ("MISS", "gate verdict: equivalence shown (TOST): the difference lies inside ± the smallest difference that "
             "matters"),
    ("NULL-FAIL", "gate verdict: the system does not beat a null predictor, so no comparison of it means anything"),
    ("m=", "the number of comparisons in the Holm family"),
    ("B=", "a token budget: the context holds at most B tokens (B=all: unconstrained)"),
    ("◆ / × / dashed line (routing plot)", "observed share routed correctly to the leaves / (1 - mean eps)^d "
                                           "predicted / product of (1 - eps) down to the level"),
    ("★ (sufficiency plot)", "the oracle: the evidence itself, the ceiling of any retriever"),
]


def p_header(sizes, method: str = "Holm") -> str:
    """The header of a table's one p column, its family named beside it: ``p (Holm, 15 comparisons)`` when every
    row's family has the same size, ``p (Holm, m=)`` when they differ (each cell then says its ``m=``).
    ``sizes``: the family size of every row (one int for all)."""
    ms = {int(sizes)} if isinstance(sizes, int) else {int(m) for m in sizes if m}
    if len(ms) == 1:
        m = next(iter(ms))
        return f"p ({method}, {m} comparison{'s' if m != 1 else ''})"
    return f"p ({method}, m=)" if ms else f"p ({method})"


def legend_section() -> Section:
    """The legend as a report section (rendered alike to HTML and Markdown; kept out of tables.tex)."""
    rows = [[_cell(mark), _cell(meaning)] for mark, meaning in MARKS]
    return Section("legend", "How to read this page", [
        Para("Every mark and word of the tables and plots below, once.", kind="note"),
        Table("legend", "Marks and verdict words", ["mark", "meaning"], rows, latex=False)])


def _cell(text: str):
    from hcrbench.report.model import Cell

    return Cell(text)
