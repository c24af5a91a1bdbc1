"""Load an experiment's corpus, queries and judgments from its ``[dataset]`` table, and hash the files."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from hcrbench.data.beir import read_corpus, read_queries
from hcrbench.data.hashing import sha256_file
from hcrbench.data.labelled import labelled_qrels, labelled_queries, read_labelled
from hcrbench.data.splitlock import split_key
from hcrbench.data.trec import read_qrels
from hcrbench.data.types import Corpus, Qrels, Queries
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.experiment.config import DatasetConfig, locate


@dataclass
class ExperimentData:
    """What the systems run on. ``files`` maps each input file (relative to ``root``) to its SHA-256."""

    corpus: Corpus
    queries: Queries
    qrels: Qrels
    split: str
    root: Path
    files: dict[str, str]
    #: whether this run looks at the split anew: False when every system's scores were reused unchanged from
    #: the folder's previous run (a warm re-run shows the same numbers; it is not another look at a locked split)
    new_look: bool = True

    @cached_property
    def worlds(self) -> dict[str, tuple[Corpus, Queries]]:
        """``{"w02": (its documents, its queries of this split), ...}`` when ``root`` holds several Meridian worlds
        (``generate meridian --worlds K``), in world order, for the worlds with queries here; ``{}`` for a dataset
        of one world. Every system is built and searched per world (:func:`~hcrbench.experiment.cell.run_system`):
        a query retrieves only from its own world."""
        from hcrbench.synth.worlds import is_multiworld, world_name, world_of

        if not is_multiworld(self.root):
            return {}
        docs: dict[int, list[str]] = {}
        for d in self.corpus.doc_ids:
            w = world_of(d)
            if w is None:
                raise InputError(f"document {d!r} carries no world prefix (wNN-) in a folder of several worlds",
                                 path=self.root / "corpus.jsonl", field="_id")
            docs.setdefault(w, []).append(d)
        qs: dict[int, list[str]] = {}
        for q in self.queries.query_ids:
            w = world_of(q)
            if w is None or w not in docs:
                raise InputError(f"query {q!r} names no world of this folder (ids start wNN-)",
                                 path=self.root / "queries.jsonl", field="_id")
            qs.setdefault(w, []).append(q)
        return {world_name(w): (self.corpus.subset(docs[w]), self.queries.subset(qs[w])) for w in sorted(qs)}

    def world_info(self) -> dict[str, Any]:
        """What the manifest records of the worlds this split holds: ``{"wNN": {"n_documents", "n_queries"}}``."""
        return {w: {"n_documents": len(c), "n_queries": len(q)} for w, (c, q) in self.worlds.items()}

    @property
    def key(self) -> str:
        """Content key of this split (the lock registry's key; part of every system's fingerprint). On a dataset of
        several worlds it covers the split's judgments and the worlds its queries come from (each by the SHA-256
        of its manifest), not the pooled corpus: adding test worlds leaves the tune and dev splits' keys as they
        were, so what was computed on them is reused."""
        if self.worlds:
            return split_key({**{k: v for k, v in self.files.items() if k.startswith("qrels/")},
                              **{f"worlds/{w}": h for w, h in self.world_manifests.items()}}, self.split)
        return split_key(self.files, self.split)

    @cached_property
    def world_manifests(self) -> dict[str, str | None]:
        """``{"w02": SHA-256 of its manifest.json}`` for the worlds this split's queries come from."""
        from hcrbench.synth.worlds import world_manifest_hashes

        listed = world_manifest_hashes(self.root)
        return {w: listed.get(w) for w in self.worlds}

    def split_corpus(self) -> Corpus:
        """The documents this split's queries can retrieve: the corpus, or on a dataset of several worlds the
        documents of the split's worlds (what a step that reads documents depends on)."""
        if not self.worlds:
            return self.corpus
        ids = [d for c, _ in self.worlds.values() for d in c.doc_ids]
        return self.corpus.subset(ids)


def _resolve(value: str, base: Path, key: str, config_path: Path, text: str, *, folder: bool) -> Path:
    p = Path(value).expanduser()
    p = p if p.is_absolute() else base / p
    ok = p.is_dir() if folder else p.is_file()
    if not ok:
        what = "folder" if folder else "file"
        problem = f"{what} not found: {p}" if not p.exists() else f"not a {what}: {p}"
        raise InputError(problem, path=config_path, line=locate(text, ("dataset", key)), field=f"dataset.{key}")
    return p


