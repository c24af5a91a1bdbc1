"""Render report sections to one self-contained HTML page: inline CSS, plots as base64 PNG, no script, no
external file, font or network request. Every piece of text goes through :func:`html.escape`, so corpus and query
text (or a system name) holding ``<script>`` or ``&`` shows as text and never runs.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import re
from collections.abc import Iterable, Iterator
from html import escape
from typing import Any

from hcrbench.report.model import Cell, Figure, Para, Section, Table, Verdict

CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--card:#fff;--good:#1a7f37;--good-bg:#dafbe1;
--bad:#cf222e;--bad-bg:#ffebe9;--warn:#9a6700;--warn-bg:#fff8c5;--info:#0969da;--info-bg:#ddf4ff}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,
"Noto Sans","Liberation Sans",sans-serif}
header{background:#24292f;color:#fff;padding:22px 32px}
header h1{margin:0;font-size:24px;font-weight:600}
header p{margin:4px 0 0;color:#c9d1d9;font-size:14px}
nav{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);padding:8px 32px;
display:flex;flex-wrap:wrap;gap:6px 16px;font-size:13px}
nav a{color:var(--info);text-decoration:none}
nav a.notrun{color:var(--muted)}
nav .toc{color:var(--fg)}
main{max-width:1180px;margin:0 auto;padding:20px 24px 60px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:18px 22px;margin:18px 0;
min-width:0;max-width:100%;overflow:hidden;scroll-margin-top:48px}
section.notrun{background:#fbfbfc}
h2{margin:0 0 12px;font-size:19px;font-weight:600;display:flex;align-items:center;gap:10px}
.pill{display:inline-block;padding:1px 10px;border-radius:999px;font-size:12px;font-weight:600;
border:1px solid transparent}
.pill.muted{background:#eaeef2;color:var(--muted)}
.verdict{display:flex;gap:18px;align-items:center;padding:16px 18px;border-radius:8px;margin-bottom:12px}
.verdict .word{font-size:26px;font-weight:700;text-transform:uppercase;letter-spacing:.02em;white-space:nowrap}
.verdict .line{font-size:18px}
.good{color:var(--good)} .bad{color:var(--bad)} .warn{color:var(--warn)} .info{color:var(--info)}
.muted{color:var(--muted)}
.verdict.good,.pill.good{background:var(--good-bg);border-color:#aceebb}
.verdict.bad,.pill.bad{background:var(--bad-bg);border-color:#ffcecb}
.verdict.warn,.pill.warn{background:var(--warn-bg);border-color:#f5e0a0}
.verdict.muted{background:#eaeef2}
.tablewrap{overflow-x:auto;max-width:100%;margin:10px 0 6px}
table{border-collapse:collapse;font-size:13px;min-width:40%}
caption{text-align:left;font-weight:600;padding:4px 0 6px;font-size:14px}
th,td{padding:5px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--bg);font-weight:600;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td{max-width:520px;overflow-wrap:break-word}
td.good{background:var(--good-bg)} td.bad{background:var(--bad-bg)} td.warn{background:var(--warn-bg)}
td.info{background:var(--info-bg)}
tr:hover td{background-color:rgba(9,105,218,.04)}
sup{font-size:10px;color:var(--info);margin-left:1px}
.tnote,.note{color:var(--muted);font-size:13px;margin:2px 0 10px}
figure{margin:14px 0;text-align:center}
figure img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
figcaption{color:var(--muted);font-size:13px;margin-top:4px}
ul{margin:6px 0 10px;padding-left:22px}
footer{color:var(--muted);font-size:12px;text-align:center;padding:10px}
details.fold{margin:8px 0;border:1px solid var(--line);border-radius:6px;background:var(--bg)}
details.fold>summary{cursor:pointer;padding:6px 12px;font-size:14px;color:var(--fg)}
details.fold>summary .more{color:var(--info);font-size:12px;margin-left:6px}
details.fold>summary .more::after{content:"show"} details.fold[open]>summary .more::after{content:"hide"}
details.fold[open]>summary{border-bottom:1px solid var(--line)}
details.fold>.foldbody{padding:2px 12px 8px;background:var(--card)}
ul.facts{margin:0 0 10px;padding-left:20px;font-size:15px}
ul.facts li{margin:2px 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.92em;background:rgba(127,127,127,.12);padding:0 3px;border-radius:3px}
"""


def inline(text: str) -> str:
    """``text`` escaped, its Markdown code spans (```hcrbench quickstart```) shown as ``<code>``, never as
    literal backticks; a backtick of the user's own text (:func:`user_text`) is shown as written."""
    for s in _USER.get():
        if s in text:
            text = text.replace(s, s.replace("`", _TICK))
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", escape(text)).replace(_TICK, "&#96;")


