"""``hcrbench.report.document.write_report`` on a real experiment folder: the three files, self-contained HTML,
escaped corpus text, "not run" sections for missing inputs, ranx-style significance marks in tables.tex,
the ablation table's parameter diff, byte-identical re-runs."""

from __future__ import annotations

import json
import re
from html import escape

import pytest

from hcrbench.errors import InputError
from hcrbench.report.document import write_report
from hcrbench.report.latex import tex_escape
from hcrbench.report.markdown import md_escape

from .conftest import MARK


def test_write_report_returns_the_three_files(written, experiment):
    assert set(written) == {"html", "md", "tex"}
    for key, name in (("html", "report.html"), ("md", "report.md"), ("tex", "tables.tex")):
        assert written[key] == experiment / name and written[key].stat().st_size > 0


def test_html_is_self_contained(written):
    html = written["html"].read_text()
    assert "<script" not in html.lower().replace("&lt;script", "")  # no script of ours; corpus text escaped
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html), "an external reference"
    assert "<link" not in html and "@import" not in html and "url(" not in html
    imgs = re.findall(r'<img [^>]*src="([^"]{0,40})', html)
    assert len(imgs) >= 4 and all(s.startswith("data:image/png;base64,") for s in imgs)


def test_query_and_verdict_text_are_escaped_everywhere(written):
    html = written["html"].read_text()
    assert "window.__pwned" in html  # the text is shown (query texts and the verdict's bottom line) ...
    assert "<script>window.__pwned" not in html  # ... but never as markup
    assert escape(MARK) in html and escape(MARK) == " &lt;script&gt;window.__pwned = 1&lt;/script&gt; &amp; co"
    md = written["md"].read_text()
    assert "&lt;script&gt;window.\\_\\_pwned = 1&lt;/script&gt; &amp; co" in md and "<script>" not in md
    tex = written["tex"].read_text()
    assert "<script>" not in tex


def test_verdicts_come_first_in_plain_words(written):
    html = written["html"].read_text()
    v = json.loads((written["html"].parent / "verdicts.json").read_text())
    first_section = re.search(r'<section id="([^"]+)"', html).group(1)
    assert first_section == "verdicts"
    assert 'id="t-checkpoints"' in html and 'id="t-hypotheses"' in html
    assert html.index('id="verdict"') < html.index('id="systems"')
    assert v["overall"] in html


def test_system_table_shows_every_system_and_its_ci(written, experiment):
    ev = json.loads((experiment / "eval.json").read_text())
    html = written["html"].read_text()
    for name, r in ev["runs"].items():
        assert f"{r['means']['nDCG@10']:.3f}" in html, name
    for c in ev["comparisons"]:
        assert f"[{c['ci_low']:+.3f}, {c['ci_high']:+.3f}]" in html


def test_tables_tex_uses_booktabs_and_ranx_style_letters(written, experiment):
    tex = written["tex"].read_text()
    assert tex.count(r"\toprule") == tex.count(r"\bottomrule") >= 4 and r"\midrule" in tex
    ev = json.loads((experiment / "eval.json").read_text())
    names = list(ev["runs"])
    systems_table = tex.split(r"\label{tab:systems}")[1].split(r"\end{table}")[0]
    # the best system's name is set in bold: key the rows by the bare name
    rows = {re.sub(r"^\\textbf\{(.*)\}$", r"\1", line.split(" & ")[1]): line
            for line in systems_table.splitlines() if line.count(" & ") > 2}
    wins = [c for c in ev["comparisons"] if c["p_holm"] < 0.05 and c["metric"] in ("nDCG@10", "R@100")]
    assert wins, "the fixture should hold at least one significant comparison"
    for c in wins:
        winner, loser = (c["run"], c["baseline"]) if c["delta"] > 0 else (c["baseline"], c["run"])
        letter = "abcdefghijklmnopqrstuvwxyz"[names.index(loser)]
        assert re.search(r"\$\^\{[a-z]*" + letter, rows[tex_escape(winner)]), (winner, loser)


def test_sections_without_input_say_not_run(copy_of):
    folder = copy_of(keep=("eval.json", "manifest.json"))
    paths = write_report(folder)
    html = paths["html"].read_text()
    for key in ("verdicts", "gate", "routing", "calibration", "growth", "categories"):
        assert re.search(rf'<section id="{key}" class="notrun">', html), key
    assert '<section id="systems">' in html
    md = paths["md"].read_text()
    assert "## Verdict — not run" in md and "% Verdict: not run" in paths["tex"].read_text()


