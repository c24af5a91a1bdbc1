"""Body text stays on topic: closing notes come only from the pools filler.CLOSING lists for the document's type
(no cross-topic fallback), and describe's share of text stating facts is measured from provenance spans."""

from __future__ import annotations

import pytest

from hcrbench.synth.checks.describe_world import fact_share
from hcrbench.synth.corpus import filler
from hcrbench.synth.corpus.filler import CLOSING
from hcrbench.synth.corpus.phrases import DOMAIN, DOMAIN_HEADINGS
from hcrbench.synth.corpus.render import render
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.schedule import iter_specs

REFERENCE_PAGES = {"policy", "project_charter", "system_overview", "profile", "team_page", "product_spec",
                   "eng_process"}


def test_every_closing_pool_is_keyed_and_used():
    used = {p for pools in CLOSING.values() for p in pools}
    assert used == set(DOMAIN) == set(DOMAIN_HEADINGS)
    for key, pools in CLOSING.items():
        if "page" in pools:  # general notes about a page only on reference pages, after their own topic
            assert key.split(":")[0] in REFERENCE_PAGES and pools[0] != "page", key


@pytest.fixture(scope="module")
def drawn() -> list[tuple[str, str | None, set[str]]]:
    """(doc_type, topic, closing pools drawn) for every document of a 900-document world (seed 6)."""
    seen: list[tuple[str, str | None, set[str]]] = []
    take = filler.Prose.take
    current: set[str] = set()

    def recording_take(self, pool, n):
        if pool in DOMAIN:
            current.add(pool)
        return take(self, pool, n)

    mp = pytest.MonkeyPatch()
    mp.setattr(filler.Prose, "take", recording_take)
    try:
        w = build_world(6, 900)
        for spec in iter_specs(w):
            current.clear()
            doc = render(w, spec)
            topic = f"policy:{doc.metadata['domain']}" if spec.doc_type == "policy" else None
            seen.append((spec.doc_type, topic, set(current)))
    finally:
        mp.undo()
    return seen


def test_documents_draw_closing_notes_of_their_own_topic_only(drawn):
    types = {t for t, _, _ in drawn}
    assert types <= {k.split(":")[0] for k in CLOSING}
    for doc_type, topic, pools in drawn:
        allowed = set(CLOSING.get(doc_type, ())) | (
            set(CLOSING[topic]) | set(CLOSING["policy:finance"]) if topic else set())
        assert pools <= allowed, (doc_type, pools)
    assert any("page" in p for _, _, p in drawn) and any("news" in p for _, _, p in drawn)


def test_office_life_and_newsletter_notes_appear_only_in_newsletters():
    w = build_world(2, 700)
    for spec in iter_specs(w):
        text = render(w, spec).text
        if spec.doc_type != "team_news":
            for word in ("Battery collection", "Lost property", "Fire drills", "this newsletter"):
                assert word not in text, (spec.doc_type, word)


def test_fact_share_is_the_union_of_statement_spans_over_all_text():
    docs = [{"_id": "a", "text": "0123456789"}, {"_id": "b", "text": "abcdefghij"}]
    assert fact_share(docs, [("a", 0, 5), ("a", 3, 8)]) == pytest.approx(8 / 20)
    assert fact_share(docs, [("a", 0, 10), ("b", 0, 10)]) == 1.0  # oracle: every character states a fact
    assert fact_share(docs, []) == 0.0
