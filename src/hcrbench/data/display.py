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


def _cell(value: object, digits: int = 4) -> str:
    """A field's value in one short cell: numbers formatted, long containers summarised."""
    if isinstance(value, bool) or value is None:
        return str(value)
    integral = isinstance(value, int) or getattr(getattr(value, "dtype", None), "kind", "") in ("i", "u", "b")
    if integral and getattr(value, "shape", ()) == ():
        return str(value.item() if hasattr(value, "item") else value)
    if isinstance(value, float) or getattr(value, "shape", None) == ():  # numpy scalars too
        try:
            return fmt(float(value), digits)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return str(value)
    if isinstance(value, dict):
        items = [f"{k}: {_cell(v, digits)}" for k, v in list(value.items())[:6]]
        return "{" + ", ".join(items) + (f", … {len(value) - 6} more" if len(value) > 6 else "") + "}"
    if isinstance(value, (list, tuple, set, frozenset)) or hasattr(value, "shape"):
        seq = list(value)[:5] if not hasattr(value, "shape") else value.ravel()[:5].tolist()  # type: ignore[union-attr]
        n = len(value) if not hasattr(value, "shape") else int(value.size)  # type: ignore[union-attr]
        shown = ", ".join(_cell(v, digits) for v in seq)
        return f"[{shown}{', …' if n > 5 else ''}] ({n})" if n > 5 else f"[{shown}]"
    return str(value)


class ResultDisplay:
    """Notebook and terminal displays for a result dataclass: ``_repr_html_`` (Jupyter) and ``__rich__``
    (``rich.print(obj)``) show a field / value table instead of the dataclass dump. A class overrides
    :meth:`_display_rows` (and :meth:`_display_title`) to show something more useful than its fields."""

    def _display_title(self) -> str:
        return type(self).__name__

    def _display_rows(self) -> list[tuple[str, str]]:
        import dataclasses

        if not dataclasses.is_dataclass(self):
            return [(k, _cell(v)) for k, v in vars(self).items() if not k.startswith("_")]
        return [(f.name, _cell(getattr(self, f.name))) for f in dataclasses.fields(self) if f.repr]

    def _repr_html_(self) -> str:
        return html_table(["field", "value"], [list(r) for r in self._display_rows()], caption=self._display_title())

    def __rich__(self) -> object:
        from rich.markup import escape
        from rich.table import Table

        table = Table("field", "value", title=escape(self._display_title()), title_justify="left")
        for k, v in self._display_rows():
            table.add_row(escape(k), escape(v))
        return table
