"""Render the report's tables to LaTeX (``tables.tex``): booktabs rules, best in bold, significance letters as
superscripts in the manner of ranx's ``Report.to_latex`` (a system's superscript lists the letters of the
systems it beats significantly; ``\\hphantom`` keeps the columns aligned). Needs ``\\usepackage{booktabs}``.
"""

from __future__ import annotations

from hcrbench.report.model import Cell, Section, Table

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
            ">": r"\textgreater{}"}
_UNICODE = {"±": r"$\pm$", "→": r"$\to$", "≥": r"$\geq$", "≤": r"$\leq$", "−": "-", "—": "---", "–": "--",
            "✓": "yes", "✗": "no", "…": r"\ldots{}", "×": r"$\times$", "ε": r"$\varepsilon$"}


#: Text columns with a cell longer than this wrap (``p{}``) instead of running off the page.
WRAP = 40


def tex_escape(text: str) -> str:
    """Plain text -> LaTeX that typesets that text (specials escaped, a few symbols mapped to math)."""
    out = []
    text = " ".join(str(text).split()).replace(">=", "≥").replace("<=", "≤")
    for ch in text:
        out.append(_SPECIAL.get(ch) or _UNICODE.get(ch) or ch)
    return "".join(out)


def _cell(c: Cell, phantom: str) -> str:
    t = tex_escape(c.text)
    if c.bold and t:
        t = rf"\textbf{{{t}}}"
    if c.sup or phantom:
        t += (f"$^{{{tex_escape(c.sup)}}}$" if c.sup else "") + (rf"\hphantom{{$^{{{phantom}}}$}}" if phantom else "")
    return t


def table_tex(t: Table) -> str:
    """One ``table`` environment; numeric columns right-aligned."""
    ncol = len(t.columns)
    def kind(i: int) -> str:
        cells = [r[i] for r in t.rows if i < len(r)]
        if any(c.num for c in cells):
            return "r"
        return r"p{0.26\linewidth}" if max((len(c.text) for c in cells), default=0) > WRAP else "l"

    align = "".join(kind(i) for i in range(ncol))
    widest = {i: max((len(r[i].sup) for r in t.rows if i < len(r)), default=0) for i in range(ncol)}
    lines = [r"\begin{table}[ht]", r"\centering", r"\small", rf"\caption{{{tex_escape(t.caption)}}}",
             rf"\label{{tab:{t.key}}}", rf"\begin{{tabular}}{{{align}}}", r"\toprule",
             " & ".join(rf"\textbf{{{tex_escape(c)}}}" for c in t.columns) + r" \\", r"\midrule"]
    for row in t.rows:
        cells = []
        for i, c in enumerate(row):
            pad = widest[i] - len(c.sup)
            cells.append(_cell(c, "a" * pad if pad > 0 and widest[i] else ""))
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if t.notes:
        lines.append(rf"\par\smallskip\footnotesize {tex_escape(t.notes)}")
    lines.append(r"\end{table}")
    return "\n".join(lines)


def render_latex(sections: list[Section], title: str) -> str:
    """Every LaTeX-worthy table of every section that ran, in report order."""
    parts = [f"% {tex_escape(title)}: tables written by hcrbench report", r"% Preamble: \usepackage{booktabs}", ""]
    for s in sections:
        if not s.ran:
            parts.append(f"% {tex_escape(s.title)}: not run")
            continue
        for b in s.blocks:
            if isinstance(b, Table) and b.latex and b.rows:
                parts += [f"% --- {tex_escape(s.title)}", table_tex(b), ""]
    return "\n".join(parts).rstrip() + "\n"
