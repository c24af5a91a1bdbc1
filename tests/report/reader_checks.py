"""What a reader must be able to trust in report.html, as one JavaScript expression run in Chromium
(:data:`READER`) and the Python that judges its result (:func:`problems`): no Markdown or Python literals in
the text, a table of contents reaching every section, every mark of the page in its legend, one p value per
row, every id once, and wide tables scrolling inside their card (never the page)."""

from __future__ import annotations

import re

#: Marks the legend must explain whenever the page uses them outside the legend.
MARKS = ["✓", "✗", "→", "±", "—", "HIT", "UNDER-NS", "MISS", "NULL-FAIL", "m=", "B=", "soft no-go", "not decidable"]

READER = """(() => {
  const height = document.documentElement.scrollHeight;  // as it opens: the folded blocks closed
  const v = document.getElementById('verdict'), facts = v && v.nextElementSibling;
  const firstScreen = Math.max(v ? v.getBoundingClientRect().bottom : 1e9,
    facts && facts.matches('ul.facts') ? facts.getBoundingClientRect().bottom : 0);
  const folds = [...document.querySelectorAll('details.fold')].map(d => d.querySelector('summary').innerText.trim());
  document.querySelectorAll('details').forEach(d => { d.open = true; });  // every check below reads it all
  const legend = document.getElementById('legend');
  const main = document.querySelector('main');
  const clone = main.cloneNode(true);
  const l2 = clone.querySelector('#legend'); if (l2) l2.remove();
  const sections = [...document.querySelectorAll('main > section')].map(s => s.id);
  const toc = [...document.querySelectorAll('nav#contents a')].map(a => a.getAttribute('href'));
  const pcols = [...document.querySelectorAll('main table')].map(t => ({
    id: t.id, cols: [...t.querySelectorAll('thead th')].map(th => th.textContent).filter(h => /(^|\\W)p(\\W|$)/.test(h)),
    rows: [...t.querySelectorAll('tbody tr')].map(tr =>
      (tr.textContent.match(/\\bp\\s*(=\\s*[0-9.e-]+|<\\s*0\\.001)/g) || []).length)}));
  const wraps = [...document.querySelectorAll('.tablewrap')].map(w => {
    const s = w.closest('section').getBoundingClientRect(), r = w.getBoundingClientRect();
    return {id: w.firstElementChild.id, right: r.right, sectionRight: s.right, scrolls: w.scrollWidth > w.clientWidth,
            overflow: getComputedStyle(w).overflowX};
  });
  return JSON.stringify({
    text: document.body.innerText, others: clone.innerText, legend: legend ? legend.innerText : null,
    sections, toc, pcols, wraps, sups: document.querySelectorAll('main sup').length,
    ids: [...document.querySelectorAll('[id]')].map(e => e.id),
    pageWidth: document.documentElement.scrollWidth, viewWidth: window.innerWidth,
    height, firstScreen, viewHeight: window.innerHeight, folds,
  });
})()"""

LITERAL = re.compile(r"`|\bp p\b|\bNone\b|\bTrue\b|\bFalse\b|\bnan\b|\{'|\{\"|'\w+': |\"\w+\": |\w+_\w+ = ")


#: A p column's header names its family: its size (``p (Holm, 15 comparisons)``, ``m=``) or a test without one.
FAMILY = re.compile(r"\d|m=|unadjusted|Tukey")


#: The longest page a reader scrolls at a laptop's width (1280 px), every folded block closed: the issue found
#: 16,000 px a problem; the quickstart's report (16 systems) was 21,234 px before its long tables were folded,
#: 8,670 px after. The test fixture's report (4 systems, conftest) was 11,395 px before, 6,444 px after: it is held
#: to a bound of its own that the unfolded page fails.
MAX_HEIGHT = 12_000
FIXTURE_MAX_HEIGHT = 8_000


def problems(state: dict, max_height: int | None = MAX_HEIGHT) -> list[str]:
    """Every way the rendered page (:data:`READER`'s result) fails a reader; empty when it passes.
    ``max_height``: the page's bound as it opens (None: not checked, e.g. at a narrow width)."""
    out = []
    if max_height is not None and state["height"] > max_height:
        out.append(f"the page is {state['height']:,} px long (> {max_height:,} px): fold its long tables")
    if state["firstScreen"] > state["viewHeight"]:
        out.append(f"the verdict and its lines end at {state['firstScreen']:.0f} px, below the first screen "
                   f"({state['viewHeight']} px)")
    for f in state["folds"]:
        if not f or "\n" in f:
            out.append(f"a folded block's summary is not one line: {f!r}")
    for m in LITERAL.finditer(state["text"]):
        a = max(0, m.start() - 40)
        out.append(f"literal {m.group(0)!r} in the text: ...{state['text'][a:m.end() + 40]!r}")
    if state["legend"] is None:
        out.append("no legend (#legend)")
    else:
        for mark in MARKS:
            if mark in state["others"] and mark not in state["legend"]:
                out.append(f"mark {mark!r} is used but not in the legend")
        if state["sups"] and "superscript" not in state["legend"]:
            out.append("superscript letters are used but not in the legend")
    ids = state.get("ids", [])
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        out.append(f"ids used twice (a link jumps to the first): {dup}")
    missing = [s for s in state["sections"] if f"#{s}" not in state["toc"]]
    if missing or not state["toc"]:
        out.append(f"table of contents misses {missing or 'everything'}")
    for t in state["pcols"]:
        if len(t["cols"]) > 1:
            out.append(f"table {t['id']} has {len(t['cols'])} p columns: {t['cols']}")
        for h in t["cols"]:
            if not FAMILY.search(h):
                out.append(f"table {t['id']}: its p column {h!r} does not name its family (size or test)")
        if any(n > 1 for n in t["rows"]):
            out.append(f"table {t['id']} has a row with {max(t['rows'])} p values")
    if state["pageWidth"] > state["viewWidth"]:
        out.append(f"the page scrolls sideways ({state['pageWidth']} px > {state['viewWidth']} px)")
    for w in state["wraps"]:
        if w["right"] > w["sectionRight"] + 1 or w["overflow"] not in ("auto", "scroll"):
            out.append(f"table {w['id']} sticks out of its card")
    return out
