"""Small tables as HTML, Markdown or LaTeX text, for notebooks and papers (no pandas, no tabulate).

Every function takes a header and rows of already formatted cells. Used by the ``_repr_html_`` / ``to_markdown``
/ ``to_latex`` methods of :class:`~hcrbench.data.Run`, :class:`~hcrbench.data.Qrels`, evaluation results and
comparisons.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def fmt(value: object, digits: int = 4) -> str:
    """A cell: floats with ``digits`` decimals, NaN as an en dash, anything else as ``str``."""
    if isinstance(value, float):
        return "–" if value != value else f"{value:.{digits}f}"
    return str(value)


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]], caption: str = "") -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    sep = "|" + "|".join("---" for _ in header) + "|"
    return "\n".join([line(header), sep, *(line(r) for r in rows)]) + "\n"


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def latex_table(header: Sequence[str], rows: Sequence[Sequence[str]], caption: str = "") -> str:
    """A ``tabular`` (booktabs rules) inside a ``table``; cells are escaped."""
    cols = "l" + "r" * (len(header) - 1)
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + latex_escape(caption) + "}")
    lines += [r"\begin{tabular}{" + cols + "}", r"\toprule",
              " & ".join(latex_escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"
