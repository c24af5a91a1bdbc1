"""The sentence that defines every mark an exported table carries (``†``, ranx's superscript letters), so a table
pasted into a paper names its test, threshold, correction and family, and its baseline, as ranx's LaTeX does.

Duck-typed on the comparisons (this stage does not import ``hcrbench.stats``): each has ``baseline``, ``family``,
``family_size`` and, from ``compare(test=, correction=)``, ``legend(alpha)``.
"""

from __future__ import annotations

from typing import Any

_LETTER_P = {"p_holm": "Holm-adjusted paired permutation test p", "p": "paired permutation test p, not adjusted",
             "t_p": "paired t-test p, not adjusted", "p_tukey": "Tukey's HSD p over all runs",
             "p_wilcoxon": "Wilcoxon signed-rank p, not adjusted"}  # fmt: skip


def _adjusted(first: Any) -> str:
    """``p_adj`` in words: the chosen test's p after the chosen correction."""
    return first.legend(1.0).rsplit(", p <", 1)[0] + " p" if hasattr(first, "legend") else "adjusted p"


def dagger_legend(comparisons: Any, alpha: float, mark: str = "†") -> str:
    """What ``†`` means: different from the baseline's mean by the comparisons' test and correction."""
    first = comparisons[0]
    bases = sorted({c.baseline for c in comparisons})
    base = f"the baseline {bases[0]!r}" if len(bases) == 1 else "its baseline"
    how = first.legend(alpha) if hasattr(first, "legend") else (
        f"paired permutation test, two-sided, Holm-adjusted over a family of {first.family_size} "
        f"(family '{first.family}'), p < {alpha:g}")
    return f"{mark} the mean differs significantly from the mean of {base} ({how})."


def letters_legend(comparisons: Any, alpha: float, letters_by: str) -> str:
    """What the superscript letters mean (ranx's convention), with the p that decides them."""
    first = comparisons[0]
    what = _adjusted(first) if letters_by == "p_adj" else _LETTER_P.get(letters_by, letters_by)
    if letters_by == "p_holm":
        what += f" over a family of {first.family_size} (family '{first.family}')"
    return (f"Superscripts: the letters (column #) of the runs whose mean this one is significantly above "
            f"({what} <= {alpha:g}; every pair of runs compared, two-sided).")
