"""Chunkers for source code: fixed line windows (RepoEval) and function/class-aware chunks by ``ast`` (cAST-like).

``chunk_code_lines``: windows of ``window`` lines (default 20) every ``stride`` lines (default 10), the RepoEval
retrieval unit; the last window ends at the file's last line. ``chunk_code_ast``: each top-level function or
class (decorators included) is one chunk when it has at most ``max_lines`` lines; a longer class is split into
its header and its members (recursively), a longer function into ``max_lines`` windows; consecutive module-level
statements (imports, constants) are merged up to ``max_lines``. A file that does not parse falls back to line
windows. Both return a :class:`~hcrbench.data.chunking.ChunkedCorpus` whose chunk texts are exact line ranges of
the file: metadata ``doc_id``, ``chunk_index``, ``line_start``, ``line_end`` (1-based, inclusive),
``char_start``, ``char_end``. Chunk titles are the file path, so a chunk still says where it lives.

:func:`line_range_qrels` turns line-range ground truth (``path``, ``start_line``, ``end_line`` per query) into
chunk qrels: a chunk is relevant when it overlaps the range (RepoEval's criterion).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from typing import Any

from hcrbench.data.chunking import ChunkedCorpus
from hcrbench.data.types import Corpus, Qrels
from hcrbench.errors import InputError

Span = tuple[int, int]  # 1-based inclusive line range


def _line_offsets(text: str) -> list[int]:
    offs = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            offs.append(i + 1)
    return offs


def _n_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def line_windows(n_lines: int, window: int = 20, stride: int = 10, first: int = 1) -> list[Span]:
    """Windows over lines ``first .. first + n_lines - 1``; the last one is cut at the end, none is empty."""
    if n_lines <= 0:
        return []
    last = first + n_lines - 1
    spans: list[Span] = []
    start = first
    while True:
        end = min(start + window - 1, last)
        spans.append((start, end))
        if end >= last:
            return spans
        start += stride


def _node_span(node: ast.AST) -> Span:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]
    return start, int(node.end_lineno or node.lineno)  # type: ignore[attr-defined]


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _ast_spans(body: list[ast.stmt], max_lines: int, lo: int, hi: int) -> list[Span]:
    """Spans covering the statements of ``body`` (lines lo..hi of their parent), by definition."""
    spans: list[Span] = []
    loose: list[Span] = []

    def flush() -> None:
        if not loose:
            return
        s, e = loose[0][0], loose[0][1]
        for a, b in loose[1:]:
            if b - s + 1 > max_lines:
                spans.append((s, e))
                s = a
            e = b
        spans.append((s, e))
        loose.clear()

    for node in body:
        s, e = _node_span(node)
        if not isinstance(node, _DEFS):
            if e - s + 1 > max_lines:
                flush()
                spans.extend(line_windows(e - s + 1, max_lines, max_lines, s))
            else:
                loose.append((s, e))
            continue
        flush()
        if e - s + 1 <= max_lines:
            spans.append((s, e))
        elif isinstance(node, ast.ClassDef) and node.body:
            first_member = min(_node_span(n)[0] for n in node.body)
            head_end = first_member - 1
            inner = [n for n in node.body]
            if isinstance(inner[0], ast.Expr) and isinstance(getattr(inner[0], "value", None), ast.Constant):
                head_end = max(head_end, _node_span(inner[0])[1])  # the docstring stays with the header
                inner = inner[1:]
            if head_end >= s:
                spans.extend(line_windows(head_end - s + 1, max_lines, max_lines, s))
            spans.extend(_ast_spans(inner, max_lines, head_end + 1, e))
        else:
            spans.extend(line_windows(e - s + 1, max_lines, max_lines, s))
    flush()
    return spans


def ast_chunk_spans(source: str, max_lines: int = 40) -> list[Span] | None:
    """Function/class-aware line spans of ``source`` (None when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    n = _n_lines(source)
    spans = _ast_spans(tree.body, max_lines, 1, n)
    return spans or line_windows(n, max_lines, max_lines)


def _chunked(corpus: Corpus, spans_of, params: dict[str, Any], name: str) -> ChunkedCorpus:
    ids: list[str] = []
    texts: list[str] = []
    titles: list[str] = []
    metas: list[dict[str, Any]] = []
    c2d: dict[str, str] = {}
    for d, doc_id in enumerate(corpus.doc_ids):
        text = corpus.texts[d]
        offs = _line_offsets(text)
        spans = spans_of(text) or [(1, max(1, _n_lines(text)))]
        for n, (s, e) in enumerate(spans):
            cs = offs[s - 1] if s - 1 < len(offs) else len(text)
            ce = offs[e] if e < len(offs) else len(text)
            cid = f"{doc_id}#c{n}"
            ids.append(cid)
            texts.append(text[cs:ce])
            titles.append(corpus.titles[d] or doc_id)
            metas.append({"doc_id": doc_id, "chunk_index": n, "line_start": s, "line_end": e,
                          "char_start": cs, "char_end": ce})
            c2d[cid] = doc_id
    return ChunkedCorpus(Corpus(ids, texts, titles, metas, name=f"{corpus.name}-{name}"), c2d, "lines", params)


def _check_int(v: Any, field: str, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise InputError(f"must be an integer >= {lo}, got {v!r}", field=field)
    return v


def chunk_code_lines(corpus: Corpus, *, window: int = 20, stride: int = 10) -> ChunkedCorpus:
    """Fixed windows of ``window`` lines every ``stride`` lines (RepoEval: 20 and 10)."""
    _check_int(window, "window", 1)
    _check_int(stride, "stride", 1)
    if stride > window:
        raise InputError(f"stride ({stride}) larger than window ({window}) would skip lines", field="stride")
    return _chunked(corpus, lambda t: line_windows(_n_lines(t), window, stride),
                    {"chunker": "lines", "window": window, "stride": stride}, f"lines{window}-{stride}")


def chunk_code_ast(corpus: Corpus, *, max_lines: int = 40) -> ChunkedCorpus:
    """One chunk per function / class (split when longer than ``max_lines``), module code merged between."""
    _check_int(max_lines, "max_lines", 2)
    return _chunked(corpus, lambda t: ast_chunk_spans(t, max_lines) or line_windows(_n_lines(t), max_lines,
                                                                                    max_lines),
                    {"chunker": "ast", "max_lines": max_lines}, f"ast{max_lines}")


def line_range_qrels(chunked: ChunkedCorpus, ranges: Mapping[str, Iterable[Mapping[str, Any]]],
                     name: str = "linerange") -> Qrels:
    """Chunk qrels: grade 1 for every chunk of ``path`` overlapping ``start_line..end_line`` of a query's range."""
    by_doc: dict[str, list[tuple[str, int, int]]] = {}
    for cid, meta in zip(chunked.corpus.doc_ids, chunked.corpus.metadata):
        by_doc.setdefault(meta["doc_id"], []).append((cid, int(meta["line_start"]), int(meta["line_end"])))
    out: dict[str, dict[str, int]] = {}
    for qid, rs in ranges.items():
        rel: dict[str, int] = {}
        for r in rs:
            for cid, s, e in by_doc.get(str(r["path"]), []):
                if s <= int(r["end_line"]) and e >= int(r["start_line"]):
                    rel[cid] = 1
        out[qid] = rel
    return Qrels.from_dict(out, name=name)
