"""The list :func:`hcrbench.stats.compare` returns, made readable: a short repr, an HTML table in Jupyter, a
DataFrame and a Markdown table. It is a plain ``list`` of :class:`~hcrbench.stats.compare.Comparison` otherwise."""

from __future__ import annotations

from typing import Any

_COLUMNS = ("run", "baseline", "metric", "delta", "ci", "p", "p_holm", "cohens_d", "helped/hurt/tied")


class Comparisons(list):
    """Comparisons of one :func:`~hcrbench.stats.compare` call, in its order."""

    def _simultaneous(self) -> bool:
        return any(getattr(c, "simultaneous", False) for c in self)

    def _columns(self) -> tuple[str, ...]:
        """The table's columns: the simultaneous interval's beside the per-comparison one where it was computed."""
        return (*_COLUMNS[:5], "simultaneous ci", *_COLUMNS[5:]) if self._simultaneous() else _COLUMNS

    def _rows(self, digits: int = 4) -> list[list[str]]:
        from hcrbench.data.display import fmt

        sim = self._simultaneous()
        return [[c.run, c.baseline, c.metric, f"{c.delta:+.{digits}f}",
                 f"[{fmt(c.ci_low, digits)}, {fmt(c.ci_high, digits)}]"]
                + ([f"[{fmt(c.sim_low, digits)}, {fmt(c.sim_high, digits)}]"] if sim else [])
                + [fmt(c.p, 3), fmt(c.p_holm, 3) + (" *" if c.significant() else ""), fmt(c.cohens_d, 2),
                   f"{c.helped}/{c.hurt}/{c.tied}"] for c in self]

    def letters(self, names: Any, *, alpha: float = 0.05, p: str = "p_holm",
                superscript: bool = True) -> dict[tuple[str, str], str]:
        """ranx's significance letters of these (all-pairs) comparisons: ``{(run, metric): letters}`` of the runs
        each one beats with ``p`` <= ``alpha`` (see :func:`hcrbench.stats.letters.significance_letters`)."""
        from hcrbench.stats.letters import significance_letters

        return significance_letters(self, list(names), alpha=alpha, p=p, superscript=superscript)

    def to_frame(self) -> Any:
        """One row per comparison with the fields of ``--json``'s ``comparisons`` entries."""
        import pandas as pd

        return pd.DataFrame([c.to_dict() for c in self])

    def legend(self, alpha: float = 0.05) -> str:
        """What the ``*`` after p_holm means: significant by the comparisons' test and correction at ``alpha``."""
        if not self:
            return ""
        return f"* significant: {self[0].legend(alpha)}. ci: {self[0].interval_note()}."

    def to_markdown(self, digits: int = 4) -> str:
        """A Markdown table, followed by the sentence defining its ``*`` mark."""
        from hcrbench.data.display import markdown_table

        legend = self.legend()
        return markdown_table(self._columns(), self._rows(digits)) + (f"\n{legend}\n" if legend else "")

    def _repr_html_(self) -> str:
        from hcrbench.data.display import html_table

        return html_table(self._columns(), self._rows(), caption=f"{len(self)} comparisons. {self.legend()}".strip())

    def __rich__(self) -> Any:
        """A rich table (``rich.print(comparisons)``), its caption defining the mark."""
        from rich.table import Table

        table = Table(*self._columns(), title=f"{len(self)} comparisons", caption=self.legend() or None)
        for row in self._rows():
            table.add_row(*row)
        return table

    def __repr__(self) -> str:
        rows = self._rows()[:20]
        if not rows:
            return "Comparisons([])"
        cols = list(self._columns())
        width = [max(len(r[i]) for r in [cols, *rows]) for i in range(len(cols))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip() for r in [cols, *rows]]
        more = [f"... {len(self) - 20} more"] if len(self) > 20 else []
        return "\n".join([f"Comparisons({len(self)}; {self.legend()})", *lines, *more])
