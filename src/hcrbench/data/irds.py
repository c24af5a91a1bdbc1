"""Datasets by name: ``irds:<id>`` through ir_datasets (the optional extra ``irds``), read from its local cache.

``irds:beir/scifact/test`` works wherever a qrels or a dataset folder is accepted:

* as qrels (:func:`irds_qrels`; ``evaluate``'s qrels argument, ``hcrbench evaluate irds:<id> RUN``);
* as a dataset (:func:`irds_folder`; ``--dataset``, an experiment's ``[dataset] path``): the docs, queries and
  qrels are written once as a BEIR folder under ``$HCRBENCH_CACHE/irds/`` (corpus.jsonl, queries.jsonl,
  qrels/<split>.tsv), so every stage reads, hashes and locks it like any folder. The id fixes the judgments;
  ``split`` only names the qrels file.

ir_datasets downloads what its cache (``$IR_DATASETS_HOME``, default ``~/.ir_datasets``) lacks; when that fails
(no network, a dataset that must be obtained by hand) the error is one line naming the id and that folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_open, atomic_write_text
from hcrbench.data.columns import from_records
from hcrbench.data.trec import write_beir_qrels
from hcrbench.data.types import Qrels
from hcrbench.errors import InputError

PREFIX = "irds:"
_DONE = "hcrbench-irds.json"


def _irds() -> Any:
    try:
        import ir_datasets
    except ImportError:
        raise InputError("irds: ids need the optional package ir_datasets: pip install 'hcrbench[irds]'",
                         field="dataset") from None
    return ir_datasets


def irds_home() -> Path:
    """Where ir_datasets keeps (and looks for) its files."""
    try:
        return Path(_irds().util.home_path())
    except Exception:  # an old ir_datasets: the documented default
        return Path(os.environ.get("IR_DATASETS_HOME", "~/.ir_datasets")).expanduser()


def strip_prefix(value: str) -> str:
    return value[len(PREFIX):] if value.startswith(PREFIX) else value


def load_dataset(dataset_id: str) -> Any:
    """The ir_datasets dataset ``dataset_id`` (an unknown id is a one-line error with close ids)."""
    ird = _irds()
    dataset_id = strip_prefix(dataset_id)
    try:
        return ird.load(dataset_id)
    except KeyError:
        import difflib

        close = difflib.get_close_matches(dataset_id, list(ird.registry), n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(repr(PREFIX + c) for c in close)}?)" if close else ""
        raise InputError(f"ir_datasets knows no dataset {dataset_id!r}{hint}", field="dataset") from None


def _fetch_failed(dataset_id: str, what: str, e: BaseException) -> InputError:
    detail = " ".join(str(e).split("(Caused by")[0].split())[:120] or type(e).__name__
    return InputError(f"irds:{dataset_id}: cannot read its {what}: not in ir_datasets' cache under "
                      f"{irds_home()} and could not be fetched ({type(e).__name__}: {detail})", field="dataset")


def _bars_wanted() -> bool:
    """hcrbench's rule for progress bars (retrieve/progress.py): stderr is a terminal, HCRBENCH_PROGRESS is not 0."""
    import sys

    flag = os.environ.get("HCRBENCH_PROGRESS", "").strip().lower()
    return sys.stderr.isatty() and flag not in ("0", "false", "no", "off")


def _read(dataset_id: str, what: str, fn: Any) -> Any:
    import functools
    import logging
    import types

    before = logging.root.manager.disable
    logging.disable(logging.WARNING)  # ir_datasets' download retries would print lines above our one line
    lazy = _irds().lazy_libs
    real_tqdm = lazy.tqdm
    if not _bars_wanted():  # ir_datasets draws its own tqdm bars: off where hcrbench's are off
        module = real_tqdm()
        lazy.tqdm = lambda: types.SimpleNamespace(tqdm=functools.partial(module.tqdm, disable=True))
    try:
        return fn()
    except InputError:
        raise
    except (Exception, SystemExit) as e:  # ir_datasets raises what its downloader raises
        raise _fetch_failed(dataset_id, what, e) from None
    finally:
        logging.disable(before)
        lazy.tqdm = real_tqdm


def irds_qrels(dataset_id: str) -> Qrels:
    """The qrels of ``dataset_id`` as :class:`Qrels` (named after the id)."""
    dataset_id = strip_prefix(dataset_id)
    ds = load_dataset(dataset_id)
    if not ds.has_qrels():
        raise InputError(f"irds:{dataset_id} has no qrels (pick an id with a split, e.g. beir/scifact/test)",
                         field="qrels")
    records = _read(dataset_id, "qrels", lambda: list(ds.qrels_iter()))
    if not records:
        raise InputError(f"irds:{dataset_id} holds no qrels", field="qrels")
    return from_records(Qrels, records, "relevance", dataset_id)


def _text(record: Any) -> str:
    text = getattr(record, "text", None)
    if isinstance(text, str):
        return text
    default = getattr(record, "default_text", None)
    return default() if callable(default) else ""


def _slug(dataset_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "__" for c in dataset_id)


def irds_folder(dataset_id: str, split: str = "test", root: str | Path | None = None) -> Path:
    """A BEIR folder holding ``dataset_id``'s docs, queries and qrels (``qrels/<split>.tsv``), written once."""
    from hcrbench.data.cache import cache_root

    dataset_id = strip_prefix(dataset_id)
    folder = cache_root(root) / "irds" / _slug(dataset_id)
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if (folder / _DONE).is_file() and qrels_path.is_file():
        return folder
    ds = load_dataset(dataset_id)
    missing = [w for w, has in (("docs", ds.has_docs()), ("queries", ds.has_queries()), ("qrels", ds.has_qrels()))
               if not has]
    if missing:
        raise InputError(f"irds:{dataset_id} has no {' and no '.join(missing)}: a dataset needs docs, queries "
                         f"and qrels (e.g. irds:beir/scifact/test)", field="dataset")
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    if not (folder / _DONE).is_file():
        def write_docs() -> int:
            n = 0
            with atomic_open(folder / "corpus.jsonl", "w") as fh:
                for d in ds.docs_iter():
                    row = {"_id": d.doc_id, "title": getattr(d, "title", "") or "", "text": _text(d)}
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                    n += 1
            return n

        def write_queries() -> int:
            n = 0
            with atomic_open(folder / "queries.jsonl", "w") as fh:
                for q in ds.queries_iter():
                    fh.write(json.dumps({"_id": q.query_id, "text": _text(q)}, ensure_ascii=False) + "\n")
                    n += 1
            return n

        n_docs = _read(dataset_id, "docs", write_docs)
        n_queries = _read(dataset_id, "queries", write_queries)
    write_beir_qrels(irds_qrels(dataset_id), qrels_path)
    if not (folder / _DONE).is_file():
        atomic_write_text(folder / _DONE, json.dumps({"irds": dataset_id, "docs": n_docs,
                                                      "queries": n_queries}, indent=2) + "\n")
    return folder


def resolve_dataset(value: str | Path, split: str = "test") -> Path:
    """``irds:<id>`` as its BEIR folder (:func:`irds_folder`); anything else as a path."""
    text = str(value)
    return irds_folder(text, split) if text.startswith(PREFIX) else Path(value)
