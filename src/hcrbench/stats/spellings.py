"""Names :func:`~hcrbench.stats.compare` accepts for its choices: hcrbench's own, statsmodels' correction names
(:mod:`hcrbench.stats.multiple`) and ranx's ``compare()`` spellings.

ranx's ``compare(qrels, runs, metrics, stat_test="student", n_permutations=1000, max_p=0.01, random_seed=42)``
maps onto ``compare(evaluation, pairs="all", test="t", n_resamples=1000, alpha=0.01, seed=42)``: ``stat_test`` is
``test``, ``"student"`` the paired t-test, ``"fisher"`` the paired randomization (permutation) test, ``"tukey"``
Tukey's HSD; ``max_p`` is the significance level ``alpha``; ``n_permutations`` is ``n_resamples``; ``random_seed``
is ``seed``. Both spellings of one setting with different values are refused.
"""

from __future__ import annotations

from typing import Any

from hcrbench.errors import InputError

#: Which p decides significance: test name -> Comparison field.
TESTS = {"permutation": "p", "t": "t_p", "wilcoxon": "p_wilcoxon", "tukey": "p_tukey"}
TEST_NAMES = {"permutation": "paired permutation test", "t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "tukey": "Tukey's HSD over every run on the metric"}
#: Other spellings of the tests (ranx's ``stat_test`` values, scipy's names) -> hcrbench's.
TEST_ALIASES = {"student": "t", "ttest": "t", "t-test": "t", "paired_t": "t", "fisher": "permutation",
                "randomization": "permutation", "perm": "permutation", "signed-rank": "wilcoxon",
                "tukey_hsd": "tukey", "hsd": "tukey"}
#: ranx's keyword -> hcrbench's keyword of compare().
RANX_KEYWORDS = {"stat_test": "test", "max_p": "alpha", "n_permutations": "n_resamples", "random_seed": "seed"}


def test_name(name: object, field: str = "test") -> str:
    """hcrbench's name of a test spelled its own way or ranx's (``student``, ``fisher``, ``tukey``)."""
    text = name.strip().lower() if isinstance(name, str) else None
    if text in TESTS:
        return text
    if text in TEST_ALIASES:
        return TEST_ALIASES[text]
    raise InputError(f"must be one of {', '.join(TESTS)} (or ranx's student, fisher, tukey), got {name!r}",
                     field=field)


def ranx_keywords(given: dict[str, Any], explicit: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``explicit`` (hcrbench's keywords as passed; None or ``defaults[key]`` when not) completed by ranx's
    spellings in ``given``; a keyword neither knows is a TypeError as Python's own, a setting given twice with
    different values an InputError."""
    out = dict(explicit)
    for key, value in given.items():
        ours = RANX_KEYWORDS.get(key)
        if ours is None:
            raise TypeError(f"compare() got an unexpected keyword argument {key!r}")
        if out.get(ours) not in (None, defaults.get(ours)) and out[ours] != value:
            raise InputError(f"{key}={value!r} (ranx's name) contradicts {ours}={out[ours]!r}", field=key)
        out[ours] = value
    return out
