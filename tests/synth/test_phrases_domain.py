"""Domain closing-notes pools (``phrases.DOMAIN``): every template expands safely and to many surface forms."""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from itertools import product

import pytest

from hcrbench.synth import generate_meridian
from hcrbench.synth.checks.describe import SENTENCE_END, TextStats
from hcrbench.synth.checks.safety import unsafe
from hcrbench.synth.corpus import filler
from hcrbench.synth.corpus.filler import ALL_POOLS, EXTRAS
from hcrbench.synth.corpus.phrases import DOMAIN, DOMAIN_HEADINGS
from hcrbench.synth.corpus.text import options, variants, vary

# Pools drawn by most documents need the most surface forms (a medium corpus draws general and projects ~2,000+
# times, it / communications / people ~800-900 times, the rest a few hundred times or less).
MIN_VARIANTS = {"page": 1000, "projects": 1000, "it": 600, "announce": 600, "people": 600}
MIN_VARIANTS_OTHER = 300
MIN_TEMPLATES = {"page": 40, "projects": 40, "it": 25, "announce": 25, "people": 25}
MIN_TEMPLATES_OTHER = 15
ARTICLE = re.compile(r"(?i)\ban [b-df-gj-np-tv-z]|\ba (?!one)[aeio]")
_GROUP = re.compile(r"\[([^\[\]]*)\]")


def _segments(template: str) -> list[list[str]]:
    """The template as a sequence of choices: literal text is a one-option segment, a group its options."""
    out: list[list[str]] = []
    pos = 0
    for m in _GROUP.finditer(template):
        out += [[template[pos:m.start()]], m.group(1).split("|")]
        pos = m.end()
    return [*out, [template[pos:]]]


def test_every_pool_template_option_keeps_the_ground_truth_safe():
    every = [s for pool in ALL_POOLS.values() for s in pool]
    every += [h for hs in DOMAIN_HEADINGS.values() for h in hs]
    every += [h for sections in EXTRAS.values() for hs, *_ in sections for h in hs]
    for template in every:
        for piece in options(template):
            assert not unsafe(piece), (piece, unsafe(piece), template)


def test_domain_templates_make_no_unsafe_text_across_group_boundaries():
    # options() checks each piece alone; a synonym form or name could still be made by two neighbouring pieces
    # ("[annual|yearly] [leave|...]"), so every combination of three consecutive segments is checked too.
    for pool, templates in DOMAIN.items():
        for template in templates:
            segs = _segments(template)
            for i in range(len(segs) - 2):
                for combo in product(*segs[i:i + 3]):
                    text = re.sub(r"\s+", " ", "".join(combo))
                    assert not unsafe(text), (pool, text, unsafe(text))
                    assert not ARTICLE.search(text), (pool, text)  # "a"/"an" agrees with every next word


def test_domain_pools_have_many_templates_with_many_variants_each():
    assert set(DOMAIN) == set(DOMAIN_HEADINGS)
    assert len({t for ts in DOMAIN.values() for t in ts}) == sum(map(len, DOMAIN.values()))  # no repeats
    for pool, templates in DOMAIN.items():
        assert len(templates) >= MIN_TEMPLATES.get(pool, MIN_TEMPLATES_OTHER), pool
        floor = MIN_VARIANTS.get(pool, MIN_VARIANTS_OTHER)
        for template in templates:
            assert template.count("[") == template.count("]") == len(_GROUP.findall(template)), template
            assert "{" not in template, template  # a placeholder would skip the template in most documents
            assert variants(template) >= floor, (pool, variants(template), template)


@pytest.mark.parametrize("pool", sorted(DOMAIN))
def test_domain_template_expansions_read_as_one_sentence(pool):
    r = random.Random(pool)
    for template in DOMAIN[pool]:
        for _ in range(25):
            s = vary(r, template)
            assert s[0].isupper() and s.endswith(".") and "  " not in s, s
            assert len(SENTENCE_END.split(s)) == 1, s  # describe would count two sentences


@pytest.mark.slow
def test_closing_notes_rarely_repeat_across_documents(tmp_path, monkeypatch):
    drawn: dict[str, str] = {}
    take = filler.Prose.take

    def recording_take(self, pool, n):
        out = take(self, pool, n)
        if pool in DOMAIN:
            drawn.update(dict.fromkeys(out, pool))
        return out

    monkeypatch.setattr(filler.Prose, "take", recording_take)
    generate_meridian(tmp_path / "m", "small", seed=5, grow=True)
    stats = TextStats()
    from hcrbench.data import iter_jsonl

    for _, obj in iter_jsonl(tmp_path / "m" / "corpus.jsonl"):
        stats.add(obj["_id"], obj["text"], obj["metadata"]["doc_type"])
    mine = {s: k for s, k in stats.occurrences.items() if s in drawn}
    per_pool: dict[str, Counter[str]] = defaultdict(Counter)
    for s, k in mine.items():
        per_pool[drawn[s]][s] = k
    total = sum(mine.values())
    assert total > 1000 and {"page", "projects"} <= set(per_pool)
    assert len(mine) / total >= 0.9, len(mine) / total  # distinct-sentence ratio of the closing notes
    common = sum(k for s, k in mine.items() if stats.docs_of[s] == 10)
    assert common / total <= 0.01, common / total  # closing sentences found in 10+ documents
