"""The report's failure anatomy: one row per system with its retrieval / selection / delivery misses, and one row
per query category for the highlighted systems and the controls, read from
``eval.json["sufficiency"]["systems"][s]["failures"]``."""

from __future__ import annotations

from hcrbench.report.sufficiency_tables import failure_tables


def _failures(by_cat: dict[str, tuple[int, int, int, int]]) -> dict:
    cats = {c: {"n_feasible": n, "insufficient": r + s + d, "retrieval": r, "selection": s, "delivery": d}
            for c, (n, r, s, d) in by_cat.items()}
    tot = {k: sum(v[k] for v in cats.values()) for k in ("n_feasible", "insufficient", "retrieval", "selection",
                                                          "delivery")}
    return {"budget": 400, **tot, "by_category": cats}


def _doc() -> dict:
    def entry(by_cat, control=None, rate=0.5):
        e = {"rates": {"400": {"evidence_coverage": {"rate": rate, "low": 0.0, "high": 1.0, "n": 20}}},
             "failures": _failures(by_cat)}
        if control:
            e["control"] = control
        return e

    return {"reference_budget": 400, "headline": "evidence_coverage", "baseline": "bm25", "perfect": "perfect",
            "oracle": "oracle", "highlight": {"system": "hcr", "kill_baseline": "bm25"},
            "systems": {"hcr": entry({"two_hop": (8, 3, 2, 1), "detail": (12, 1, 0, 0)}),
                        "bm25": entry({"two_hop": (8, 2, 1, 2), "detail": (12, 0, 1, 0)}),
                        "flat": entry({"two_hop": (8, 5, 0, 0), "detail": (12, 4, 0, 0)}, rate=0.6),
                        "other": entry({"two_hop": (8, 6, 0, 0), "detail": (12, 5, 0, 0)}, rate=0.1),
                        "perfect": entry({"two_hop": (8, 0, 4, 1), "detail": (12, 0, 0, 0)}, "perfect"),
                        "oracle": entry({"two_hop": (8, 0, 0, 0), "detail": (12, 0, 0, 0)}, "oracle")}}


def test_failure_tables_show_every_system_and_each_category_of_the_highlighted_ones():
    """Every system gets a row; the per-category table has the system under test, the kill baseline, the best
    flat system and the controls (not the faded rest), each cell "retrieval / selection / delivery of feasible"."""
    tables = {t.key: t for t in failure_tables(_doc())}
    assert set(tables) == {"failures", "failures_by_category"}
    rows = {r[0].text.split(" (")[0]: [c.text for c in r[1:]] for r in tables["failures"].rows}
    assert set(rows) == {"hcr", "bm25", "flat", "other", "perfect", "oracle"}
    assert rows["hcr"] == ["20", "7 (35%)", "4 (20%)", "2 (10%)", "1 (5%)"]
    assert rows["perfect"][1:] == ["5 (25%)", "0 (0%)", "4 (20%)", "1 (5%)"]
    cat = tables["failures_by_category"]
    assert "other" not in cat.columns and {"hcr", "bm25", "flat", "perfect", "oracle"} <= set(cat.columns)
    by = {r[0].text: {h: c.text for h, c in zip(cat.columns[1:], r[1:])} for r in cat.rows}
    assert set(by) == {"two_hop", "detail"}
    assert by["two_hop"]["hcr"] == "3 / 2 / 1 of 8" and by["two_hop"]["perfect"] == "0 / 4 / 1 of 8"
    assert by["detail"]["bm25"] == "0 / 1 / 0 of 12"


def test_no_failure_table_without_failure_anatomy():
    doc = _doc()
    for e in doc["systems"].values():
        del e["failures"]
    assert failure_tables(doc) == []
