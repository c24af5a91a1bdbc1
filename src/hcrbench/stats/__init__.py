"""Paired statistics for retrieval evaluation: is the difference between two runs real?

Plain functions on numpy arrays of per-query values — :func:`permutation_test` (sign flips, exact for small n),
:func:`paired_ttest`, :func:`wilcoxon_test` / :func:`wilcoxon_p`, :func:`bootstrap_ci` / :func:`paired_bootstrap_ci` (percentile), :func:`paired_ci`
(t / BCa, chosen by n), :func:`tost` (equivalence), :func:`aggregate_seeds`, :func:`holm`, :func:`benjamini_hochberg`,
:func:`cohens_d_paired`, power analysis (:func:`required_n`, :func:`minimum_detectable_effect`,
:func:`project_ci`) — and :func:`compare`, which applies them to every run of an evaluation against a baseline (or every pair:
:func:`tukey_hsd_pvalues`, :func:`significance_letters`).
Checked against scipy.stats and statsmodels; see docs/statistics.md.
"""

import importlib
from typing import TYPE_CHECKING

from hcrbench.stats.bootstrap import ConfidenceInterval, bootstrap_ci, mean_ci, paired_bootstrap_ci, paired_ci
from hcrbench.stats.compare import FAMILIES, Comparison, compare, evaluation_json
from hcrbench.stats.effect import cohens_d_paired
from hcrbench.stats.letters import significance_letters
from hcrbench.stats.multiple import adjust, benjamini_hochberg, holm
from hcrbench.stats.permutation import TestResult, permutation_test
from hcrbench.stats.seeds import SeedAggregate, aggregate_seeds
from hcrbench.stats.ttest import TTestResult, paired_ttest
from hcrbench.stats.tukey import tukey_hsd_pvalues
from hcrbench.stats.wilcoxon import WilcoxonResult, wilcoxon_p, wilcoxon_test

if TYPE_CHECKING:
    from hcrbench.stats.equivalence import EquivalenceResult, tost, tost_from_summary
    from hcrbench.stats.power import (
        ProjectedCI,
        format_n,
        minimum_detectable_effect,
        paired_power,
        project_ci,
        required_n,
        required_n_or_inf,
    )

#: Names of the modules that import scipy.stats when loaded, resolved on first use (PEP 562): `hcrbench evaluate`
#: of one run then starts without scipy.stats (about a second and ~65 MB). The other modules import scipy where a
#: function needs it.
_LAZY = {
    "EquivalenceResult": "equivalence", "tost": "equivalence", "tost_from_summary": "equivalence",
    "ProjectedCI": "power", "format_n": "power", "minimum_detectable_effect": "power", "paired_power": "power",
    "project_ci": "power", "required_n": "power", "required_n_or_inf": "power",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(f"hcrbench.stats.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    try:  # a submodule asked for as an attribute (hcrbench.stats.cluster) before anything imported it
        return importlib.import_module(f"hcrbench.stats.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"hcrbench.stats.{name}":
            raise
    raise AttributeError(f"module 'hcrbench.stats' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "FAMILIES",
    "Comparison",
    "ConfidenceInterval",
    "EquivalenceResult",
    "ProjectedCI",
    "SeedAggregate",
    "TTestResult",
    "TestResult",
    "WilcoxonResult",
    "adjust",
    "aggregate_seeds",
    "benjamini_hochberg",
    "bootstrap_ci",
    "cohens_d_paired",
    "compare",
    "evaluation_json",
    "format_n",
    "holm",
    "mean_ci",
    "minimum_detectable_effect",
    "paired_bootstrap_ci",
    "paired_ci",
    "paired_power",
    "paired_ttest",
    "permutation_test",
    "project_ci",
    "required_n",
    "required_n_or_inf",
    "significance_letters",
    "tost",
    "tost_from_summary",
    "tukey_hsd_pvalues",
    "wilcoxon_p",
    "wilcoxon_test",
]
