"""Chunking: coverage, token bounds, bounded overlap, exact offsets, headings, chunk -> document runs."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data import Corpus, Run
from hcrbench.data.chunking import (
    chunk_corpus,
    chunk_text,
    doc_run_from_chunk_run,
    split_sections,
    split_sentences,
)
from hcrbench.data.tokens import get_counter
from hcrbench.errors import InputError

CL100K = get_counter("cl100k")
REGEX = get_counter("regex-approx")

WORDS = ["the", "key", "Dr.", "e.g.", "rotation", "3.5%", "U.S.", "signing", "outage", "naïve", "日本語",
         "🎉", "supercalifragilisticexpialidocious", "a" * 40, "x"]
ENDS = [". ", "! ", "? ", ".\n", "\n\n", ", ", " ", "  ", ":\n", "\n# Heading\n", "\nRISKS\n"]


@st.composite
def texts(draw):
    n = draw(st.integers(0, 60))
    parts = [draw(st.sampled_from(WORDS)) + draw(st.sampled_from(ENDS)) for _ in range(n)]
    return draw(st.sampled_from(["", " ", "\n"])) + "".join(parts)


def _check(text: str, chunks, counter, max_tokens: int, overlap: int, structure_aware: bool) -> None:
    covered = [False] * len(text)
    prev = None
    sections = split_sections(text) if structure_aware else [(0, len(text), [])]
    for s, e, n_tok, _path in chunks:
        assert 0 <= s <= e <= len(text)
        piece = text[s:e]
        assert piece == piece.strip()  # offsets are exact and trimmed
        assert counter.count(piece) == n_tok <= max_tokens
        for i in range(s, e):
            covered[i] = True
        sec = [x for x in sections if x[0] <= s and e <= x[1]]
        assert sec, "a chunk crosses a section boundary"
        if prev is not None:
            ps, pe = prev
            assert s > ps and e > pe  # progress
            if s < pe:
                assert counter.count(text[s:pe]) <= overlap
        prev = (s, e)
    missed = [i for i, c in enumerate(covered) if not c and not text[i].isspace()]
    assert not missed, f"uncovered characters at {missed[:5]}"


@settings(max_examples=120, deadline=None)
@given(text=texts(), max_tokens=st.integers(8, 40), overlap_frac=st.floats(0, 0.9),
       respect=st.booleans(), structure=st.booleans())
def test_chunk_properties_cl100k(text, max_tokens, overlap_frac, respect, structure):
    overlap = int(overlap_frac * (max_tokens - 1))
    chunks = chunk_text(text, max_tokens=max_tokens, overlap=overlap, respect_sentences=respect,
                        structure_aware=structure, counter=CL100K)
    _check(text, chunks, CL100K, max_tokens, overlap, structure)


@settings(max_examples=60, deadline=None)
@given(text=texts(), max_tokens=st.integers(8, 30), overlap=st.integers(0, 7))
def test_chunk_properties_regex_fallback(text, max_tokens, overlap):
    chunks = chunk_text(text, max_tokens=max_tokens, overlap=overlap, counter=REGEX, structure_aware=True)
    _check(text, chunks, REGEX, max_tokens, overlap, True)


def test_sentence_splitter_handles_abbreviations_and_initials():
    t = ("Dr. Smith et al. reported a 3.5% rise (Fig. 2). The U.S. data, e.g. from J. R. Doe, agree! "
         "Does it hold? It does.\nA new line starts a sentence")
    assert [t[a:b] for a, b in split_sentences(t)] == [
        "Dr. Smith et al. reported a 3.5% rise (Fig. 2).",
        "The U.S. data, e.g. from J. R. Doe, agree!",
        "Does it hold?",
        "It does.",
        "A new line starts a sentence",
    ]


def test_chunks_end_on_sentence_boundaries_when_they_can():
    sents = [f"Sentence number {i} talks about topic {i}." for i in range(20)]
    text = " ".join(sents)
    chunks = chunk_text(text, max_tokens=30, overlap=10, counter=CL100K)
    assert len(chunks) > 3
    for s, e, _, _ in chunks:
        piece = text[s:e]
        assert piece.startswith("Sentence") and piece.endswith(".")
    # consecutive chunks share whole sentences (overlap > 0 and at least one sentence fits in it)
    assert any(chunks[i + 1][0] < chunks[i][1] for i in range(len(chunks) - 1))


def test_long_sentence_is_split_between_words_then_tokens():
    text = "word " * 100 + "x" * 300
    chunks = chunk_text(text.strip(), max_tokens=16, overlap=0, counter=CL100K)
    assert all(n <= 16 for _, _, n, _ in chunks)
    for s, e, _, _ in chunks[:-3]:
        assert text[s:e].replace("word", "").strip() == ""  # word-aligned until the giant word


def test_structure_aware_headings_and_paths():
    text = ("# Guide\nIntro sentence.\n## Setup\nRequirements:\n- python\n- numpy\n"
            "## Usage\nRun it. Then check it.")
    chunks = chunk_text(text, max_tokens=200, overlap=0, structure_aware=True, counter=CL100K)
    got = [(text[s:e].split("\n")[0], p) for s, e, _, p in chunks]
    assert got == [
        ("# Guide", ["Guide"]),
        ("## Setup", ["Guide", "Setup"]),
        ("Requirements:", ["Guide", "Setup", "Requirements"]),
        ("## Usage", ["Guide", "Usage"]),
    ]
    # without structure the whole text fits in one chunk
    assert len(chunk_text(text, max_tokens=200, overlap=0, counter=CL100K)) == 1


def test_all_caps_headings_without_markdown():
    text = "OVERVIEW\nThe system is small.\nRISKS\nKeys expire."
    paths = [p for *_, p in chunk_text(text, max_tokens=100, overlap=0, structure_aware=True, counter=CL100K)]
    assert paths == [["OVERVIEW"], ["RISKS"]]


def test_chunk_corpus_ids_metadata_and_empty_docs():
    corpus = Corpus(["a", "b"], ["One. Two. Three. Four. Five. Six.", ""], ["Title A", "Title B"])
    cc = chunk_corpus(corpus, max_tokens=8, overlap=0, counter=CL100K)
    ids = cc.corpus.doc_ids
    assert ids[0] == "a#c0" and ids[-1] == "b#c0" and len(ids) > 2
    assert all(cc.chunk_to_doc[c] == c.split("#")[0] for c in ids)
    for i, cid in enumerate(ids):
        m = cc.corpus.metadata[i]
        doc = corpus[m["doc_id"]]
        assert doc.text[m["char_start"]:m["char_end"]] == cc.corpus.texts[i]
        assert cc.corpus.titles[i] == doc.title and m["chunk_index"] == int(cid.split("#c")[1])
    assert cc.corpus.texts[-1] == "" and cc.params["token_counter"] == "cl100k" and cc.counter == "cl100k"


@pytest.mark.parametrize(("kw", "field"), [({"max_tokens": 4}, "max_tokens"), ({"overlap": 256}, "overlap"),
                                           ({"overlap": -1}, "overlap")])
def test_bad_parameters_are_input_errors(kw, field):
    with pytest.raises(InputError, match=field):
        chunk_corpus(Corpus(["a"], ["x"]), **kw)


def _naive_doc_run(run: Run, c2d: dict[str, str]) -> dict[str, list[tuple[str, float]]]:
    out = {}
    for q in run.query_ids:
        best: dict[str, float] = {}
        for chunk, score in run.ranked(q):
            d = c2d[chunk]
            if d not in best:
                best[d] = score
        out[q] = sorted(best.items(), key=lambda x: (-x[1], [-ord(c) for c in x[0]]))
    return out


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000), n_docs=st.integers(1, 6), n_queries=st.integers(1, 4))
def test_doc_run_is_max_per_document_in_trec_order(seed, n_docs, n_queries):
    rng = random.Random(seed)
    c2d = {f"d{d}#c{c}": f"d{d}" for d in range(n_docs) for c in range(rng.randint(1, 4))}
    chunks = list(c2d)
    run = Run.from_dict({
        f"q{q}": {c: float(rng.choice([0.5, 1.0, 2.0, rng.random()])) for c in rng.sample(chunks, rng.randint(0, len(chunks)))}
        for q in range(n_queries)
    })
    got = doc_run_from_chunk_run(run, c2d)
    assert got.query_ids == run.query_ids
    for q in run.query_ids:
        assert got.ranked(q) == sorted(got.ranked(q), key=lambda x: -x[1])
        assert got[q] == {d: max(s for c, s in run[q].items() if c2d[c] == d) for d in {c2d[c] for c in run[q]}}
        # stored order is already trec_eval order
        assert list(got[q].items()) == got.ranked(q)


def test_doc_run_rejects_unknown_chunk():
    with pytest.raises(InputError, match="'zz'"):
        doc_run_from_chunk_run(Run.from_dict({"q": {"zz": 1.0}}), {"a#c0": "a"})
