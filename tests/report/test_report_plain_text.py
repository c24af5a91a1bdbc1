"""report.html reads as prose and tables, not as program output: no Markdown backticks (code spans are <code>),
no Python literals (None, True, False) in the text a reader sees."""

from __future__ import annotations

import re

from hcrbench.report.html import inline


def _visible(html: str) -> str:
    html = re.sub(r"<style.*?</style>", "", html, flags=re.S)
    html = re.sub(r"<code>.*?</code>", "", html, flags=re.S)  # commands may spell anything
    return re.sub(r"<[^>]+>", " ", html)


def test_code_spans_become_code_elements_and_text_is_still_escaped():
    assert inline("run `hcrbench quickstart --sizes a,b` <now>") == \
        "run <code>hcrbench quickstart --sizes a,b</code> &lt;now&gt;"


def test_the_report_shows_no_backticks_and_no_python_literals(written):
    text = _visible(written["html"].read_text())
    assert "`" not in text
    for literal in ("None", "True", "False"):
        assert not re.search(rf"\b{literal}\b", text), (literal, re.search(rf".{{60}}\b{literal}\b.{{20}}", text))


def test_every_element_id_on_the_page_is_unique(written):
    """Links of the table of contents and of the legend jump to an id: two tables with one id (the protocol's and the
    gate's controls once shared ``t-controls``) send a reader to the wrong one."""
    ids = re.findall(r'\bid="([^"]+)"', written["html"].read_text())
    assert ids, "the page has no ids to check"
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert not dup, dup
