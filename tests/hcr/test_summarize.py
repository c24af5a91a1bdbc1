"""The shared extractive summarizer: deterministic, under its token cap, the cluster's own terms first."""

from __future__ import annotations

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
