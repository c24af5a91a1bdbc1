"""Significance letters: ranx's superscripts for a table of means compared all-pairs.

Systems get letters a, b, c, ... in table order; a system's mean carries the letter of every system it beats
significantly (its mean is higher and the chosen p-value is at most ``alpha``), e.g. ``0.4078ᵃᵇᶜ``. ranx marks
``p <= max_p``; so does this. Which p decides is a choice stated beside the table: Holm-adjusted permutation p
(``p_holm``, the default), the raw permutation p (``p``), the paired t-test p (``t_p``: ranx's ``student``) or
Tukey's HSD (``p_tukey``: ranx's ``tukey``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hcrbench.errors import InputError

LETTERS = "abcdefghijklmnopqrstuvwxyz"
SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"  # ranx's own table (its q is an Arabic-Indic nine)
P_FIELDS = ("p_holm", "p", "t_p", "p_tukey", "p_wilcoxon", "p_adj")  # p_adj: compare(test=, correction=)


def letter(i: int) -> str:
    """The plain letter of the i-th system (a, b, ..., z, then a1, b1, ...)."""
    return LETTERS[i % 26] + (str(i // 26) if i >= 26 else "")


def significance_letters(comparisons: Sequence[Any], names: Sequence[str], *, alpha: float = 0.05,
                         p: str = "p_holm", superscript: bool = True) -> dict[tuple[str, str], str]:
    """``{(system, metric): letters}`` of the systems each one significantly beats, in ``names`` order.

    ``comparisons`` are all-pairs :class:`~hcrbench.stats.compare.Comparison` rows (either orientation); a pair
    missing from them, or with a NaN p, marks nothing.
    """
    if p not in P_FIELDS:
        raise InputError(f"must be one of {', '.join(P_FIELDS)}; got {p!r}", field="p")
    names = list(names)
    index = {n: i for i, n in enumerate(names)}
    marks: dict[tuple[str, str], set[int]] = {}
    metrics: list[str] = []
    for c in comparisons:
        if c.metric not in metrics:
            metrics.append(c.metric)
        pv = getattr(c, p)
        if pv is None or math.isnan(pv) or pv > alpha or c.run not in index or c.baseline not in index:
            continue
        if c.mean_run > c.mean_baseline:
            marks.setdefault((c.run, c.metric), set()).add(index[c.baseline])
        elif c.mean_baseline > c.mean_run:
            marks.setdefault((c.baseline, c.metric), set()).add(index[c.run])
    out: dict[tuple[str, str], str] = {}
    for n in names:
        for m in metrics:
            idx = sorted(marks.get((n, m), ()))
            if superscript and all(i < 26 for i in idx):
                out[(n, m)] = "".join(SUPERSCRIPTS[i] for i in idx)
            else:
                out[(n, m)] = "".join(letter(i) for i in idx)
    return out
