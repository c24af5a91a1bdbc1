"""The suite a regression check runs: an experiment config re-run from scratch, or its 20-query smoke subset.

Why from scratch: the runner resumes a system whose config fingerprint is unchanged, so a check that re-ran into
the config's own output folder would compare an edited retriever's *old* run with the baseline and always pass.
:func:`run_suite` therefore writes a copy of the config beside the original (same folder, so every relative path
in it still resolves) whose ``output_dir`` is a fresh temporary folder; every system is recomputed while the
checksummed vector and index caches (``hcrbench cache``) are reused. ``reuse=True`` runs the config as it is
(``hcrbench run``'s resume: fast, but blind to code changes).

The smoke suite (:func:`smoke_selection`): from the config's judged queries, ``per_category`` per query category
(sorted categories, a seeded draw within each), topped up to ``n`` from the rest by the same seed; Meridian's
out-of-distribution queries have no judgments, so on Meridian it is 2 from each of the 9 judged categories plus
2 more. It runs on a BEIR folder holding the same corpus (a link) and only those queries and judgments.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.structured import parse_toml
from hcrbench.errors import InputError

SMOKE_QUERIES = 20
SMOKE_PER_CATEGORY = 2
SMOKE_FIELD = "category"


@dataclass
class SuiteRun:
    """A finished suite run: the experiment output folder and how it was made."""

    output_dir: Path
    config_path: Path  # the user's config
    config_text: str
    started: float  # time.time() before the run: files in output_dir older than this are stale
    result: Any  # the runner's ExperimentResult
    smoke: dict[str, Any] | None = None  # {"seed", "n", "per_category", "field", "query_ids"}
    notes: list[str] = field(default_factory=list)


def smoke_selection(queries: Any, qrels: Any, *, seed: int, n: int = SMOKE_QUERIES,
                    per_category: int = SMOKE_PER_CATEGORY, field: str = SMOKE_FIELD) -> list[str]:
    """The smoke queries: ``per_category`` judged queries per ``field`` value, topped up to ``n`` (seeded).

    Deterministic: categories in sorted order, ids sorted before each draw, one generator from ``seed``.
    Without any ``field`` metadata it is ``n`` judged queries drawn by the seed. Returns sorted ids.
    """
    judged = sorted(q for q in qrels.query_ids if q in queries)
    rng = np.random.default_rng(seed)
    groups: dict[str, list[str]] = {}
    for q in judged:
        value = queries.meta(q).get(field)
        if value is not None:
            groups.setdefault(str(value), []).append(q)
    chosen: list[str] = []
    for cat in sorted(groups):
        ids = groups[cat]
        take = min(per_category, len(ids))
        chosen.extend(ids[i] for i in sorted(rng.choice(len(ids), size=take, replace=False).tolist()))
    rest = [q for q in judged if q not in set(chosen)]
    extra = max(0, min(n - len(chosen), len(rest)))
    if extra:
        chosen.extend(rest[i] for i in sorted(rng.choice(len(rest), size=extra, replace=False).tolist()))
    return sorted(chosen)


def _toml_key(key: str) -> str:
    return key if key and all(c.isalnum() or c in "_-" for c in key) else json.dumps(key)


def toml_value(value: Any) -> str:
    """``value`` (what tomllib returns, minus dates) as an inline TOML value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON string escapes are valid TOML basic-string escapes
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise InputError(f"cannot copy a TOML value of type {type(value).__name__}", field="config")


