"""ranx's significance letters in the Markdown, LaTeX and HTML exports of an all-pairs evaluation
(``EvaluationResult.to_markdown / to_latex / to_html`` with ``compare(res, pairs="all")``), checked against ranx's
own ``Report`` on a small example."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hcrbench.metrics import evaluate
from hcrbench.stats import compare

N_Q, DEPTH = 40, 10


def _data():
    """A graded qrels, an oracle, a noisy copy of it and a broken (reversed) system; 40 queries."""
    rng = np.random.default_rng(7)
    qrels = {f"q{i}": {f"d{i}_{j}": int(g) for j, g in enumerate(rng.integers(0, 4, DEPTH))} for i in range(N_Q)}
    oracle = {q: {d: float(g) + 0.001 * k for k, (d, g) in enumerate(sorted(j.items()))} for q, j in qrels.items()}
    noisy = {q: {d: s + float(rng.normal(0, 1.5)) for d, s in r.items()} for q, r in oracle.items()}
    broken = {q: {d: -s for d, s in r.items()} for q, r in oracle.items()}
    return qrels, {"oracle": oracle, "noisy": noisy, "broken": broken}


@pytest.fixture(scope="module")
def all_pairs():
    qrels, runs = _data()
    res = evaluate(qrels, runs, ["nDCG@10", "P@5"])
    return qrels, runs, res, compare(res, pairs="all", n_resamples=500, seed=0)


def _cells(md: str) -> dict[str, list[str]]:
    rows = [ln.strip("|").split("|") for ln in md.splitlines()[2:] if ln.startswith("|")]  # not the legend
    return {r[1].strip(): [c.strip() for c in r[2:]] for r in rows}


def test_markdown_marks_each_mean_with_the_letters_of_the_runs_it_beats(all_pairs):
    _, _, res, comps = all_pairs
    md = res.to_markdown(comparisons=comps)
    assert md.splitlines()[0].replace(" ", "") == "|#|run|nDCG@10|P@5|"
    cells = _cells(md)
    # oracle (a) beats noisy (b) and broken (c); noisy beats broken; broken beats no one (the control)
    assert cells["oracle"][0].endswith("ᵇᶜ") and cells["noisy"][0].endswith("ᶜ") and not cells["noisy"][0].endswith("ᵇᶜ")
    assert re.fullmatch(r"\d\.\d{4}", cells["broken"][0])
    # a copy of a run against itself: no letter either way
    twin = evaluate(all_pairs[0], {"a": all_pairs[1]["oracle"], "b": dict(all_pairs[1]["oracle"])}, ["nDCG@10"])
    assert "ᵃ" not in twin.to_markdown(comparisons=compare(twin, pairs="all", n_resamples=200)).split("\n", 2)[2]


def test_baseline_comparisons_keep_the_dagger(all_pairs):
    _, _, res, _ = all_pairs
    md = res.to_markdown(comparisons=compare(res, n_resamples=500))
    assert "†" in md and "#" not in md.splitlines()[0]


def test_latex_uses_ranx_superscripts_and_phantoms_and_html_carries_the_letters(all_pairs):
    _, _, res, comps = all_pairs
    tex = res.to_latex(comparisons=comps)
    row = next(ln for ln in tex.splitlines() if ln.startswith("a & oracle"))
    assert re.search(r"\\textbf\{\d\.\d{4}\}\$\^\{bc\}\$ &", row), row  # the best mean in bold, as ranx
    row = next(ln for ln in tex.splitlines() if ln.startswith("c & broken"))
    assert re.search(r"\d\.\d{4}\\hphantom\{\$\^\{ab\}\$\}", row), row
    assert "ZZLETTERS" not in tex
    html = res.to_html(comparisons=comps)
    assert "ᵇᶜ" in html and "Superscripts" in html
    assert res._repr_html_() == res.to_html()


@pytest.mark.slow  # ranx imports numba and JIT-compiles
@pytest.mark.parametrize("test,field", [("student", "t_p"), ("tukey", "p_tukey")])
def test_letters_equal_ranx_report(all_pairs, test, field):
    import ranx

    qrels, runs, res, comps = all_pairs
    report = ranx.compare(ranx.Qrels.from_dict(qrels), [ranx.Run.from_dict(r, name=n) for n, r in runs.items()],
                          metrics=["ndcg@10", "precision@5"], stat_test=test, max_p=0.05)
    cells = _cells(res.to_markdown(comparisons=comps, letters_by=field))
    tex = res.to_latex(comparisons=comps, letters_by=field)
    rx_tex = report.to_latex()
    for n in runs:
        for j, m in enumerate(("ndcg@10", "precision@5")):
            sup = report.get_superscript_for_table(n, m)
            assert cells[n][j] == f"{report.results[n][m]:.4f}{sup}", (n, m)
            plain = report.get_superscript_for_latex(n, m)
            phantom = report.get_phantoms_for_latex(n, m)
            ours = (f"$^{{{plain}}}$" if plain else "") + (rf"\hphantom{{$^{{{phantom}}}$}}" if phantom else "")
            assert ours in tex and f"$^{{{plain}}}$\\hphantom{{$^{{{phantom}}}$}}".replace("$^{}$", "") in rx_tex
    assert any(v for row in cells.values() for v in row if not re.fullmatch(r"[\d.]+", v))  # letters present
    bold_theirs = sorted(round(float(x), 3) for x in re.findall(r"\\textbf\{(\d\.\d+)\}", rx_tex))
    bold_ours = sorted(round(float(x), 3) for x in re.findall(r"\\textbf\{(\d\.\d+)\}", tex))
    assert bold_ours == bold_theirs and bold_ours  # the same best means in bold as ranx's to_latex


def test_evaluate_all_pairs_json_carries_the_letters(tmp_path):
    """Through the console script: `--all-pairs --json` writes the letters the terminal shows, plain."""
    import json
    import subprocess
    from pathlib import Path

    ex = Path(__file__).resolve().parents[2] / "examples"
    rev = tmp_path / "rev.trec"  # bm25 with its ranks reversed: a broken system both others beat
    rev.write_text("".join(f"{p[0]} Q0 {p[2]} 1 {-float(p[4])} rev\n"
                           for p in (ln.split() for ln in (ex / "bm25.trec").read_text().splitlines())))
    out = tmp_path / "ap.json"
    r = subprocess.run(["hcrbench", "evaluate", str(ex / "cranfield.qrels"), str(ex / "bm25.trec"), str(rev),
                        "-m", "nDCG@10", "--resamples", "200", "--all-pairs", "--json", str(out)],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    letters = json.loads(out.read_text())["letters"]
    assert letters["by"] == "p_holm" and letters["letter"] == {"bm25": "a", "rev": "b"}
    assert letters["runs"] == {"bm25": {"nDCG@10": "b"}, "rev": {"nDCG@10": ""}}
    assert "ᵇ" in r.stdout


def test_every_export_defines_its_marks_and_latex_bolds_the_best(all_pairs):
    """Test, threshold, correction, family and baseline are named in the same file as the marks."""
    _, _, res, comps = all_pairs
    base = compare(res, n_resamples=300, test="wilcoxon", correction="bh")
    for text in (res.to_markdown(comparisons=base), res.to_latex(comparisons=base), res.to_html(comparisons=base)):
        assert "Wilcoxon signed-rank" in text and "Benjamini-Hochberg" in text and "family of 2" in text
        assert "'oracle'" in text.replace("&#x27;", "'") and "0.05" in text
    md = res.to_markdown(comparisons=compare(res, n_resamples=300), alpha=0.01)
    assert md.count("†") == 1 + sum(c.significant(0.01) for c in compare(res, n_resamples=300))
    assert "p < 0.01" in md and "Holm-adjusted" in md
    for text in (res.to_markdown(comparisons=comps), res.to_latex(comparisons=comps), res.to_html(comparisons=comps)):
        assert "Superscripts" in text and "every pair" in text and "Holm-adjusted" in text
    tex = res.to_latex(comparisons=comps, letters_by="p_tukey")
    assert "Tukey's HSD" in tex and "boldface" in tex
    means = res.means
    for j, m in enumerate(res.metrics):
        top = max(means, key=lambda n: round(means[n][m], 4))
        row = next(ln for ln in tex.splitlines() if f"& {top} &" in ln)
        assert rf"\textbf{{{means[top][m]:.4f}}}" in row.split(" & ")[2 + j]
    assert res.to_markdown() == res.to_markdown(comparisons=[])  # nothing marked, nothing to define
    assert "†" not in res.to_markdown()
