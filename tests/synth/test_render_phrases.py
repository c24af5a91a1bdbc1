"""The wording variants render code draws from (``synth.render_phrases.R``) keep the ground truth safe."""

from __future__ import annotations

import random
import string

from hcrbench.synth.checks.safety import unsafe
from hcrbench.synth.corpus.render_phrases import HEADINGS, R, tail
from hcrbench.synth.corpus.text import options, variants, vary


def test_render_phrase_options_name_no_synonym_identifier_or_entity():
    every = [t for ts in R.values() for t in ts]
    assert len(set(every)) == len(every)  # no template is repeated
    every += [h for k, hs in HEADINGS.items() for h in (k, *hs)]
    for t in every:
        for s in options(t):
            assert not unsafe(s), (t, s, unsafe(s))  # synonym form, identifier or unlisted entity


def test_every_render_phrase_expansion_fills_and_reads_cleanly():
    r = random.Random(7)
    for name, ts in R.items():
        for t in ts:
            need = {f for _, f, _, _ in string.Formatter().parse(t) if f}
            for _ in range(30):
                s = vary(r, t).format(**{k: "X" for k in need})
                assert "[" not in s and "]" not in s and "  " not in s and " ." not in s, (name, s)
    ends = {tail(random.Random(k), "profile.skill_tail") for k in range(50)}
    assert "" in ends and all(e == "" or (e[0] == " " and e[1] != " ") for e in ends)


def test_fact_sentence_templates_have_many_wordings():
    # sentences that recur across many documents need far more wordings than a handful of fixed strings
    for name in ("incident.severity", "incident.closer", "decision.consequence", "meeting.mood", "profile.contact"):
        assert sum(variants(t) for t in R[name]) >= 40, name
