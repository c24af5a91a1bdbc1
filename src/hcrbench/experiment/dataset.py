"""Load an experiment's corpus, queries and judgments from its ``[dataset]`` table, and hash the files."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

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

    @property
    def key(self) -> str:
        """Content key of this split (the lock registry's key; part of every system's fingerprint)."""
        return split_key(self.files, self.split)


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
    done = ensure_meridian(target, size=cfg.size, seed=cfg.generate_seed, n_queries=cfg.generate_queries,
                           grow=cfg.grow)
    if done.startswith("regenerated"):
        warnings.warn(f"{target}: {done}", HcrbenchWarning, stacklevel=2)


def _refuse_worlds(value: str, base: Path, config_path: Path, text: str) -> None:
    """Refuse a folder of several Meridian worlds (``generate meridian --worlds K``) in one line: systems are not
    yet built and searched per world, and over the pooled corpus each query would search every world's documents
    (K times the size its world has), a different benchmark from the one the folder describes. Checked before
    ``generate = "meridian"`` could regenerate the folder as one world."""
    from hcrbench.synth.worlds import WORLDS_DIR, is_multiworld, world_name

    p = Path(value).expanduser()
    p = p if p.is_absolute() else base / p
    if is_multiworld(p):
        raise InputError(f"{p} holds several Meridian worlds (generate meridian --worlds); runs do not search per "
                         f"world yet and the pooled corpus would put every world's documents before each query: "
                         f"point path at one world ({p / WORLDS_DIR / world_name(0)}, its queries split 60/20/20), "
                         f"or score per-world runs with hcrbench evaluate against {p}/qrels/<split>.tsv",
                         path=config_path, line=locate(text, ("dataset", "path")), field="dataset.path")


def load_data(cfg: DatasetConfig, base: Path, config_path: Path, text: str = "") -> ExperimentData:
    """Read the dataset named by ``cfg`` (paths relative to ``base``, the config file's folder)."""
    if cfg.path is not None and not cfg.path.startswith("irds:"):
        _refuse_worlds(cfg.path, base, config_path, text)
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
