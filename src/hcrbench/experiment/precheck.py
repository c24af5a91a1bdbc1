"""Every system of a config checked before any work starts: its type, its parameter names and values, and a
runfile's file, each problem one line naming the config file, the line and ``systems[i].FIELD``.

A retriever constructed only when its turn comes would report an unknown parameter after the systems before it
had encoded the corpus. Constructing a built-in retriever does no work (models load when it indexes), so all of
them are built once here and dropped; a replayed run's file (``runfile``) is checked for existence rather than
read, and a plugin is not imported here (its parameters are checked when it is built).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError
from hcrbench.experiment.tomlpos import locate


def check_systems(systems: list[Any], config_path: Path, text: str) -> None:
    """Raise the first problem of any system in ``systems`` (the config's ``[[systems]]``, in order)."""
    from hcrbench.experiment.reads import READ_PARAMS, reads_of
    from hcrbench.retrieve import (
        available_retrievers,
        check_params,
        is_builtin,
        is_known,
        make_retriever,
        traits,
    )

    names = [s.name for s in systems]
    for i, s in enumerate(systems):
        params = dict(s.params or {})
        if reads_of(s, names) is not None:  # another system's output of this run (its routing log): not there yet
            params = {k: v for k, v in params.items() if not (k in READ_PARAMS and v in names)}
        try:
            for key, value in params.items():
                if not _finite(value):  # TOML reads nan and inf: no retriever means them
                    raise InputError(f"must be a finite number, got {value!r}", field=key)
            if s.type == "runfile":
                path = params.get("path")
                if path and not Path(str(path)).expanduser().is_file():
                    raise InputError(f"run file {path} not found", field="path")
                if "paths" in params:
                    from hcrbench.retrieve.runfile import check_paths

                    if path:
                        raise InputError("give path (one file) or paths (one file per split), not both",
                                         field="paths")
                    check_paths(params["paths"])
            if is_builtin(s.type) and traits(s.type).stage != "replay":
                make_retriever(s.type, **params)
            else:  # a plugin, or a replayed run (built, it reads its file): the name and the parameter names only
                if not is_known(s.type):
                    raise InputError(f"unknown system {s.type!r} (available: "
                                     f"{', '.join(available_retrievers())})", field="system")
                check_params(s.type, params)
        except InputError as e:
            field = e.field or "type"
            if field == "system":
                keys, name = ("systems", i, "type"), "type"
            elif field == "param":
                keys, name = ("systems", i, "params"), "params"
            else:
                keys, name = ("systems", i, "params", field), f"params.{field}"
            line = locate(text, keys) or locate(text, ("systems", i, "params")) or locate(text, ("systems", i))
            raise InputError(e.problem, path=config_path, line=line, field=f"systems[{i}].{name}") from None


def check_run_ids(systems: list[Any], data: Any, config_path: Path, text: str, subject: str | None = None) -> None:
    """Every run file of a runfile system with ``paths`` (one file per split) against the loaded data: a docid
    the corpus does not hold, or a qid that is not a query of the file's split, is one line
    ``FILE:LINE: unknown docid X`` (or ``unknown qid X``), exit 2, before any work. The one file (``path``) of
    the protocol's ``subject`` is parsed now (a bad line is named before any work) and its docids checked the
    same way (queries of other splits in it stay ignored): a subject scored on ids the corpus does not hold
    would score 0 on them without a word."""
    from hcrbench.data.trec import read_qrels
    from hcrbench.retrieve.runfile import check_paths, first_unknown

    known: dict[str, set[str]] = {}
    for i, s in enumerate(systems):
        one = (s.params or {}).get("path")
        if s.type == "runfile" and s.name == subject and isinstance(one, str) and Path(one).is_file():
            _parse(Path(one))
            hit = first_unknown(one, docs=_ids_of(s, data))
            if hit is not None:
                raise InputError(f"unknown docid {hit[1]} (not in the corpus; the system under test must "
                                 "return ids of corpus.jsonl)", path=one, line=hit[0])
        if s.type != "runfile" or not isinstance((s.params or {}).get("paths"), dict):
            continue
        for path in check_paths(s.params["paths"]).values():
            _parse(path)
        for split, path in check_paths(s.params["paths"]).items():
            if split not in known:
                qp = Path(data.root) / "qrels" / f"{split}.tsv"
                if split == data.split:
                    known[split] = set(data.qrels.query_ids)
                elif qp.is_file():
                    known[split] = set(read_qrels(qp).query_ids)
                else:
                    raise InputError(f"the dataset {data.root} has no {split} split (no qrels/{split}.tsv)",
                                     path=config_path, line=locate(text, ("systems", i, "params")),
                                     field=f"systems[{i}].params.paths.{split}")
            hit = first_unknown(path, docs=_ids_of(s, data), qids=known[split])
            if hit is not None:
                line, x, kind = hit
                where = (("not in the corpus" if s.chunking is None else "neither a document nor a chunk of its "
                          "chunking") if kind == "docid" else f"not a query of the {split} split")
                raise InputError(f"unknown {kind} {x} ({where})", path=path, line=line)


def _parse(path: Path) -> None:
    """Read the run file ``path`` once now, so a malformed line is ``FILE:LINE: field: problem`` before any work
    (its warnings are given when the system reads it)."""
    import warnings

    from hcrbench.data.trec import read_run

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_run(path)


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    return True


def chunk_runfiles(cfg: Any, data: Any) -> Any:
    """``cfg`` with every runfile system that has no ``chunking`` table and whose files name passages rather than
    documents (every id a chunk id of the context chunks: ``context.chunk_tokens`` tokens, no overlap,
    sentence-respecting, as the context step cuts documents) given those context chunks as its chunking: it is
    then a unit-delivering system like any chunked one (scored on documents by its best chunk, its own chunks
    delivered as they are ranked). Decided by the first id of each file that is no document: a context chunk's
    id makes it a passage run (the id checks then name any id that is neither); anything else leaves it as it is
    (the id checks name that id)."""
    from hcrbench.experiment.config import ChunkingConfig
    from hcrbench.retrieve.runfile import first_unknown

    chunk_ids: set[str] | None = None
    systems = list(cfg.systems)
    changed = False
    for i, s in enumerate(systems):
        if s.type != "runfile" or s.chunking is not None:
            continue
        params = s.params or {}
        files = [params["path"]] if isinstance(params.get("path"), str) else \
            [p for p in (params.get("paths") or {}).values() if isinstance(p, str)]
        files = [f for f in files if Path(f).expanduser().is_file()]
        if not files or all(first_unknown(f, docs=data.corpus) is None for f in files):
            continue
        if chunk_ids is None:
            from hcrbench.data.chunking import chunk_corpus
            from hcrbench.data.tokens import get_counter

            cc = cfg.context
            chunk_ids = set(chunk_corpus(data.corpus, max_tokens=cc.chunk_tokens, overlap=0,
                                         counter=get_counter(cc.token_counter)).corpus.doc_ids)
        if all(hit is None or hit[1] in chunk_ids for hit in (first_unknown(f, docs=data.corpus) for f in files)):
            systems[i] = s.model_copy(update={"chunking": ChunkingConfig(
                max_tokens=cfg.context.chunk_tokens, overlap=0, token_counter=cfg.context.token_counter)})
            changed = True
    return cfg.model_copy(update={"systems": systems}) if changed else cfg


def _ids_of(system: Any, data: Any) -> Any:
    """The ids a runfile system's file may name: the corpus's documents, or its chunking's chunk ids."""
    c = system.chunking
    if c is None:
        return data.corpus
    from hcrbench.data.chunking import chunk_corpus
    from hcrbench.data.tokens import get_counter

    return set(chunk_corpus(data.corpus, max_tokens=c.max_tokens, overlap=c.overlap,
                            respect_sentences=c.respect_sentences, structure_aware=c.structure_aware,
                            counter=get_counter(c.token_counter)).corpus.doc_ids)