def _generate_if_missing(cfg: DatasetConfig, base: Path) -> None:
    """Generate the built-in Meridian corpus into ``cfg.path`` unless this generator's folder for the config's size,
    seed and suite is already there (a folder an earlier generator version wrote is regenerated, with a warning)."""
    from hcrbench.synth.generate import ensure_meridian

    target = Path(cfg.path or "").expanduser()
    target = target if target.is_absolute() else base / target
    from hcrbench.synth.worlds import is_multiworld

    if cfg.worlds == 1 and is_multiworld(target):
        from hcrbench.data.structured import read_json

        k = read_json(target / "manifest.json").get("worlds")
        raise InputError(f"{target} holds {k} Meridian worlds: say so with worlds = {k} in [dataset] (or leave "
                         "generate out), so the folder is neither regenerated as one world nor searched as one",
                         field="dataset.worlds")
    if cfg.worlds > 1:
        from hcrbench.synth.worlds import ensure_worlds

        ensure_worlds(target, size=cfg.size, seed=cfg.generate_seed, n_queries=cfg.generate_queries,
                      worlds=cfg.worlds, look=cfg.look)
        return
    done = ensure_meridian(target, size=cfg.size, seed=cfg.generate_seed, n_queries=cfg.generate_queries,
                           grow=cfg.grow)
    if done.startswith("regenerated"):
        warnings.warn(f"{target}: {done}", HcrbenchWarning, stacklevel=2)


def load_data(cfg: DatasetConfig, base: Path, config_path: Path, text: str = "") -> ExperimentData:
    """Read the dataset named by ``cfg`` (paths relative to ``base``, the config file's folder)."""
    if cfg.path is not None and cfg.generate == "meridian":
        _generate_if_missing(cfg, base)
    if cfg.path is not None and cfg.path.startswith("irds:"):  # an ir_datasets id: its BEIR copy (data/irds.py)
        from hcrbench.data.irds import irds_folder

        try:
            root = irds_folder(cfg.path, cfg.split).resolve()
        except InputError as e:
            raise InputError(e.problem, path=config_path, line=locate(text, ("dataset", "path")),
                             field="dataset.path") from None
    elif cfg.path is not None:
        root = _resolve(cfg.path, base, "path", config_path, text, folder=True).resolve()
    if cfg.path is not None:
        corpus_p = root / "corpus.jsonl"
        queries_p = root / "queries.jsonl"
        qrels_p: Path | None = root / "qrels" / f"{cfg.split}.tsv"
        for p in (corpus_p, queries_p) + ((qrels_p,) if cfg.labelled is None else ()):
            if not p.is_file():
                avail = sorted(x.stem for x in (root / "qrels").glob("*.tsv")) if p == qrels_p else []
                hint = f" (available splits: {', '.join(avail)})" if avail else ""
                key = "split" if p == qrels_p else "path"
                raise InputError(f"BEIR folder {root} has no {p.relative_to(root)}{hint}", path=config_path,
                                 line=locate(text, ("dataset", key)), field=f"dataset.{key}")
        if cfg.labelled is not None:
            qrels_p = None
    else:
        root = base.resolve()
        corpus_p = _resolve(cfg.corpus or "", base, "corpus", config_path, text, folder=False).resolve()
        queries_p = (_resolve(cfg.queries, base, "queries", config_path, text, folder=False).resolve()
                     if cfg.queries is not None else None)
        qrels_p = (_resolve(cfg.qrels, base, "qrels", config_path, text, folder=False).resolve()
                   if cfg.qrels is not None and cfg.labelled is None else None)
    labelled_p = (_resolve(cfg.labelled, base, "labelled", config_path, text, folder=False).resolve()
                  if cfg.labelled is not None else None)

    corpus = read_corpus(corpus_p)
    if labelled_p is not None:
        spec = read_labelled(labelled_p)
        qrels = labelled_qrels(spec, corpus, field=cfg.labelled_field, name=f"labelled/{cfg.split}")
        if any(q.text for q in spec):
            missing = [q.query_id for q in spec if not q.text]
            if missing:
                warnings.warn(f"{len(missing)} labelled queries have no text and are not run: "
                              f"{', '.join(missing[:5])}", HcrbenchWarning, stacklevel=2)
            queries = labelled_queries(spec)
        elif queries_p is not None:
            queries = read_queries(queries_p)
        else:
            raise InputError("labelled queries carry no 'text' and no queries file is given", path=config_path,
                             line=locate(text, ("dataset", "labelled")), field="dataset.labelled")
    else:
        assert qrels_p is not None and queries_p is not None
        qrels = read_qrels(qrels_p, name=f"{root.name}/{cfg.split}")
        queries = read_queries(queries_p)
    judged = [q for q in qrels.query_ids if q in queries]
    lost = len(qrels.query_ids) - len(judged)
    if lost:
        warnings.warn(f"{lost} judged queries have no query text and cannot be run (they score 0)",
                      HcrbenchWarning, stacklevel=2)
    queries = queries.subset(judged)

    used = [p for p in (corpus_p, queries_p, qrels_p, labelled_p) if p is not None]
    files: dict[str, str] = {}
    for p in used:
        try:
            rel = p.relative_to(root).as_posix()
        except ValueError:
            rel = p.as_posix()
        files[rel] = sha256_file(p)
    return ExperimentData(corpus, queries, qrels, cfg.split, root, dict(sorted(files.items())))
