"""Data types and file formats (the lowest stage: imports nothing else of hcrbench but ``errors``)."""

from hcrbench.data.atomic import atomic_open, atomic_write_bytes, atomic_write_text
from hcrbench.data.beir import (
    BeirDataset,
    iter_jsonl,
    load_beir,
    read_corpus,
    read_queries,
    write_beir_qrels,
    write_corpus,
    write_jsonl,
    write_queries,
)
from hcrbench.data.trec import open_lines, read_qrels, read_run, write_qrels, write_run
from hcrbench.data.types import Corpus, Costs, Document, Qrels, Queries, Run, RunResult, trec_score_key

__all__ = [
    "BeirDataset",
    "Corpus",
    "Costs",
    "Document",
    "Qrels",
    "Queries",
    "Run",
    "RunResult",
    "atomic_open",
    "atomic_write_bytes",
    "atomic_write_text",
    "iter_jsonl",
    "load_beir",
    "open_lines",
    "read_corpus",
    "read_qrels",
    "read_queries",
    "read_run",
    "trec_score_key",
    "write_beir_qrels",
    "write_corpus",
    "write_jsonl",
    "write_qrels",
    "write_queries",
    "write_run",
]

# Chunking, token counting and labelled-substring judgments.
from hcrbench.data.chunking import ChunkedCorpus, chunk_corpus, doc_run_from_chunk_run
from hcrbench.data.interop import as_qrels, as_run
from hcrbench.data.labelled import LabelledQuery, labelled_qrels, read_labelled
from hcrbench.data.smart import load_cisi, load_cranfield, read_smart_documents, read_smart_queries
from hcrbench.data.tokens import TokenCounter, count_tokens, get_counter

__all__ += [
    "ChunkedCorpus",
    "LabelledQuery",
    "TokenCounter",
    "chunk_corpus",
    "count_tokens",
    "doc_run_from_chunk_run",
    "get_counter",
    "labelled_qrels",
    "read_labelled",
]

# Classic SMART-format collections (Cranfield, CISI).
__all__ += ["load_cisi", "load_cranfield", "read_smart_documents", "read_smart_queries"]

__all__ += ["as_qrels", "as_run"]  # other libraries' qrels and runs (hcrbench.data.interop)
