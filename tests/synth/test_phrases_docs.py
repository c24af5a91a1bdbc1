"""The document-type section pools (``phrases_docs.POOLS``): enough surface forms per template, and every option of
every template keeps the ground truth safe (no synonym forms, identifiers or entity names)."""

from __future__ import annotations

import random
import re
import string

from hcrbench.synth.checks.describe import SENTENCE_END
from hcrbench.synth.checks.safety import unsafe
from hcrbench.synth.corpus.phrases_sections import POOLS
from hcrbench.synth.corpus.text import options, variants, vary

MIN_VARIANTS = 64  # a template used by ~40 documents then rarely gives the same sentence twice
# Placeholders a pool may use: the context its renderer fills (policy {word}, profile {first}, meeting points).
ALLOWED = {"policy": {"word"}, "profile": {"first"}, "meeting.discussion": {"a", "b", "code", "goal"}}
# The pools used hundreds of times on a medium corpus need many templates, not just many groups.
HEAVY = ["incident.lessons", "incident.impact", "incident.comms", "update.notes", "decision.risks",
         "decision.rationale", "meeting.questions"]


# "a" before a vowel or "an" before a consonant (an expansion glued an article to the wrong option).
_ARTICLE = re.compile(r"\b(?:a [aeiou]\w*|an [^aeiouh\W]\w*)", re.I)
_ARTICLE_OK = ("a u", "a one", "an hour")


def _fields(t: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(t) if f}


def test_every_pool_template_has_enough_variants():
    thin = [(k, variants(t), t[:60]) for k, ts in POOLS.items() for t in ts if variants(t) < MIN_VARIANTS]
    assert not thin, thin
    for k in HEAVY:
        assert len(POOLS[k]) >= 15, (k, len(POOLS[k]))


def test_no_pool_template_is_repeated():
    every = [t for ts in POOLS.values() for t in ts]
    assert len(set(every)) == len(every)


def test_every_option_of_every_pool_template_keeps_the_ground_truth_safe():
    for k, ts in POOLS.items():
        for t in ts:
            for s in [t, *options(t)]:
                assert not unsafe(s), (k, s, unsafe(s))  # synonym form, identifier or unlisted entity
                assert not SENTENCE_END.search(s.strip()), (k, s)  # one template = one counted sentence


def test_pool_templates_use_only_the_placeholders_their_renderer_fills():
    for k, ts in POOLS.items():
        allowed = ALLOWED.get(k, ALLOWED.get(k.split(".")[0], set()))
        for t in ts:
            assert _fields(t) <= allowed, (k, t)


def test_pool_template_expansions_are_clean_sentences():
    r = random.Random(0)
    ctx = {"word": "policy", "first": "Sam", "a": "Sam", "b": "Lee", "code": "the project", "goal": "ship it"}
    for k, ts in POOLS.items():
        for t in ts:
            for _ in range(20):
                s = vary(r, t).format_map(ctx)
                assert not re.search(r"[\[\]|]|  | [,.;:?]|,,|\.\.", s), (k, s)
                assert s[0].isupper() and s[-1] in ".?", (k, s)
                assert not [w for w in _ARTICLE.findall(s) if not w.lower().startswith(_ARTICLE_OK)], (k, s)