def test_empty_folder_gives_a_report_of_not_run_sections(tmp_path):
    html = write_report(tmp_path)["html"].read_text()
    assert html.count('class="notrun"><h2>') == 12


@pytest.mark.parametrize(("name", "text", "needle"), [
    ("verdicts.json", '{"schema": "hcrbench.verdicts/1", "overall": "maybe", "bottom_line": "x"}', "overall"),
    ("verdicts.json", "{not json", "invalid JSON"),
    ("gate.json", '{"systems": []}', "systems"),
    ("eval.json", '{"comparisons": []}', "runs"),
    ("tree_metrics.json", '{"hcr": {"tree": {}}}', "routing"),
    ("per_query.parquet", "not parquet", "parquet"),
])
def test_malformed_file_is_one_input_error_naming_it(copy_of, name, text, needle):
    folder = copy_of()
    (folder / name).write_text(text)
    with pytest.raises(InputError) as e:
        write_report(folder)
    msg = str(e.value)
    assert name in msg and needle in msg and "\n" not in msg


def test_malformed_value_deep_in_a_file_names_the_file(copy_of):
    folder = copy_of()
    doc = json.loads((folder / "gate.json").read_text())
    doc["calibration"] = [{"run": "bm25"}]  # no n, no widths
    (folder / "gate.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"gate\.json"):
        write_report(folder)


def test_ablation_and_growth_sections(copy_of):
    folder = copy_of()
    v = json.loads((folder / "verdicts.json").read_text())
    (folder / "verdicts.json").write_text(json.dumps({**v, "system": "bm25-k1.5"}))
    (folder / "growth.json").write_text(json.dumps(  # the contract's example, and one more size
        {"metric": "nDCG@10", "system": "hcr", "baseline": "rerank",
         "points": [{"size": "small", "n_docs": 500, "delta": -0.04, "ci_low": -0.08, "ci_high": -0.01, "p": 0.003},
                    {"size": "medium", "n_docs": 2000, "delta": -0.06, "ci_low": -0.09, "ci_high": -0.03,
                     "p": 0.001}]}))
    paths = write_report(folder)
    html = paths["html"].read_text()
    table = html.split('id="t-ablations"')[1].split("</table>")[0]
    assert "k1: 1.5 → 0.9; b: 0.75 → 0.4" in table  # bm25 against the main system bm25-k1.5
    assert "bm25-chunks128" in table
    row = table.split("bm25-chunks128")[1].split("</tr>")[0]  # it also turns chunking on
    assert "chunking: off → " in row and "max_tokens=128" in row
    assert "<th>id</th>" not in table  # no system carries an A1-A8 id: no all-dash column
    section = html.split('<section id="growth">')[1].split("</section>")[0]
    assert 'id="f-growth"' in section and "[-0.090, -0.030]" in section
    assert "hcr loses to rerank by 0.060 nDCG@10 (p = 0.0010)" in section
    assert (folder / "report_files" / "growth.png").is_file()
    assert "](report_files/growth.png)" in paths["md"].read_text()


def test_report_is_byte_identical_when_rewritten(written, copy_of):
    folder = copy_of()  # the same inputs in another folder: the same bytes
    again = write_report(folder)
    for key, path in written.items():
        assert again[key].read_bytes() == path.read_bytes(), key
    pngs = sorted((written["html"].parent / "report_files").glob("*.png"))
    assert len(pngs) >= 4
    for p in pngs:
        assert (folder / "report_files" / p.name).read_bytes() == p.read_bytes(), p.name


def test_markdown_and_latex_escaping():
    assert md_escape("a|b <i>*x*</i> & _y_") == r"a\|b &lt;i&gt;\*x\*&lt;/i&gt; &amp; \_y\_"
    assert tex_escape("50% of R&D_x {a} ~ ^ \\ → ± >= 1") == \
        r"50\% of R\&D\_x \{a\} \textasciitilde{} \textasciicircum{} \textbackslash{} $\to$ $\pm$ $\geq$ 1"


def test_without_matplotlib_the_report_says_plots_are_left_out(copy_of, monkeypatch):
    from hcrbench.errors import HcrbenchWarning
    from hcrbench.report import plots

    monkeypatch.setattr(plots, "_plt", lambda: None)
    folder = copy_of()
    with pytest.warns(HcrbenchWarning, match="matplotlib"):
        html = write_report(folder)["html"].read_text()
    assert "<img" not in html and "Plots are left out" in html