def dump_toml(doc: dict[str, Any]) -> str:
    """A TOML document with every top-level key on its own line (tables inline)."""
    return "".join(f"{_toml_key(k)} = {toml_value(v)}\n" for k, v in doc.items())


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.symlink(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _write_smoke_dataset(data: Any, qids: list[str], folder: Path) -> None:
    """A BEIR folder: the corpus (linked), the smoke queries and their judgments; other dataset files linked."""
    from hcrbench.data.beir import write_beir_qrels, write_queries

    folder.mkdir(parents=True)
    (folder / "qrels").mkdir()
    beir = "corpus.jsonl" in data.files  # a BEIR folder (not files named one by one)
    if beir:
        _link_or_copy((data.root / "corpus.jsonl").resolve(), folder / "corpus.jsonl")
    else:
        from hcrbench.data.beir import write_corpus

        write_corpus(data.corpus, folder / "corpus.jsonl")
    if beir:  # evidence.jsonl and the like, read by the context step and HCR
        for p in sorted(data.root.iterdir()):
            if p.is_file() and p.name not in ("corpus.jsonl", "queries.jsonl", "manifest.json"):
                _link_or_copy(p.resolve(), folder / p.name)
    write_queries(data.queries.subset(qids), folder / "queries.jsonl")
    write_beir_qrels(data.qrels.subset(qids), folder / "qrels" / f"{data.split}.tsv")


def _derived_config(raw: dict[str, Any], output_dir: Path, smoke_dir: Path | None, split: str) -> str:
    doc = dict(raw)
    doc["output_dir"] = str(output_dir)
    if smoke_dir is not None:
        dataset = dict(doc.get("dataset") or {})
        for key in ("path", "corpus", "queries", "qrels", "labelled", "labelled_field", "generate", "size",
                    "generate_seed"):
            dataset.pop(key, None)
        doc["dataset"] = {"path": str(smoke_dir), "split": split, **dataset}
    # top-level scalars first: a TOML key after an inline table is fine, but keep the file readable
    return dump_toml(doc)


@contextlib.contextmanager
def run_suite(config_path: str | Path, *, smoke: bool = False, smoke_seed: int | None = None,
              reuse: bool = False, progress: bool = True,
              before_run: Callable[[dict[str, str]], None] | None = None) -> Iterator[SuiteRun]:
    """Run the suite of ``config_path`` (see the module docstring); yields a :class:`SuiteRun`.

    ``before_run`` is called with the input files' SHA-256 (``{relpath: sha256}``, as the manifest will record
    them) before any system runs, so a caller can refuse a changed dataset early. The temporary output folder
    (and the config copy) are removed when the ``with`` block ends.
    """
    from hcrbench.experiment.config import load_config
    from hcrbench.experiment.dataset import load_data
    from hcrbench.experiment.runner import output_dir_of, run_experiment

    config_path = Path(config_path)
    cfg, text = load_config(config_path)
    started = time.time()
    if before_run is not None and not smoke:
        before_run(load_data(cfg.dataset, config_path.parent, config_path, text).files)
    if reuse and not smoke:
        result = run_experiment(config_path, progress=progress)
        yield SuiteRun(output_dir_of(cfg, config_path), config_path, text, started, result)
        return
    scratch = Path(tempfile.mkdtemp(prefix="hcrbench-check-"))
    derived: Path | None = None
    try:
        smoke_info = None
        smoke_dir = None
        if smoke:
            seed = cfg.seed if smoke_seed is None else smoke_seed
            data = load_data(cfg.dataset, config_path.parent, config_path, text)
            qids = smoke_selection(data.queries, data.qrels, seed=seed)
            if not qids:
                raise InputError("no judged query to make a smoke suite from", path=config_path, field="dataset")
            smoke_dir = scratch / "smoke-data"
            _write_smoke_dataset(data, qids, smoke_dir)
            if before_run is not None:
                from hcrbench.data.hashing import sha256_file

                before_run({rel: sha256_file(smoke_dir / rel)
                            for rel in ("corpus.jsonl", "queries.jsonl", f"qrels/{data.split}.tsv")})
            smoke_info = {"seed": seed, "n": SMOKE_QUERIES, "per_category": SMOKE_PER_CATEGORY,
                          "field": SMOKE_FIELD, "query_ids": qids}
        raw = parse_toml(text, path=config_path)
        try:
            fd, name = tempfile.mkstemp(prefix=f".{config_path.stem}.check-", suffix=".toml",
                                        dir=config_path.parent.resolve())
        except OSError as e:
            raise InputError(f"cannot write a temporary copy of the config beside it ({e.strerror or e})",
                             path=config_path) from None
        os.close(fd)
        derived = Path(name)
        atomic_write_text(derived, _derived_config(raw, scratch / "out", smoke_dir, cfg.dataset.split))
        try:
            result = run_experiment(derived, progress=progress)
        except InputError as e:  # name the user's config, not the temporary copy
            if e.path is not None and Path(e.path) == derived:
                raise InputError(e.problem, path=config_path, field=e.field) from None
            raise
        yield SuiteRun(scratch / "out", config_path, text, started, result, smoke_info)
    finally:
        if derived is not None:
            derived.unlink(missing_ok=True)
        shutil.rmtree(scratch, ignore_errors=True)
