"""Benchmark audit: lint any BEIR-format folder for label problems a reviewer would find (``hcrbench audit``).

A stage above ``metrics`` (it scores oracle runs) and below ``experiment``; see :mod:`hcrbench.audit.core`.
"""

from hcrbench.audit.checks import Check
from hcrbench.audit.core import audit, load_bench

__all__ = ["Check", "audit", "load_bench"]
