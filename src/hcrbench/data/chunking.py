"""Token-window chunking that respects sentences (and, optionally, headings), and chunk -> document mapping.

``chunk_corpus`` cuts every document's text into chunks of at most ``max_tokens`` tokens (counted with one
:class:`~hcrbench.data.tokens.TokenCounter`, cl100k by default) that start and end on sentence boundaries, with
up to ``overlap`` tokens of whole sentences repeated between consecutive chunks. A sentence longer than
``max_tokens`` is cut between words, and a word longer than that between tokens. With ``structure_aware`` the
text is first split into sections at heading lines and no chunk crosses a heading. Each chunk is an exact
substring ``text[char_start:char_end]`` of its document, so offsets can be shown and checked.

Chunk-level runs are evaluated against document qrels with :func:`doc_run_from_chunk_run`: a document scores the
maximum of its chunks' scores (MaxP), the usual passage-to-document aggregation.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.data.tokens import TokenCounter, default_counter
from hcrbench.data.types import Corpus, Run, trec_score_key
from hcrbench.errors import InputError

# ------------------------------------------------------------------------------------------------ sentences

_ABBREVIATIONS = (
    """a.m. p.m. e.g. i.e. etc. vs. cf. al. approx. ca. fig. figs. eq. eqs. ref. refs. sec. ch. vol. no. nos.
    pp. p. dr. mr. mrs. ms. prof. sr. jr. st. mt. inc. ltd. co. corp. dept. univ. jan. feb. mar. apr. jun.
    jul. aug. sep. sept. oct. nov. dec. resp. approx. incl. min. max. est. viz. u.s. u.k. e.u."""
)
#: Lower-cased words (with their final period) after which a period does not end a sentence.
ABBREVIATIONS = frozenset(_ABBREVIATIONS.split())
_END = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019)\]]*(?=\s|$)")
_INITIALS = re.compile(r"^(?:[A-Za-z]\.)+$")
_SPACE = re.compile(r"\S+")


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of ``text[start:end]``, whitespace trimmed, in order.

    A sentence ends at ``.``, ``!``, ``?`` or ``…`` (plus closing quotes/brackets) followed by whitespace, unless
    the word ending there is a known abbreviation (``e.g.``, ``Dr.``, ``Fig.``...) or initials (``J.``, ``U.S.``),
    or the next word starts in lower case. A line break always ends a sentence.
    """
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        cut = pos
        for m in _END.finditer(text, pos, line_end):
            stop = m.end()
            if text[m.start()] == ".":
                w0 = text.rfind(" ", pos, m.start()) + 1
                word = text[max(w0, pos):stop].lstrip("([{\"'").lower()
                word = word.rstrip("\"'\u201d\u2019)]")
                if word in ABBREVIATIONS or _INITIALS.match(word):
                    continue
            nxt = stop
            while nxt < line_end and text[nxt].isspace():
                nxt += 1
            if nxt < line_end and text[nxt].islower():
                continue
            s, e = _trim(text, cut, stop)
            if e > s:
                spans.append((s, e))
            cut = stop
        s, e = _trim(text, cut, line_end)
        if e > s:
            spans.append((s, e))
        pos = line_end + 1
    return spans


# ------------------------------------------------------------------------------------------------ headings

