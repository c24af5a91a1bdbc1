"""Simultaneous confidence intervals for a corrected family of comparisons.

A comparison's own interval (``ci_low``, ``ci_high``) is a *per-comparison* interval: it is never adjusted for
multiplicity, so it can exclude 0 beside an adjusted p above alpha. Where a correction is asked, each comparison
also carries a simultaneous interval (``sim_low``, ``sim_high``) at the Bonferroni-adjusted level
``1 - (1 - confidence) / m``, m its family's size, computed by the same interval method from the same resamples'
seed. Bonferroni's intervals cover all m differences at once with probability >= ``confidence`` under any
dependence, so they are the simultaneous intervals of every family-wise correction (bonferroni, holm,
holm-sidak, sidak, hommel). They are not the intervals of a step-down test: a difference Holm calls significant
can have a Bonferroni interval that touches 0 (Holm's p is at most Bonferroni's); with an FDR correction
(fdr_bh, fdr_by) they are stricter than the correction. Either way the label says which interval is which.
"""

from __future__ import annotations


def simultaneous_level(confidence: float, family_size: int) -> float:
    """Bonferroni's simultaneous level for a family of ``family_size`` intervals at ``confidence`` each."""
    return 1.0 - (1.0 - float(confidence)) / max(1, int(family_size))
