"""Token-budgeted context selection: greedy truncation, MMR, and AdaGReS-style submodular selection.

Every method picks whole chunks (never a split sentence) from a ranked candidate list so that the sum of the
chosen chunks' token counts (one counter, named in :attr:`Selection.token_counter`) is at most the budget ``B``;
``budget=None`` means unconstrained (every candidate). The selected chunks are returned in selection order.

- :func:`greedy` — the fair baseline: walk the ranking, add each chunk that fits, skip one that does not and keep
  going (RAPTOR's paper); ``stop_at_overflow=True`` stops at the first chunk that does not fit (RAPTOR's code).
  Only the stop variant yields nested contexts as ``B`` grows (a prefix of the ranking); the skip variant can
  drop a small chunk at a larger budget because a bigger one now fits before it.
- :func:`mmr` — maximal marginal relevance: ``lam * sim(q, c) - (1 - lam) * max_{s in S} sim(c, s)``, best
  first among the chunks that still fit.
- :func:`submodular` — maximise ``alpha * sum sim(q, c) - beta * sum_{i<j} sim(c_i, c_j)`` under the knapsack
  constraint, greedily by marginal gain per token (or by marginal gain, ``per_token=False``), stopping when no
  fitting chunk has a positive gain. See :func:`adaptive_beta` for the per-query rule that sets ``beta``.

What ``sim(q, c)`` and ``sim(c_i, c_j)`` are is the caller's: the context step hands the ranking's own signals
(:func:`hcrbench.context.similarity.ranking_signals`: rank gain, delivered overlap; ``beta = alpha``, by marginal
gain) unless the experiment asks for TF-IDF's (docs/context.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.context.candidates import Candidate
from hcrbench.errors import InputError

METHODS = ("greedy", "mmr", "submodular")


@dataclass
class Selection:
    """The chunks chosen for one query under one budget, and what they cost in tokens."""

    query_id: str
    budget: int | None
    method: str
    chunks: list[Candidate]
    token_counter: str
    n_candidates: int
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n_tokens(self) -> int:
        return sum(c.n_tokens for c in self.chunks)

    @property
    def chunk_ids(self) -> list[str]:
        return [c.chunk_id for c in self.chunks]

    def text(self, sep: str = "\n\n") -> str:
        """The context as a reader gets it, in *reading order*: documents in the order their first chunk was
        selected, a document's chunks in text order (so a sentence cut between two chunks reads whole). Units
        that are no span of a document (summaries) stay where they were selected."""
        return sep.join(self.pieces())

    def pieces(self) -> list[str]:
        """The texts of :meth:`text`, one per unit in reading order (``text()`` joins them)."""
        first: dict[str, int] = {}
        for i, c in enumerate(self.chunks):
            first.setdefault(c.doc_id or f"\0{i}", i)
        order = sorted(range(len(self.chunks)), key=lambda i: (
            first[self.chunks[i].doc_id or f"\0{i}"], self.chunks[i].start, i))
        return [self.chunks[i].text for i in order]

    def to_dict(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "budget": self.budget, "method": self.method,
                "chunks": self.chunk_ids, "n_tokens": self.n_tokens, "token_counter": self.token_counter,
                "n_candidates": self.n_candidates}


def _check_budget(budget: int | None) -> None:
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, np.integer))
                               or budget < 0):
        raise InputError(f"must be a non-negative integer or None, got {budget!r}", field="budget")


def greedy(cands: Sequence[Candidate], budget: int | None, *, stop_at_overflow: bool = False) -> list[Candidate]:
    """Chunks in rank order while they fit; a chunk that does not fit is skipped (or ends the walk)."""
    _check_budget(budget)
    if budget is None:
        return list(cands)
    out: list[Candidate] = []
    used = 0
    for c in cands:
        if used + c.n_tokens <= budget:
            out.append(c)
            used += c.n_tokens
        elif stop_at_overflow:
            break
    return out


def greedy_positions(tokens: Sequence[int] | np.ndarray, budget: int | None, *,
                     stop_at_overflow: bool = False) -> list[int]:
    """:func:`greedy` on bare token counts (in rank order): the indices of the chunks kept."""
    _check_budget(budget)
    counts = tokens.tolist() if isinstance(tokens, np.ndarray) else list(tokens)
    if budget is None:
        return list(range(len(counts)))
    out: list[int] = []
    used = 0
    for i, t in enumerate(counts):
        if used + t <= budget:
            out.append(i)
            used += t
        elif stop_at_overflow:
            break
    return out


def mmr(cands: Sequence[Candidate], budget: int | None, sim_q: np.ndarray, sim_cc: np.ndarray, *,
        lam: float = 0.5) -> list[Candidate]:
    """Maximal marginal relevance under the budget (ties go to the better-ranked chunk)."""
    _check_budget(budget)
    if not 0.0 <= lam <= 1.0:
        raise InputError(f"must be in [0, 1], got {lam!r}", field="mmr_lambda")
    n = len(cands)
    tokens = np.array([c.n_tokens for c in cands], dtype=np.int64)
    left = np.inf if budget is None else float(budget)
    alive = tokens <= left
    redundancy = np.zeros(n)
    out: list[Candidate] = []
    while alive.any():
        score = np.where(alive, lam * sim_q - (1.0 - lam) * redundancy, -np.inf)
        i = int(np.argmax(score))  # first maximum: the better-ranked chunk wins ties
        out.append(cands[i])
        left -= tokens[i]
        alive[i] = False
        alive &= tokens <= left
        redundancy = np.maximum(redundancy, sim_cc[i])
    return out


def adaptive_beta(sim_q: np.ndarray, sim_cc: np.ndarray, tokens: np.ndarray, budget: int | None,
                  alpha: float = 1.0) -> float:
    """The redundancy weight for :func:`submodular`, set per query from the pool and the budget.

    Rule: with ``k`` = the number of average-sized candidates the budget holds (``B / mean tokens``, the pool size
    when unconstrained), an average candidate's marginal gain after ``m`` picks is
    ``alpha * mean sim(q, c) - beta * m * mean sim(c_i, c_j)``; ``beta`` is chosen so that this reaches zero at
    ``m = k - 1``, i.e. exactly when the budget is full. A redundant pool (high mean pairwise similarity) thus gets
    a proportionally smaller ``beta``, a diverse one a larger ``beta`` — in both cases redundancy starts to stop the
    selection about where the budget would, so selection is neither pure relevance nor pure diversity.
    """
    n = len(tokens)
    if n < 2:
        return 0.0
    mean_tokens = max(float(np.mean(tokens)), 1.0)
    k = n if budget is None else min(n, max(1.0, budget / mean_tokens))
    off = sim_cc[~np.eye(n, dtype=bool)]
    mean_pair = float(off.mean()) if off.size else 0.0
    mean_q = float(np.mean(sim_q))
    if mean_pair <= 0.0 or mean_q <= 0.0:
        return 0.0
    return alpha * mean_q / (mean_pair * max(k - 1.0, 1.0))


def submodular(cands: Sequence[Candidate], budget: int | None, sim_q: np.ndarray, sim_cc: np.ndarray, *,
               alpha: float = 1.0, beta: float | None = None, per_token: bool = True) -> list[Candidate]:
    """Greedy knapsack maximisation of relevance minus pairwise redundancy, by marginal gain per token (or by
    marginal gain among the chunks that fit: ``per_token=False``, where a short chunk far down the ranking must
    not go before the ranking's first)."""
    _check_budget(budget)
    n = len(cands)
    tokens = np.array([c.n_tokens for c in cands], dtype=np.int64)
    if beta is None:
        beta = adaptive_beta(sim_q, sim_cc, tokens, budget, alpha)
    left = np.inf if budget is None else float(budget)
    alive = tokens <= left
    penalty = np.zeros(n)
    cost = np.maximum(tokens, 1).astype(np.float64) if per_token else np.ones(n)
    out: list[Candidate] = []
    while alive.any():
        gain = alpha * sim_q - beta * penalty
        ratio = np.where(alive & (gain > 0), gain / cost, -np.inf)
        i = int(np.argmax(ratio))
        if not np.isfinite(ratio[i]):
            break
        out.append(cands[i])
        left -= tokens[i]
        alive[i] = False
        alive &= tokens <= left
        penalty += sim_cc[i]
    return out


def select(query_id: str, cands: Sequence[Candidate], budget: int | None, method: str = "greedy", *,
           token_counter: str, sims: tuple[np.ndarray, np.ndarray] | None = None, stop_at_overflow: bool = False,
           mmr_lambda: float = 0.5, alpha: float = 1.0, beta: float | None = None,
           per_token: bool = True) -> Selection:
    """One query's context under ``budget`` by ``method`` (``sims`` = ``(sim_q, sim_cc)`` for mmr/submodular;
    ``per_token``: submodular's gain per token, else its marginal gain)."""
    if method == "greedy":
        chosen = greedy(cands, budget, stop_at_overflow=stop_at_overflow)
        params: dict[str, Any] = {"stop_at_overflow": stop_at_overflow}
    elif method in ("mmr", "submodular"):
        if sims is None:
            raise InputError(f"{method} needs similarities", field="selection")
        if method == "mmr":
            chosen = mmr(cands, budget, sims[0], sims[1], lam=mmr_lambda)
            params = {"lambda": mmr_lambda}
        else:
            chosen = submodular(cands, budget, sims[0], sims[1], alpha=alpha, beta=beta, per_token=per_token)
            params = {"alpha": alpha, "beta": "adaptive" if beta is None else beta, "per_token": per_token}
    else:
        raise InputError(f"unknown selection {method!r} (expected one of: {', '.join(METHODS)})",
                         field="selection")
    return Selection(query_id, budget, method, list(chosen), token_counter, len(cands), params)
