"""The HTML report's folded blocks (hcrbench.report.folds): the long tables open on a click under a one-line
summary whose counts are the table's own, the answer stays open, and only the HTML folds."""

from __future__ import annotations

import json
import re
from html import unescape

from hcrbench.report.document import build_sections
from hcrbench.report.folds import OPEN
from hcrbench.report.inputs import load_inputs
from hcrbench.report.model import Table


def _sections(folder):
    return build_sections(load_inputs(folder))[1]


def test_long_tables_fold_under_a_summary_and_the_answer_stays_open(experiment):
    tables = {(s.key, b.key): b for s in _sections(experiment) for b in s.blocks if isinstance(b, Table)}
    for (_, key), t in tables.items():
        assert bool(t.fold) == (key not in OPEN and bool(t.rows)), key
        assert "\n" not in t.fold
    assert not tables[("verdicts", "checkpoints")].fold and not tables[("systems", "systems")].fold
    assert tables[("legend", "legend")].fold and tables[("systems", "comparisons")].fold


def test_the_comparisons_summary_counts_what_eval_json_holds(experiment):
    ev = json.loads((experiment / "eval.json").read_text())
    comps = ev["comparisons"]
    sig = [c for c in comps if c["p_holm"] is not None and c["p_holm"] < 0.05]
    better = sum(1 for c in sig if c["delta"] > 0)
    t = next(b for s in _sections(experiment) for b in s.blocks if isinstance(b, Table) and b.key == "comparisons")
    assert t.fold.startswith(f"All {len(comps)} paired comparisons against bm25: {len(sig)} significant "
                             f"({better} better, {len(sig) - better} worse)")
    assert re.search(r"p \(Holm, \d+ comparisons?\)$", t.fold), t.fold


def test_only_the_html_folds(written):
    html = written["html"].read_text(encoding="utf-8")
    md = written["md"].read_text(encoding="utf-8")
    summaries = [unescape(re.sub(r"<.*?>", "", m)) for m in re.findall(r"<summary>(.*?)<span", html)]
    assert len(summaries) >= 5 and html.count("<details") == len(summaries)
    assert "<details" not in md and "| control | metric | real |" in md  # the Markdown shows every table whole
