"""A pytest plugin: the ``hcrbench_check`` fixture, so a retrieval team's own tests fail on a regression.

Installed as a ``pytest11`` entry point (loaded automatically wherever hcrbench is installed); without the
installed entry point, ``pytest -p hcrbench.testing`` or ``pytest_plugins = ["hcrbench.testing"]`` in a
conftest.py loads it. Usage::

    def test_no_regression(hcrbench_check):
        result = hcrbench_check("baseline.json", "config.toml")       # max_drop=0.02, metric="nDCG@10"
        assert result.passed, result.bottom_line

The callable is :func:`hcrbench.experiment.check.check` (same arguments: ``metric``, ``max_drop``, ``smoke``,
``reuse``, ``allow_dataset_change``); relative paths are taken from the test's working directory. Importing this
module loads nothing heavy, so having the plugin installed costs other test sessions nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def hcrbench_check() -> Callable[..., Any]:
    """``hcrbench_check(baseline, config=None, **options) -> CheckResult`` (``.passed``, ``.bottom_line``)."""
    from hcrbench.experiment.check import check

    return check
