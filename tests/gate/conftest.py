"""Fixtures of the gate tests (helpers live in gate_bench.py)."""

from __future__ import annotations

import pytest
from gate_bench import make_bench

from hcrbench.data import Qrels


@pytest.fixture(scope="module")
def bench():
    qrels, pool = make_bench()
    return Qrels.from_dict(qrels), qrels, pool