_CODE = re.compile(r"`([^`]+)`")
#: Stands for a user's backtick while code spans are found (a private-use character no input holds as text).
_TICK = "\ue000"
_USER: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("hcrbench_report_user_text", default=())


@contextlib.contextmanager
def user_text(strings: Iterable[str]) -> Iterator[None]:
    """While rendering: these strings are the user's (system, run and dataset names, query ids and texts), so a
    backtick in them is text, never the start of a code span (a name like ```rm -rf` `` stays as written)."""
    ticked = sorted({s for s in strings if isinstance(s, str) and "`" in s}, key=len, reverse=True)
    token = _USER.set(tuple(ticked))
    try:
        yield
    finally:
        _USER.reset(token)


def _cell(c: Cell, tag: str = "td") -> str:
    cls = " ".join(x for x in ("num" if c.num else "", c.tone or "") if x)
    text = inline(c.text)
    if c.bold:
        text = f"<strong>{text}</strong>"
    if c.sup:
        text += f"<sup>{escape(c.sup)}</sup>"
    return f'<{tag}{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>{text}</{tag}>'


def table_html(t: Table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in t.columns)
    body = "\n".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in t.rows)
    notes = f'<p class="tnote">{escape(t.notes)}</p>' if t.notes else ""
    return (f'<div class="tablewrap"><table id="t-{escape(t.key)}"><caption>{escape(t.caption)}</caption>'
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table></div>{notes}")


def figure_html(f: Figure) -> str:
    data = base64.b64encode(f.png).decode("ascii")
    return (f'<figure id="f-{escape(f.key)}" class="plot"><img alt="{escape(f.caption)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{escape(f.caption)}</figcaption></figure>')


def fold_html(summary: str, inner: str) -> str:
    """``inner`` collapsed under a one-line ``summary`` (a click opens it; no script)."""
    return (f'<details class="fold"><summary>{inline(summary)}<span class="more"></span></summary>'
            f'<div class="foldbody">{inner}</div></details>')


def block_html(b: Any) -> str:
    inner = _block_html(b)
    fold = getattr(b, "fold", "")
    return fold_html(fold, inner) if fold else inner


def _block_html(b: Any) -> str:
    if isinstance(b, Table):
        return table_html(b)
    if isinstance(b, Figure):
        return figure_html(b)
    if isinstance(b, Verdict):
        line = b.short or b.bottom_line
        out = (f'<div id="verdict" class="verdict {b.tone}"><span class="word {b.tone}">{escape(b.overall)}</span>'
               f'<span class="line">{inline(line)}</span></div>')
        if b.items:
            out += '<ul class="facts">' + "".join(f"<li>{inline(i)}</li>" for i in b.items) + "</ul>"
        if b.short and b.short != b.bottom_line:
            out += fold_html("The protocol's whole bottom line", f"<p>{inline(b.bottom_line)}</p>")
        return out
    if isinstance(b, Para):
        lead = f"<p>{inline(b.text)}</p>" if b.text and b.kind != "note" else ""
        if b.kind == "note":
            return f'<p class="note">{inline(b.text)}</p>'
        if b.items:
            return lead + "<ul>" + "".join(f"<li>{inline(i)}</li>" for i in b.items) + "</ul>"
        return lead
    raise TypeError(f"unknown block {type(b).__name__}")


def section_html(s: Section) -> str:
    if not s.ran:
        return (f'<section id="{escape(s.key)}" class="notrun"><h2>{escape(s.title)} '
                f'<span class="pill muted">not run</span></h2><p class="muted">{escape(s.missing)}</p></section>')
    inner = "\n".join(block_html(b) for b in s.blocks)
    return f'<section id="{escape(s.key)}"><h2>{escape(s.title)}</h2>\n{inner}\n</section>'


def render_html(sections: list[Section], title: str, subtitle: str) -> str:
    """The whole page (UTF-8 text)."""
    nav = '<strong class="toc">Contents</strong> ' + " ".join(
        f'<a href="#{escape(s.key)}"{"" if s.ran else " class=notrun"}>{escape(s.title)}'
        f'{"" if s.ran else " (not run)"}</a>' for s in sections)
    body = "\n".join(section_html(s) for s in sections)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n"
            f"<header><h1>{escape(title)}</h1><p>{escape(subtitle)}</p></header>\n"
            f'<nav id="contents" aria-label="Contents">{nav}</nav>\n'
            f"<main>\n{body}\n</main>\n<footer>Written by hcrbench report; self-contained (no network needed)."
            f"</footer>\n</body></html>\n")
