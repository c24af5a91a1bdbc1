"""The sufficiency plot a person reads: 12 systems + the controls, each with its own colour and marker; a CI band on
every curve; the system under test, the kill baseline, the best flat system and the controls in colour, the rest
faded; the unconstrained budget drawn apart."""

from __future__ import annotations

import pytest

from hcrbench.report.curves import draw_curves, styles, write_curves

pytest.importorskip("matplotlib")


def _doc(n: int = 12) -> dict:
    budgets = ["200", "400", "800", "all"]
    names = [f"sys{i}" for i in range(n - 2)] + ["hcr", "rerank"]

    def rate(r: float) -> dict:
        return {"evidence_coverage": {"rate": r, "low": max(0.0, r - 0.1), "high": min(1.0, r + 0.1), "n": 59}}

    systems = {s: {"rates": {b: rate(0.05 * i + 0.02 * j) for j, b in enumerate(budgets)},
                   "mean_tokens": {b: 100.0 for b in budgets}, "by_category": {}} for i, s in enumerate(names)}
    systems["oracle"] = {"rates": {b: rate(0.9) for b in budgets}, "mean_tokens": {b: 50.0 for b in budgets},
                         "by_category": {}, "control": "oracle"}
    systems["perfect"] = {"rates": {b: rate(0.8) for b in budgets}, "mean_tokens": {b: 50.0 for b in budgets},
                          "by_category": {}, "control": "perfect"}
    systems["passage"] = {"rates": {b: rate(0.95) for b in budgets}, "mean_tokens": {b: 60.0 for b in budgets},
                          "by_category": {}, "control": "passage"}
    return {"budgets": budgets, "headline": "evidence_coverage", "proxy_kinds": [], "token_counter": "cl100k",
            "selection": "greedy", "baseline": "rerank", "oracle": "oracle", "perfect": "perfect", "n_queries": 59,
            "reference_budget": 400,
            "highlight": {"system": "hcr", "kill_baseline": "rerank"}, "systems": systems}


def test_every_system_has_its_own_colour_and_marker_and_a_band_and_five_are_highlighted():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    doc = _doc(12)
    st = styles(doc, list(doc["systems"]))
    assert len({s["color"] for s in st.values()}) == 15  # distinct colours, not just distinct pairs
    assert len({(s["color"], s["marker"]) for s in st.values()}) == 15
    assert all(s["band"] for s in st.values())
    # highlighted: under test, kill baseline, the best other system at 400 (no protocol flat here), the controls
    assert {n for n, s in st.items() if s["alpha"] == 1.0} == {"hcr", "rerank", "sys9", "oracle", "perfect", "passage"}
    assert st["sys9"]["label"] == "sys9 (best flat)"
    assert st["perfect"]["label"] == "perfect (perfect document ranking, the harness's passage choice)"
    assert st["passage"]["label"] == "passage (passage-level perfect retriever: the gate)"
    fig, ax = plt.subplots()
    series = {n: {k: v["evidence_coverage"] for k, v in e["rates"].items()} for n, e in doc["systems"].items()}
    side = draw_curves(ax, doc, series, "t", legend=True)
    lines = [ln for ln in ax.get_lines()]
    assert len(lines) == 15
    assert len({(ln.get_color(), ln.get_marker()) for ln in lines}) == 15
    assert sum(isinstance(c, PolyCollection) for c in ax.collections) == 15
    # numeric budgets on the main axis, spaced by value; "all" only on the side panel
    assert [t.get_text() for t in ax.get_xticklabels()] == ["200", "400", "800"]
    assert list(ax.get_xticks()) == [200.0, 400.0, 800.0]
    assert side is not None and [t.get_text() for t in side.get_xticklabels()] == ["all"]
    assert all(max(ln.get_xdata()) <= 800 for ln in lines)
    assert len(ax.get_legend().get_texts()) == 15
    plt.close(fig)


def test_write_curves_is_byte_identical(tmp_path):
    doc = _doc(5)
    a = write_curves(doc, tmp_path / "a")
    write_curves(doc, tmp_path / "b")
    assert (tmp_path / "a" / "sufficiency.png").read_bytes() == (tmp_path / "b" / "sufficiency.png").read_bytes()
    assert "png" in a