_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)[\s#]*$")


def _heading(line: str, has_markdown: bool) -> tuple[int, str] | None:
    """``(level, title)`` if ``line`` is a heading: markdown ``#``, an ALL-CAPS line, or a short line ending ':'."""
    s = line.strip()
    if not s or len(s) > 100:
        return None
    m = _MD_HEADING.match(line)
    if m:
        return len(m.group(1)), m.group(2).strip()
    words = s.split()
    letters = [c for c in s if c.isalpha()]
    if len(letters) >= 2 and s.upper() == s and any(c.isupper() for c in letters) and len(words) <= 12:
        return (10 if has_markdown else 1), s.rstrip(":").strip()
    if s.endswith(":") and len(words) <= 8 and s[0] not in "-*•+>|" and not s[0].isdigit():
        return 20, s[:-1].strip()
    return None


def split_sections(text: str) -> list[tuple[int, int, list[str]]]:
    """``(start, end, heading_path)`` per section; a section starts at a heading line and runs to the next one.

    Levels: markdown ``#``..``######`` are 1-6; an ALL-CAPS line is level 1 (10 when the document also uses
    markdown headings); a short line ending in ``:`` is a leaf under whatever heading precedes it.
    """
    has_md = any(_MD_HEADING.match(ln) for ln in text.split("\n"))
    sections: list[tuple[int, int, list[str]]] = []
    stack: list[tuple[int, str]] = []
    sec_start = 0
    path: list[str] = []
    pos = 0
    for line in text.split("\n"):
        h = _heading(line, has_md)
        if h is not None:
            if pos > sec_start:
                sections.append((sec_start, pos, path))
            level, title = h
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            path = [t for _, t in stack]
            sec_start = pos
        pos += len(line) + 1
    if len(text) > sec_start or not sections:
        sections.append((sec_start, len(text), path))
    return sections


# ------------------------------------------------------------------------------------------------ chunking


@dataclass
class ChunkedCorpus:
    """Chunks as a :class:`Corpus` (ids ``DOCID#cN``) plus the chunk -> document map.

    Each chunk's metadata holds ``doc_id``, ``chunk_index``, ``char_start``, ``char_end`` (into the document's
    text), ``heading_path`` and ``n_tokens``; ``counter`` names the token counter, ``params`` the settings.
    """

    corpus: Corpus
    chunk_to_doc: dict[str, str]
    counter: str
    params: dict[str, Any] = field(default_factory=dict)

    def doc_run(self, run: Run) -> Run:
        """Map a chunk-level run to documents (max score per document)."""
        return doc_run_from_chunk_run(run, self.chunk_to_doc)


def _units(text: str, s0: int, e0: int, counter: TokenCounter, max_tokens: int,
           respect_sentences: bool) -> tuple[list[tuple[int, int]], list[int]]:
    """Atomic spans to pack (sentences, or words/tokens of over-long ones) and their token counts."""

    def token_units(s: int, e: int) -> list[tuple[int, int]]:
        starts = [s + o for o in counter.token_starts(text[s:e])] + [e]
        return [(a, b) for a, b in itertools.pairwise(starts) if b > a and not text[a:b].isspace()]

    if not respect_sentences:
        units = token_units(s0, e0)
        return units, counter.count_batch([text[a:b] for a, b in units])
    spans = split_sentences(text, s0, e0)
    counts = counter.count_batch([text[a:b] for a, b in spans])
    units: list[tuple[int, int]] = []
    out_counts: list[int] = []
    for (a, b), c in zip(spans, counts):
        if c <= max_tokens:
            units.append((a, b))
            out_counts.append(c)
            continue
        words = [(m.start(), m.end()) for m in _SPACE.finditer(text, a, b)]
        for (wa, wb), wc in zip(words, counter.count_batch([text[x:y] for x, y in words])):
            if wc <= max_tokens:
                units.append((wa, wb))
                out_counts.append(wc)
            else:
                tu = token_units(wa, wb)
                units.extend(tu)
                out_counts.extend(counter.count_batch([text[x:y] for x, y in tu]))
    return units, out_counts


def _pack(text: str, units: list[tuple[int, int]], counts: list[int], counter: TokenCounter,
          max_tokens: int, overlap: int) -> list[tuple[int, int, int]]:
    """Greedy packing of units into ``(char_start, char_end, n_tokens)`` chunks; counts are verified exactly."""
    n = len(units)
    chunks: list[tuple[int, int, int]] = []
    prefix = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])

    def fit(i: int) -> tuple[int, int, int, int]:
        # Largest j whose estimated (summed) count fits, then shrink until the exact count fits.
        j = max(int(np.searchsorted(prefix, prefix[i] + max_tokens, side="right")) - 1, i + 1)
        while True:
            s, e = _trim(text, units[i][0], units[j - 1][1])
            c = counter.count(text[s:e])
            if c <= max_tokens or j == i + 1:
                return j, s, e, c
            j -= 1

    i = 0
    nxt: tuple[int, int, int, int] | None = None
    while i < n:
        j, s, e, c = nxt if nxt is not None else fit(i)
        nxt = None
        if not chunks or (e > s and e > chunks[-1][1]):  # never a chunk contained in the previous one
            chunks.append((s, e, c))
        if j >= n:
            break
        # Step back over whole units whose text fits in the overlap budget, keeping progress.
        ni = max(int(np.searchsorted(prefix, prefix[j] - overlap, side="left")), i + 1)
        while ni < j:
            os_, oe = _trim(text, units[ni][0], units[j - 1][1])
            if counter.count(text[os_:oe]) <= overlap:
                break
            ni += 1
        while ni < j:
            nxt = fit(ni)
            if nxt[0] > j:
                break
            nxt = None
            ni += 1
        i = ni
    return chunks


