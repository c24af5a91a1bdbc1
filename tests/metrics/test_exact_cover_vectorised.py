"""The vectorised exact cover (hcrbench.metrics.sufficiency._exact_cover) picks exactly what the one-state-at-a-time
shortest-path loop it replaced picked: the same cost, the same back pointers (ties included), the same end state,
so every cover, oracle context and feasibility figure stays byte-identical."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

import hcrbench.metrics.sufficiency as suf
from hcrbench.context import Candidate
from hcrbench.data.evidence import EvidenceSpan, QueryEvidence
from hcrbench.metrics.sufficiency import _exact_cover, cheapest_cover


def _exact_cover_loop(items, n_facts, limit):
    """The loop as it was before vectorising (hcrbench 0.x, metrics/sufficiency.py, cheapest_cover's exact arm)."""
    full = (1 << n_facts) - 1
    inf = float("inf")
    cost = [inf] * (full + 1)
    back = [None] * (full + 1)
    cost[0] = 0
    for j, (m, t, _k) in enumerate(items):
        for s in range(full + 1):
            c = cost[s] + t
            if c < cost[s | m] and c <= limit:
                cost[s | m] = c
                back[s | m] = (s, j)
    reach = [s for s in range(full + 1) if cost[s] < inf]
    mask = max(reach, key=lambda s: (bin(s).count("1"), -cost[s], -s))
    keys = []
    s = mask
    while back[s] is not None:
        prev, j = back[s]
        keys.append(items[j][2])
        s = prev
    return keys


@st.composite
def _items(draw):
    n_facts = draw(st.integers(1, 7))
    full = (1 << n_facts) - 1
    n = draw(st.integers(0, 14))
    # few token values, so that ties between paths are common (the tie-breaking is what could differ)
    items = [(draw(st.integers(1, full)), draw(st.integers(0, 6)), (j,)) for j in range(n)]
    limit = draw(st.one_of(st.just(float("inf")), st.integers(0, 20)))
    return items, n_facts, limit


@settings(max_examples=400, deadline=None)
@given(_items())
def test_exact_cover_equals_the_loop_it_replaced(case):
    items, n_facts, limit = case
    assert _exact_cover(items, n_facts, limit) == _exact_cover_loop(items, n_facts, limit)


def test_exact_cover_with_every_tie_equals_the_loop():
    # every item costs the same: the first path found (smallest source state) must win, as in the loop
    n_facts = 4
    items = [(m, 3, (j,)) for j, m in enumerate(list(range(1, 16)) * 2)]
    for limit in (float("inf"), 3, 6, 9):
        assert _exact_cover(items, n_facts, limit) == _exact_cover_loop(items, n_facts, limit)


TEXT = " ".join(f"w{i:03d}" for i in range(40))  # forty 4-character words, 5 characters apart


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(1, 39), min_size=3, max_size=14, unique=True).map(sorted),
       tok=st.lists(st.integers(1, 9), min_size=15, max_size=15),
       facts=st.lists(st.lists(st.tuples(st.integers(0, 39), st.integers(1, 3)), min_size=1, max_size=2),
                      min_size=1, max_size=9),
       budget=st.one_of(st.none(), st.integers(0, 60)))
def test_cheapest_cover_with_many_facts_matches_the_loop(cuts, tok, facts, budget):
    bounds = [0, *cuts, 40]
    units = [Candidate(f"x#c{i}", "x", 5 * a, 5 * b - 1, TEXT[5 * a:5 * b - 1], tok[i], 0.0, i)
             for i, (a, b) in enumerate(itertools.pairwise(bounds))]
    spans = [EvidenceSpan("x", 5 * w, 5 * min(w + n, 40) - 1, "", f"F{f}")
             for f, alts in enumerate(facts) for w, n in alts]
    ev = QueryEvidence("q", [f"F{f}" for f in range(len(facts))], spans, spans)
    got = cheapest_cover(ev, units, {"x": list(range(len(units)))}, budget, {"x": TEXT})
    # the same cover with the exact arm replaced by the old loop
    saved = suf._exact_cover
    try:
        suf._exact_cover = _exact_cover_loop
        want = cheapest_cover(ev, units, {"x": list(range(len(units)))}, budget, {"x": TEXT})
    finally:
        suf._exact_cover = saved
    assert got == want
