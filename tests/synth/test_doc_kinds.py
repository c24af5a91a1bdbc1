"""Document kinds (synth/corpus/doc_kinds.py): every kind is planned at every design size, each states its type's facts
exactly where provenance says, and noise (typos, footers) never touches a fact statement."""

from __future__ import annotations

import random
import re
from collections import Counter
from types import SimpleNamespace

import pytest

from hcrbench.synth.corpus import noise
from hcrbench.synth.corpus.doc_kinds import KINDS, NEW_KINDS, doc_kind
from hcrbench.synth.corpus.render import render
from hcrbench.synth.corpus.render_guides import render_spec
from hcrbench.synth.generate import SIZES, doc_statements
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.facts import check_statement
from hcrbench.synth.world_model.schedule import iter_specs

SEED = 29  # named by no doc and no other test


def _kinds(seed: int, n: int) -> Counter[str]:
    w = build_world(seed, n)
    return Counter(doc_kind(w, s) for s in iter_specs(w))


@pytest.mark.parametrize("size", ["small", "medium", "full"])
def test_every_document_kind_is_planned_at_each_design_size(size):
    got = _kinds(SEED, SIZES[size])
    assert sum(got.values()) == SIZES[size]  # the design's document counts stay
    assert set(NEW_KINDS) <= set(got) <= set(KINDS), got
    assert got["page"] > sum(got[k] for k in NEW_KINDS)  # reference pages stay the bulk of the intranet


@pytest.fixture(scope="module")
def rendered():
    w = build_world(SEED, SIZES["small"])
    specs = list(iter_specs(w))
    return w, [(s, render(w, s)) for s in specs]


def test_every_kind_states_its_facts_where_provenance_says(rendered):
    w, docs = rendered
    stated: Counter[str] = Counter()
    for s, d in docs:
        header = d.text.split("\n", 1)[0]
        for st in doc_statements(w, s, d):
            assert d.text[st.start:st.end] == st.text
            assert check_statement(w, st, header) is None, (d.doc_id, st.fact_id)
            stated[d.metadata["kind"]] += 1
    assert set(stated) == set(KINDS)  # every kind states world facts, labelled like the pages


def _of(docs, kind):
    return [(s, d) for s, d in docs if d.metadata["kind"] == kind]


def test_threads_are_short_messages_from_the_documents_own_people(rendered):
    w, docs = rendered
    names = {p.name for p in w.people}
    for kind in ("chat_thread", "mail_thread"):
        for s, d in _of(docs, kind):
            words = len(d.text.split())
            assert 40 <= words <= 260, (d.doc_id, words)
            own = {w.get(e).name for e in s.entities if e in {p.id for p in w.people}}
            if kind == "mail_thread":
                senders = {x.strip() for x in re.findall(r"^(?:From: |Reply from )([^|,:\n]+)", d.text, re.M)}
                assert len(senders) >= 1 and senders <= own, (d.doc_id, senders)
            named = {n for n in names if n in d.text}
            assert named <= own, (d.doc_id, named - own)  # a judged negative never gains a person
    chats = _of(docs, "chat_thread")
    assert all(re.search(r"^\[\d\d:\d\d\] \S", d.text, re.M) for _, d in chats)
    mails = _of(docs, "mail_thread")
    assert all(d.text.startswith("Subject: ") and "\n> " in d.text for _, d in mails)  # replies quote


def test_minutes_name_their_meeting_id_date_and_attendees(rendered):
    w, docs = rendered
    minutes = _of(docs, "minutes")
    assert minutes
    for s, d in minutes:
        m = w.meetings[s.ref["meeting"]]
        first = d.text.split("\n", 1)[0]
        assert m["id"] in first and d.title.endswith(m["date"]) and "| Owner | Action | Due |" in d.text
        assert all(w.get(a).name in d.text for a in m["attendees"])


def test_specs_are_long_with_tables_and_howtos_number_their_steps(rendered):
    _, docs = rendered
    specs = _of(docs, "spec")
    assert specs and all(len(d.text.split()) >= 1500 and d.text.count("\n|---") >= 5 for _, d in specs)
    lengths = [len(d.text.split()) for _, d in docs]
    assert min(lengths) < 150 < 1500 < max(lengths)  # from a few lines to thousands of words
    howtos = _of(docs, "howto")
    assert howtos and all(re.search(r"^1\. .+\n2\. .+\n3\. ", d.text, re.M) for _, d in howtos)


def test_stale_copies_are_marked_older_policy_versions(rendered):
    _, docs = rendered
    stale = _of(docs, "stale_copy")
    assert stale
    titles = Counter(d.title for _, d in docs)
    for s, d in stale:
        assert s.doc_type == "policy" and s.ref["version"] < 2 and "superseded copy" in d.title
        assert "newer version" in d.text and titles[d.title] == 1
        assert "quarter" not in d.metadata  # not a quarterly snapshot


def test_typos_keep_the_length_and_never_touch_a_span():
    text = "Title line stays\nA sentence with several lengthy words. Keyed sentence remains intact here.\n"
    key = (text.index("Keyed"), len(text) - 1)
    changed = 0
    for index in range(200):
        out = noise.add_typos(text, [key], 5, index)
        assert len(out) == len(text) and out[key[0]:key[1]] == text[key[0]:key[1]]
        assert out.split("\n", 1)[0] == "Title line stays"
        changed += out != text
    assert 0.05 * 200 <= changed <= 0.2 * 200  # now and then, as TYPO_SHARE says


def test_some_documents_carry_noise(rendered, monkeypatch):
    w, docs = rendered
    monkeypatch.setattr(noise, "TYPO_SHARE", 0.0)
    monkeypatch.setattr(noise, "FOOTER_SHARE", 0.0)
    sample = docs[:200]
    clean = {d.doc_id: render(w, s).text for s, d in sample}
    footers = [d for _, d in sample if len(d.text) > len(clean[d.doc_id])]
    typos = [d for _, d in sample if len(d.text) == len(clean[d.doc_id]) and d.text != clean[d.doc_id]]
    assert len(footers) >= 8 and len(typos) >= 8, (len(footers), len(typos))
    assert all(d.metadata.get("cluster") is None for d in footers + typos)  # near-duplicates keep their wording


_END = re.compile(r"(?<=[.!?])\s+")


def test_no_sentence_repeats_within_a_document_of_a_new_kind(rendered):
    w, docs = rendered
    texts = [d.text for _, d in docs if d.metadata["kind"] != "page"]
    for sy in w.systems:  # every system's specification, not only those this world writes as one
        texts.append(render_spec(w, SimpleNamespace(ref={"system": sy.id}), random.Random(sy.id))[1].text())
    for text in texts:
        # a reply's quote ("> ...") repeats what it answers on purpose; nothing else may repeat
        lines = [x.strip().removeprefix("- ").removeprefix("## ") for x in text.splitlines()]
        counts = Counter(s for x in lines for s in _END.split(x) if len(s) > 30)
        assert not [s for s, k in counts.items() if k > 1], text[:80]
