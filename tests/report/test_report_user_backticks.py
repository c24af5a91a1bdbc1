"""Backticks in the user's own text (query texts, names) are shown as written in report.html, never turned into
<code> as hcrbench's own command hints are; those still become <code>."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.report.conftest import hcrbench

TICKED = "`rm -rf` and `x`"


def test_backticks_in_query_texts_stay_text_in_the_report(copy_of, tmp_path: Path):
    folder = copy_of()
    manifest = json.loads((folder / "manifest.json").read_text())
    src = Path(manifest["dataset"]["path"])
    src = src if src.is_absolute() else (Path(folder).resolve() / src)
    dest = tmp_path / "ticked-data"
    shutil.copytree(src, dest)
    queries = dest / "queries.jsonl"
    rows = [json.loads(x) for x in queries.read_text().splitlines() if x.strip()]
    queries.write_text("".join(json.dumps({**q, "text": f"{TICKED} {q['text']}"}) + "\n" for q in rows))
    manifest["dataset"]["path"] = str(dest)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    hcrbench("report", str(folder), cwd=tmp_path)
    html = (folder / "report.html").read_text()
    assert "&#96;rm -rf&#96; and &#96;x&#96;" in html  # the user's text, as written
    assert "<code>rm -rf</code>" not in html and "<code>x</code>" not in html


def test_hcrbench_code_spans_stay_code_around_a_users_backticks():
    from hcrbench.report.html import inline, user_text

    with user_text(["sys`a`", "plain"]):
        got = inline("run `hcrbench report exp` on sys`a` <now>")
    assert got == "run <code>hcrbench report exp</code> on sys&#96;a&#96; &lt;now&gt;"
    assert inline("sys`a`") == "sys<code>a</code>"  # outside a report's rendering nothing is the user's
