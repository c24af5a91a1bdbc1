"""What a policy comparison runs on: a BEIR folder or a code set, and its retrieval units per chunking.

``load_policy_bench`` reads a BEIR folder (Meridian, a converted MultiHop-RAG, anything; several qrels splits may
be pooled) or a code set (a BEIR folder with ``linerange/``). ``make_units`` chunks it: ``none`` (whole
documents), ``tokens:N`` / ``structure:N`` (prose, judged through the documents), ``lines[:W[:S]]`` / ``ast[:N]``
(code, judged by line-range overlap, with the query's own function excluded: RepoEval's leakage rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.data.beir import read_corpus, read_queries
from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.code_chunking import chunk_code_ast, chunk_code_lines, line_range_qrels
from hcrbench.data.trec import read_qrels
from hcrbench.data.types import Corpus, Qrels, Queries
from hcrbench.errors import InputError
from hcrbench.synth.codeset import read_line_ranges


@dataclass
class PolicyBench:
    """What a comparison runs on. ``line_ranges`` is set for code sets (then ``qrels`` marks gold files)."""

    name: str
    corpus: Corpus
    queries: Queries
    qrels: Qrels
    split: str
    kind: str = "prose"
    line_ranges: dict[str, list[dict[str, Any]]] | None = None
    strata: dict[str, str] = field(default_factory=dict)


def load_policy_bench(folder: str | Path, split: str = "test", name: str | None = None) -> PolicyBench:
    """Read a BEIR folder; ``split`` may join several qrels files (``tune,dev,test``); strata = ``category``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("dataset folder not found", path=folder, field="--dataset")
    splits = [s.strip() for s in split.split(",") if s.strip()]
    if not splits:
        raise InputError(f"no split named in {split!r}", field="--split")
    for p in (folder / "corpus.jsonl", folder / "queries.jsonl"):
        if not p.is_file():
            raise InputError(f"BEIR folder has no {p.name}", path=folder, field="--dataset")
    merged: dict[str, dict[str, int]] = {}
    for s in splits:
        p = folder / "qrels" / f"{s}.tsv"
        if not p.is_file():
            avail = sorted(x.stem for x in (folder / "qrels").glob("*.tsv"))
            raise InputError(f"no qrels/{s}.tsv (available splits: {', '.join(avail) or 'none'})", path=folder,
                             field="--split")
        for q, docs in read_qrels(p).items():
            if q in merged:
                raise InputError(f"query {q!r} is judged in two of the splits given", path=p, field="--split")
            merged[q] = dict(docs)
    qrels = Qrels.from_dict(merged, name=f"{folder.name}/{'+'.join(splits)}")
    queries = read_queries(folder / "queries.jsonl")
    queries = queries.subset([q for q in qrels.query_ids if q in queries])
    if not len(queries):
        raise InputError("no judged query has a text", path=folder, field="--split")
    qrels = qrels.subset(queries.query_ids)  # a judged query without text cannot be run by either policy
    corpus = read_corpus(folder / "corpus.jsonl", name=folder.name)
    ranges = None
    if all((folder / "linerange" / f"{s}.jsonl").is_file() for s in splits):
        ranges = {}
        for s in splits:
            ranges.update(read_line_ranges(folder, s) or {})
    strata = {q: str(queries.meta(q).get("category") or queries.meta(q).get("question_type") or "all")
              for q in queries.query_ids}
    return PolicyBench(name or folder.name, corpus, queries, qrels, "+".join(splits),
                       "code" if ranges is not None else "prose", ranges, strata)


@dataclass
class Units:
    """The retrieval units of one chunking and how to judge them."""

    chunker: str
    corpus: Corpus
    to_doc: dict[str, str] | None  # unit -> document, when units are chunks of documents
    eval_qrels: Qrels  # what R/nDCG/RR are computed against (documents for prose, chunks for code)
    exclude: dict[str, set[str]]
    params: dict[str, Any]


def _int_arg(text: str, chunker: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"bad chunker {chunker!r}: {text!r} is not an integer", field="--chunker") from None


CHUNKERS = {"none": 0, "tokens": 1, "structure": 1, "lines": 2, "ast": 1}  # name -> most ':' arguments


def check_chunker(chunker: str) -> None:
    """Refuse an unknown chunker spec before anything is loaded (InputError naming ``--chunker``)."""
    kind, *args = chunker.split(":")
    if kind not in CHUNKERS or len(args) > CHUNKERS[kind]:
        raise InputError(f"unknown chunker {chunker!r} (none, tokens[:N], structure[:N], lines[:W[:S]], ast[:N])",
                         field="--chunker")
    for a in args:
        _int_arg(a, chunker)


def make_units(bench: PolicyBench, chunker: str) -> Units:
    """Chunk ``bench`` with ``chunker``: none | tokens[:N] | structure[:N] | lines[:W[:S]] | ast[:N]."""
    check_chunker(chunker)
    kind, *args = chunker.split(":")
    if kind == "none" and not args:
        chunked, params = None, {"chunker": "none"}
    elif kind in ("tokens", "structure") and len(args) <= 1:
        n = _int_arg(args[0], chunker) if args else 128
        chunked = chunk_corpus(bench.corpus, max_tokens=n, overlap=0, structure_aware=kind == "structure")
        params = {"chunker": kind, **chunked.params}
    elif kind == "lines" and len(args) <= 2:
        w = _int_arg(args[0], chunker) if args else 20
        s = _int_arg(args[1], chunker) if len(args) > 1 else max(1, w // 2)
        chunked = chunk_code_lines(bench.corpus, window=w, stride=s)
        params = dict(chunked.params)
    elif kind == "ast" and len(args) <= 1:
        chunked = chunk_code_ast(bench.corpus, max_lines=_int_arg(args[0], chunker) if args else 40)
        params = dict(chunked.params)
    else:
        raise InputError(f"unknown chunker {chunker!r} (none, tokens[:N], structure[:N], lines[:W[:S]], ast[:N])",
                         field="--chunker")
    corpus = bench.corpus if chunked is None else chunked.corpus
    exclude: dict[str, set[str]] = {}
    if bench.line_ranges is not None:
        if chunked is not None and "line_start" not in chunked.corpus.metadata[0]:
            raise InputError(f"chunker {chunker!r} does not keep line numbers; use lines or ast for code",
                             field="--chunker")
        if chunked is None:
            eval_qrels = bench.qrels
        else:
            eval_qrels = line_range_qrels(chunked, bench.line_ranges, name=f"{bench.name}/linerange")
        for q in bench.queries.query_ids:  # RepoEval's leakage rule: never the query's own function
            r = bench.line_ranges.get(q, [{}])[0]
            qp, qs, qe = r.get("query_path"), r.get("query_start"), r.get("query_end")
            if qp is None or qs is None or qe is None:
                continue
            if chunked is None:
                continue  # whole files: the query's file may hold other answers; nothing to drop
            exclude[q] = {cid for cid, m in zip(corpus.doc_ids, corpus.metadata)
                          if m["doc_id"] == qp and m["line_start"] <= qe and m["line_end"] >= qs}
    else:
        eval_qrels = bench.qrels
    return Units(chunker, corpus, None if chunked is None else chunked.chunk_to_doc, eval_qrels, exclude, params)
