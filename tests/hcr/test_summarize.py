"""The shared extractive summarizer: deterministic, under its token cap, the cluster's own terms first."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data.tokens import default_counter
from hcrbench.retrieve.summarize import ExtractiveSummarizer, ctfidf

GROUPS = [
    ["The galaxy nebula was seen by the telescope. A comet crossed the orbit.", "Quasar light and stellar dust."],
    ["Mix flour and butter. Simmer the garlic sauce.", "The pastry goes in the oven for the recipe."],
]


def test_salient_terms_are_the_clusters_own():
    s = ExtractiveSummarizer(n_terms=4)
    a, b = s.summarize_many(GROUPS, 64)
    head_a, head_b = a.split(".")[0].split(", "), b.split(".")[0].split(", ")
    assert set(head_a) <= {"galaxy", "nebula", "telescope", "comet", "crossed", "orbit", "quasar", "light",
                           "stellar", "dust", "seen"}
    assert set(head_b) <= {"mix", "flour", "butter", "simmer", "garlic", "sauce", "pastry", "goes", "oven",
                           "recipe"}
    assert s.summarize_many(GROUPS, 64) == [a, b]


def test_ctfidf_shared_words_weigh_less():
    w = ctfidf([["alpha beta"], ["alpha gamma"]])
    assert w[0]["beta"] > w[0]["alpha"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="abcdefgh .", min_size=0, max_size=80), min_size=1, max_size=4),
                min_size=1, max_size=3), st.integers(min_value=16, max_value=80))
def test_token_cap_holds(groups, cap):
    counter = default_counter()
    s = ExtractiveSummarizer(n_terms=3, counter=counter)
    out = s.summarize_many(groups, cap)
    assert len(out) == len(groups)
    for text in out:
        head = text.split(". ", 1)[0]
        body = text.split(". ", 1)[1] if ". " in text else ""
        assert counter.count(body) <= max(cap - counter.count(head) - 1, 0) + 1


def test_summaries_do_not_depend_on_the_process_hash_seed():
    """Sentence scores sum a set's term weights; set order changes with PYTHONHASHSEED, and a float sum in that
    order made two equally good sentences swap between processes (a cold and a warm run's trees disagreed)."""
    import subprocess
    import sys

    script = (
        "from hcrbench.retrieve.summarize import ExtractiveSummarizer\n"
        "w = {'alpha': 0.1, 'beta': 0.2, 'gamma': 0.3, 'delta': 0.3, 'epsilon': 0.2, 'zeta': 0.1}\n"
        "s = ExtractiveSummarizer(n_terms=1)\n"
        "print(s._one(['Alpha beta gamma.', 'Zeta epsilon delta.'], w, 8))\n"
    )
    outs = {subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": str(h)}).stdout for h in range(8)}
    assert len(outs) == 1, outs