def chunk_text(text: str, *, max_tokens: int = 256, overlap: int = 32, respect_sentences: bool = True,
               structure_aware: bool = False, counter: TokenCounter | None = None
               ) -> list[tuple[int, int, int, list[str]]]:
    """Chunks of one text as ``(char_start, char_end, n_tokens, heading_path)``; see :func:`chunk_corpus`."""
    _check(max_tokens, overlap)
    counter = counter or default_counter()
    sections = split_sections(text) if structure_aware else [(0, len(text), [])]
    out: list[tuple[int, int, int, list[str]]] = []
    for s0, e0, path in sections:
        units, counts = _units(text, s0, e0, counter, max_tokens, respect_sentences)
        for s, e, c in _pack(text, units, counts, counter, max_tokens, overlap):
            if e > s:
                out.append((s, e, c, list(path)))
    if not out:  # empty or blank text: one empty chunk keeps the document (and its title) retrievable
        out.append((0, 0, 0, []))
    return out


def _check(max_tokens: int, overlap: int) -> None:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 8:
        raise InputError(f"must be an integer >= 8, got {max_tokens!r}", field="max_tokens")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 0 <= overlap < max_tokens:
        raise InputError(f"must be an integer in [0, max_tokens), got {overlap!r}", field="overlap")


def chunk_corpus(corpus: Corpus, *, max_tokens: int = 256, overlap: int = 32, respect_sentences: bool = True,
                 structure_aware: bool = False, counter: TokenCounter | None = None) -> ChunkedCorpus:
    """Cut every document of ``corpus`` into chunks of at most ``max_tokens`` tokens of its text.

    Chunks keep their document's title (so ``full_text`` still says what the document is); the token budget
    applies to the chunk text. Consecutive chunks of one section share at most ``overlap`` tokens of whole
    units. Chunk ids are ``DOCID#c0``, ``DOCID#c1``, ... in text order.
    """
    _check(max_tokens, overlap)
    counter = counter or default_counter()
    ids: list[str] = []
    texts: list[str] = []
    titles: list[str] = []
    metas: list[dict[str, Any]] = []
    c2d: dict[str, str] = {}
    for d, doc_id in enumerate(corpus.doc_ids):
        text = corpus.texts[d]
        pieces = chunk_text(text, max_tokens=max_tokens, overlap=overlap, respect_sentences=respect_sentences,
                            structure_aware=structure_aware, counter=counter)
        for n, (s, e, c, path) in enumerate(pieces):
            cid = f"{doc_id}#c{n}"
            ids.append(cid)
            texts.append(text[s:e])
            titles.append(corpus.titles[d])
            metas.append({"doc_id": doc_id, "chunk_index": n, "char_start": s, "char_end": e,
                          "heading_path": path, "n_tokens": c})
            c2d[cid] = doc_id
    params = {"max_tokens": max_tokens, "overlap": overlap, "respect_sentences": respect_sentences,
              "structure_aware": structure_aware, "token_counter": counter.name}
    return ChunkedCorpus(Corpus(ids, texts, titles, metas, name=f"{corpus.name}-chunks"), c2d, counter.name,
                         params)


# ------------------------------------------------------------------------------------------------ runs


def doc_run_from_chunk_run(run: Run, chunk_to_doc: dict[str, str], *, name: str | None = None) -> Run:
    """A document-level run from a chunk-level one: each document gets its best chunk's score.

    Per query, documents come out in trec_eval order of those scores (score descending, then doc id
    descending), i.e. the order in which their best chunks were ranked. An id absent from ``chunk_to_doc`` is
    an error (a run from another chunking would otherwise be silently mis-scored).
    """
    vocab = run.doc_vocab
    try:
        doc_of = [chunk_to_doc[c] for c in vocab]
    except KeyError as e:
        raise InputError(f"chunk id {e.args[0]!r} is not in the chunk -> document map", field="doc_id") from None
    doc_vocab = sorted(set(doc_of))
    code = {d: i for i, d in enumerate(doc_vocab)}  # sorted, so code order == doc id order
    vmap = np.array([code[d] for d in doc_of], dtype=np.int64)
    q = run.entry_query_index()
    dc = vmap[run.doc_index] if len(vmap) else np.zeros(0, dtype=np.int64)
    s = run.scores
    # Best score first, then (stable) group by (query, doc): the first entry of each group is its max.
    order = np.argsort(-s, kind="stable")
    pair = q * max(len(doc_vocab), 1) + dc
    order = order[np.argsort(pair[order], kind="stable")]
    pair = pair[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    keep = order[first]
    q, dc, s = q[keep], dc[keep], s[keep]
    order = np.lexsort((-dc, -trec_score_key(s), q))  # trec_eval order: float32 score desc, doc id desc
    q, dc, s = q[order], dc[order], s[order]
    offsets = np.zeros(len(run.query_ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=len(run.query_ids)), out=offsets[1:])
    return Run(run.query_ids, offsets, dc.astype(np.int32), s, doc_vocab, name or run.name)
