"""Moved to :mod:`hcrbench.retrieve.maxsim` (shared by HCR's cascade and the reranker); names kept here."""

from hcrbench.retrieve.maxsim import (  # noqa: F401
    dot_error_bound,
    maxsim_exact,
    maxsim_exact_queries,
    maxsim_scores,
    one_thread_blas,
)
