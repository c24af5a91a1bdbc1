"""A run written in the format its file name says: the one writer behind every command that writes a run
(``fuse``, ``retrieve``, ``merge``).

- ``.trec``, ``.run``, ``.txt``, ``.res`` or no suffix at all: TREC text (:func:`~hcrbench.data.trec.write_run`);
- ``.json``: ranx's JSON run, ``{query_id: {doc_id: score}}`` (what ``ranx.Run.save(..., kind="json")`` writes
  and ``ranx.Run.from_file`` reads), queries in the run's order, each query's docs in trec_eval's order;
- ``.parquet``: ranx's columns ``q_id, doc_id, score`` (``ranx.Run.from_parquet``, ``pandas.read_parquet``);
- ``.gz`` after a text suffix (``.trec.gz``, ``.json.gz``, ``run.gz``): the same, gzip-compressed.

Any other suffix (``.csv``, ``.parquet.gz``, ``.bz2``, a typo) is refused in one line naming the field, before any
work, instead of writing TREC text under a name that makes ranx or pandas fail later. Every format refuses what
no reader takes back (a non-finite score, an id holding whitespace: :func:`~hcrbench.data.trec.check_writable_run`)
and is written atomically (temporary file, then rename).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from hcrbench.data.atomic import atomic_open
from hcrbench.data.types import Run
from hcrbench.errors import InputError

#: Suffixes written as TREC text ("" is a name without a dot).
TREC_SUFFIXES = (".trec", ".run", ".txt", ".res", "")
#: What each written format is called in messages.
KNOWN = ".trec, .run, .txt, .res (TREC text), .json (ranx JSON), .parquet, and .gz after a text one (.trec.gz, " \
        ".json.gz)"


def run_format(path: str | Path, *, field: str | None = "--out") -> tuple[str, bool]:
    """``(format, gzip)`` for a run written to ``path``: format ``"trec"``, ``"json"`` or ``"parquet"``; an unknown
    suffix is an :class:`InputError` naming ``field``."""
    name = Path(path).name
    gz = name.endswith(".gz")
    base = Path(name[:-3]) if gz else Path(name)
    suffix = base.suffix.lower() if base.name not in ("", ".") else ""
    if suffix == ".json":
        return "json", gz
    if suffix in (".parquet", ".parq") and not gz:
        return "parquet", False
    if suffix in TREC_SUFFIXES:
        return "trec", gz
    why = "parquet compresses itself: drop the .gz" if suffix in (".parquet", ".parq") else \
        f"hcrbench writes runs as {KNOWN}"
    raise InputError(f"cannot write a run named {name!r} ({suffix or '.gz'}): {why}", field=field)


def check_run_path(path: str | Path, *, field: str | None = "--out") -> str:
    """The format of ``path`` (see :func:`run_format`), checked before a command does any work."""
    return run_format(path, field=field)[0]


def _ranked(run: Run, k: int | None):
    for qid in run.query_ids:
        ranked = run.ranked(qid)
        yield qid, ranked if k is None else ranked[:k]


def write_any_run(run: Run, path: str | Path, *, tag: str | None = None, k: int | None = None,
                  field: str | None = "--out") -> str:
    """Write ``run`` (each query's best ``k``) to ``path`` in the format its suffix names; returns the format."""
    from hcrbench.data.trec import check_writable_run, write_run

    kind, _ = run_format(path, field=field)
    if kind == "trec":
        write_run(run, path, tag=tag, k=k)
        return kind
    check_writable_run(run, path, tag=tag)
    if kind == "json":
        doc = {qid: dict(ranked) for qid, ranked in _ranked(run, k)}
        with atomic_open(path, "w") as fh:  # .json.gz: atomic_open compresses
            json.dump(doc, fh, indent=2, ensure_ascii=False)
        return kind
    try:
        import pandas as pd

        rows = [(qid, doc, score) for qid, ranked in _ranked(run, k) for doc, score in ranked]
        frame = pd.DataFrame(rows, columns=["q_id", "doc_id", "score"])
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
    except ImportError as e:
        raise InputError(f"writing parquet needs pandas and pyarrow ({e.name} is missing): "
                         "pip install 'hcrbench[parquet]'", field=field) from None
    with atomic_open(path, "wb") as fh:
        fh.write(buf.getvalue())
    return kind
