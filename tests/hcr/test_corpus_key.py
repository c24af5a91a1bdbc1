"""HCR's in-process corpus key (what its shared chunks, embeddings and BM25 are memoised under) is length-prefixed:
a title/text split that only moves a separator between fields is another corpus."""

from __future__ import annotations

from hcrbench.data import Corpus
from hcrbench.retrieve.hcr.retriever import corpus_key


def test_a_crafted_title_text_split_gets_its_own_key():
    a = Corpus(["d1"], ["c"], ["a\x02b"])
    b = Corpus(["d1"], ["b\x02c"], ["a"])
    # the old key joined title and text with \x02: both were "a\x02b\x02c"
    assert f"{a.titles[0]}\x02{a.texts[0]}" == f"{b.titles[0]}\x02{b.texts[0]}"
    assert corpus_key(a) != corpus_key(b)
    assert corpus_key(Corpus(["d1"], ["ab"], ["1:"])) != corpus_key(Corpus(["d1"], ["1:ab"], [""]))


def test_the_key_follows_ids_titles_and_texts_and_nothing_else():
    base = Corpus(["d1", "d2"], ["x", "y"], ["t1", "t2"], name="one")
    assert corpus_key(base) == corpus_key(Corpus(["d1", "d2"], ["x", "y"], ["t1", "t2"], name="two"))
    assert corpus_key(base) != corpus_key(Corpus(["d1", "d3"], ["x", "y"], ["t1", "t2"]))
    assert corpus_key(base) != corpus_key(Corpus(["d1", "d2"], ["x", "y"], ["t1", "t3"]))
    assert corpus_key(base) != corpus_key(Corpus(["d1", "d2"], ["x", "z"], ["t1", "t2"]))
