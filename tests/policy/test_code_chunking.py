"""Code chunkers: RepoEval line windows, ast-aware chunks, and line-range qrels."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data import Corpus
from hcrbench.data.code_chunking import (
    chunk_code_ast,
    chunk_code_lines,
    line_range_qrels,
    line_windows,
)

SRC = '''"""Module."""
import os

X = 1


@decorator
def small(a):
    return a + 1


class Big:
    """Doc."""

    def m1(self):
''' + "        x = 1\n" * 30 + '''        return x

    def m2(self):
        return 2


def tail():
    pass
'''


def test_line_windows_repoeval() -> None:
    assert line_windows(45) == [(1, 20), (11, 30), (21, 40), (31, 45)]
    assert line_windows(20) == [(1, 20)]
    assert line_windows(5) == [(1, 5)]
    assert line_windows(0) == []


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 200), window=st.integers(1, 30), stride=st.integers(1, 30))
def test_line_windows_cover_every_line(n, window, stride) -> None:
    stride = min(stride, window)
    spans = line_windows(n, window, stride)
    covered = {i for s, e in spans for i in range(s, e + 1)}
    assert covered == set(range(1, n + 1))
    assert all(e - s + 1 <= window for s, e in spans)


def _corpus() -> Corpus:
    return Corpus(["pkg/mod.py", "pkg/bad.py"], [SRC, "def broken(:\n" + "x = 1\n" * 25], name="t")


def test_chunks_are_exact_line_ranges() -> None:
    for chunked in (chunk_code_lines(_corpus()), chunk_code_ast(_corpus(), max_lines=20)):
        c = chunked.corpus
        for cid, text, meta in zip(c.doc_ids, c.texts, c.metadata):
            doc = SRC if meta["doc_id"] == "pkg/mod.py" else _corpus().texts[1]
            lines = doc.splitlines(keepends=True)
            assert text == "".join(lines[meta["line_start"] - 1:meta["line_end"]])
            assert text == doc[meta["char_start"]:meta["char_end"]]
            assert chunked.chunk_to_doc[cid] == meta["doc_id"]


def test_ast_chunks_follow_definitions() -> None:
    spans = [(m["line_start"], m["line_end"]) for m in chunk_code_ast(_corpus(), max_lines=20).corpus.metadata
             if m["doc_id"] == "pkg/mod.py"]
    tree = ast.parse(SRC)
    small = next(n for n in tree.body if getattr(n, "name", "") == "small")
    assert (small.decorator_list[0].lineno, small.end_lineno) in spans  # decorator included, one chunk
    big = next(n for n in tree.body if getattr(n, "name", "") == "Big")
    m2 = big.body[2]
    assert (m2.lineno, m2.end_lineno) in spans  # a long class is split into its members
    assert (1, 4) in spans  # module-level statements merged
    # the unparsable file falls back to windows
    bad = [(m["line_start"], m["line_end"]) for m in chunk_code_ast(_corpus(), max_lines=20).corpus.metadata
           if m["doc_id"] == "pkg/bad.py"]
    assert bad == [(1, 20), (21, 26)]


def test_line_range_qrels_overlap() -> None:
    chunked = chunk_code_lines(_corpus())
    q = line_range_qrels(chunked, {"q1": [{"path": "pkg/mod.py", "start_line": 25, "end_line": 26}],
                                   "q2": [{"path": "nowhere.py", "start_line": 1, "end_line": 3}]})
    rel = set(q["q1"])
    want = {cid for cid, m in zip(chunked.corpus.doc_ids, chunked.corpus.metadata)
            if m["doc_id"] == "pkg/mod.py" and m["line_start"] <= 26 and m["line_end"] >= 25}
    assert rel == want and len(rel) == 2  # windows 11-30 and 21-40
    assert q["q2"] == {}
