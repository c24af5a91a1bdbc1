"""Render report sections to GitHub Markdown; plots are PNG files beside it (``report_files/KEY.png``).

Text is escaped for Markdown and HTML (``<``, ``>``, ``&`` become entities; ``|``, emphasis characters and ``$``
are backslash-escaped: GitHub renders ``$...$`` as math), so corpus and query text render as written and never as
markup.
"""

from __future__ import annotations

import re
from typing import Any

from hcrbench.report.model import Cell, Figure, Para, Section, Table, Verdict

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#$])")  # $: GitHub renders $...$ as math


def md_escape(text: str) -> str:
    """Plain text -> Markdown that shows exactly that text (one line)."""
    t = " ".join(str(text).split())
    t = t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", t)


def _cell(c: Cell) -> str:
    t = md_escape(c.text)
    if c.bold and t:
        t = f"**{t}**"
    if c.sup:
        t += f"<sup>{md_escape(c.sup)}</sup>"
    return t


def table_md(t: Table) -> str:
    lines = [f"**{md_escape(t.caption)}**", "", "| " + " | ".join(md_escape(c) for c in t.columns) + " |",
             "|" + "|".join("---:" if any(r[i].num for r in t.rows if i < len(r)) else "---"
                            for i in range(len(t.columns))) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in t.rows]
    if t.notes:
        lines += ["", f"_{md_escape(t.notes)}_"]
    return "\n".join(lines)


def block_md(b: Any, files: dict[str, str]) -> str:
    if isinstance(b, Table):
        return table_md(b)
    if isinstance(b, Figure):
        rel = files.get(b.key)
        return f"![{md_escape(b.caption)}]({rel})" if rel else f"_(plot left out: {md_escape(b.caption)})_"
    if isinstance(b, Verdict):
        head = f"> **{md_escape(b.overall.upper())}** — {md_escape(b.bottom_line)}"
        return head + ("\n\n" + "\n".join(f"- {md_escape(i)}" for i in b.items) if b.items else "")
    if isinstance(b, Para):
        if b.kind == "note":
            return f"_{md_escape(b.text)}_"
        out = [md_escape(b.text)] if b.text else []
        if b.items:
            out.append("\n".join(f"- {md_escape(i)}" for i in b.items))
        return "\n\n".join(out)
    raise TypeError(f"unknown block {type(b).__name__}")


def render_markdown(sections: list[Section], title: str, subtitle: str, files: dict[str, str]) -> str:
    """The whole document; ``files`` maps figure keys to their relative PNG paths (absent = left out)."""
    parts = [f"# {md_escape(title)}", "", md_escape(subtitle), ""]
    parts.append("Sections: " + " · ".join(f"[{md_escape(s.title)}](#{s.key})" + ("" if s.ran else " (not run)")
                                          for s in sections))
    for s in sections:
        parts += ["", f'<a id="{s.key}"></a>', "", f"## {md_escape(s.title)}" + ("" if s.ran else " — not run"), ""]
        if not s.ran:
            parts.append(f"_{md_escape(s.missing)}_")
            continue
        parts.append("\n\n".join(block_md(b, files) for b in s.blocks))
    return "\n".join(parts).rstrip() + "\n"
