"""Dev selects between variants: H1b's single path is chosen on the DEV split, before the test split is read
for it; the test split then compares the dual path with that one path, once.

:func:`dev_selection` runs each single path of ``[protocol]`` (``beam_only``, ``collapsed_only``) on every query
of the dataset's ``dev`` split (runs kept under ``logs/dev/`` and reused while their fingerprint holds), scores
them by the protocol metric and picks the best (ties: the first, beam-only). ``verdicts.json["dev_selection"]``
(and ``["tuning"]["dev_selection"]``) records the scores and the choice. Without a dev split (SciFact) nothing is
chosen and H1b compares the dual path with each single path, Holm over them (the best one is then beaten too).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from hcrbench.data.structured import read_json

DEV_SPLIT = "dev"
DEV_LOGS = "logs/dev"


class NeedsRun(Exception):
    """Raised by :func:`split_runs` under :func:`dry_run` at the first run it would have to compute."""


_DRY: ContextVar[bool] = ContextVar("split_runs_dry", default=False)


@contextmanager
def dry_run() -> Iterator[None]:
    """:func:`split_runs` computes nothing within: a run that is missing or stale raises :class:`NeedsRun`."""
    token = _DRY.set(True)
    try:
        yield
    finally:
        _DRY.reset(token)


def needs_run(name: str) -> None:
    """Under :func:`dry_run`, raise :class:`NeedsRun` for ``name`` (a run about to be computed); else nothing."""
    if _DRY.get():
        raise NeedsRun(name)


def split_data(data: Any, split: str) -> Any | None:
    """The experiment's corpus with the queries and qrels of another split of the same dataset (None when the
    dataset has no such split, or it is the split the experiment scores)."""
    from hcrbench.data.beir import read_queries
    from hcrbench.data.hashing import sha256_file
    from hcrbench.data.trec import read_qrels
    from hcrbench.experiment.dataset import ExperimentData

    root = Path(data.root)
    qp, qpath = root / "qrels" / f"{split}.tsv", root / "queries.jsonl"
    if data.split == split or not qp.is_file() or not qpath.is_file():
        return None
    qrels = read_qrels(qp, name=f"{root.name}/{split}")
    queries = read_queries(qpath)
    queries = queries.subset([q for q in qrels.query_ids if q in queries])
    files = {k: v for k, v in data.files.items() if not k.startswith("qrels/")}
    files[f"qrels/{split}.tsv"] = sha256_file(qp)
    return ExperimentData(data.corpus, queries, qrels, split, root, dict(sorted(files.items())))


def _dev_data(data: Any) -> Any | None:
    return split_data(data, DEV_SPLIT)


def split_runs(cfg: Any, sdata: Any, folder: Path, names: list[str],
               failed: dict[str, str] | None = None, logs: tuple[str, ...] = ()) -> dict[str, Any]:
    """``{name: run}`` of the systems ``names`` of ``cfg`` on ``sdata`` (another split), kept in ``folder`` and
    reused while their fingerprint holds. A system that reads another (the kill baseline's fairness depth,
    ``top_n_from``) reads that system's routing log on this split, so its source runs first, with its log; so
    does a system named in ``logs`` (the easy-routing checkpoint reads the protocol system's). A system that is
    the same computation as one already in ``folder`` (the same fingerprint: it differs only in its name or its
    context selection) is that one's run, copied, as the experiment's twin cells are.

    With ``failed`` (a dict), a system that cannot run on this split (a run file of the test queries only) is
    left out with its one-line reason there (and so is a system reading it); without it, the error stands."""
    from hcrbench.data.atomic import atomic_write_text
    from hcrbench.data.trec import read_run, write_run
    from hcrbench.errors import InputError
    from hcrbench.experiment.cell import run_system
    from hcrbench.experiment.manifest import sha256_json
    from hcrbench.experiment.reads import fingerprint_with_reads, reads_of
    from hcrbench.experiment.runner import system_fingerprint

    order = [s.name for s in cfg.systems]
    by_name = {s.name: s for s in cfg.systems}
    want = [n for n in order if n in names]
    sources = {n: src for n in want if (src := reads_of(by_name[n], order)) is not None}
    want = [n for n in order if n in set(want) | set(sources.values())]  # a source runs before its reader
    read = set(sources.values()) | set(logs)
    fps: dict[str, str] = {}
    runs: dict[str, Any] = {}
    for name in want:
        system = by_name[name]
        src = sources.get(name)
        fp = fps[name] = fingerprint_with_reads(system_fingerprint(system, cfg, sha256_json({"data": sdata.key})),
                                                src, fps)
        if src is not None and failed is not None and src in failed:
            failed[name] = f"reads {src}, which did not run on the {sdata.split} split"
            continue
        if src is not None:
            params = {**system.params, "top_n_from": str((folder / f"{src}.routing.jsonl").resolve())}
            system = system.model_copy(update={"params": params})
        run_path, stamp = folder / f"{name}.trec", folder / f"{name}.fingerprint.json"
        log = folder / f"{name}.routing.jsonl" if name in read else None
        fresh = stamp.is_file() and read_json(stamp).get("fingerprint") == fp
        if fresh and run_path.is_file() and (log is None or log.is_file()):
            runs[name] = read_run(run_path, name=name)
            continue
        twin = _twin_of(folder, name, fp, [n for n in order if n != name], log is not None)
        if twin is not None:
            runs[name] = _copy_twin(folder, twin, name, [n for n in order if n != twin], log is not None, stamp)
            continue
        needs_run(name)
        folder.mkdir(parents=True, exist_ok=True)
        try:
            run, _ = run_system(system, sdata, cfg.k, cfg.seed if system.seed is None else system.seed,
                                log_path=log)
        except InputError as e:
            from hcrbench.retrieve.checked import plugin_value

            if failed is None or plugin_value(system.type) is not None:  # a plugin's own mistake: now, not
                raise  # after the field has run on the test split
            failed[name] = e.problem
            continue
        write_run(run, run_path, tag=name)
        atomic_write_text(stamp, json.dumps({"fingerprint": fp, "split": sdata.split,
                                             "n_queries": len(sdata.queries)}) + "\n")
        runs[name] = run
    return runs


def _twin_of(folder: Path, name: str, fp: str, others: list[str], with_log: bool) -> str | None:
    """Another system whose run in ``folder`` is fresh at the fingerprint ``fp`` (with its routing log when one
    is wanted), else None."""
    for other in others:
        stamp, run_path = folder / f"{other}.fingerprint.json", folder / f"{other}.trec"
        if not (stamp.is_file() and run_path.is_file()) or read_json(stamp).get("fingerprint") != fp:
            continue
        if not with_log or (folder / f"{other}.routing.jsonl").is_file():
            return other
    return None


def _copy_twin(folder: Path, source: str, name: str, others: list[str], with_log: bool, stamp: Path) -> Any:
    """``source``'s run in ``folder`` written as ``name``'s (the same scores, ``name``'s tag), with its routing
    log, trees and per-world parts when ``with_log``, and ``source``'s fingerprint stamp."""
    from hcrbench.data.atomic import atomic_write_bytes
    from hcrbench.data.trec import read_run, write_run

    run = read_run(folder / f"{source}.trec", name=name)
    if with_log:
        longer = [o + "." for o in others if o.startswith(source + ".")]  # another system's files, not source's
        for sub in (folder, folder / "worlds"):
            for f in sorted(sub.iterdir()) if sub.is_dir() else ():
                if (f.is_file() and f.name.startswith(source + ".") and not any(f.name.startswith(o) for o in longer)
                        and not f.name.endswith((".trec", ".fingerprint.json"))):
                    atomic_write_bytes(sub / (name + f.name[len(source):]), f.read_bytes())
    write_run(run, folder / f"{name}.trec", tag=name)
    atomic_write_bytes(stamp, (folder / f"{source}.fingerprint.json").read_bytes())
    return run


def not_run(why: str) -> dict[str, Any]:
    return {"status": "not run", "split": DEV_SPLIT, "chosen": None, "scores": {}, "text": f"not run: {why}"}


def dev_selection(cfg: Any, data: Any, out: Path) -> dict[str, Any]:
    """Choose H1b's single path on the dev split (see the module docstring)."""
    import numpy as np

    from hcrbench.metrics import evaluate

    p = cfg.protocol
    singles = [s for n in (p.beam_only, p.collapsed_only) if n is not None
               for s in cfg.systems if s.name == n]
    if len(singles) < 2:
        from hcrbench.protocol.gating import writes_routing_log

        if not writes_routing_log(cfg):  # the dual path is a tree's: nothing to choose for this subject
            return not_run(f"{p.system} has no dual path (the dual-path rule, H1b, is a tree retriever's)")
        return not_run("fewer than two single paths in [protocol] (beam_only, collapsed_only)")
    ddata = _dev_data(data)
    if ddata is None:
        return not_run(f"the dataset has no '{DEV_SPLIT}' split (H1b compares the dual path with each single path, "
                       "Holm over them)")
    m = p.metric
    runs = split_runs(cfg, ddata, out / DEV_LOGS, [x.name for x in singles])
    scores: dict[str, float] = {}
    for system in singles:
        ev = evaluate(ddata.qrels, {system.name: runs[system.name]}, [m], rel_threshold=cfg.rel_threshold,
                      missing="zero")
        scores[system.name] = round(float(np.mean(np.asarray(ev.runs[system.name].values[m], dtype=float))), 6)
    chosen = max(scores, key=lambda n: (scores[n], -list(scores).index(n)))  # ties: the first (beam-only)
    n_q = len(ddata.queries)
    words = ", ".join(f"{n} {s:.3f}" for n, s in scores.items())
    return {"status": "selected", "split": DEV_SPLIT, "metric": m, "n_queries": n_q, "rule": "H1b",
            "scores": scores, "chosen": chosen,
            "text": f"H1b's single path chosen on the {DEV_SPLIT} split ({n_q} queries) by {m}: {chosen} ({words}); "
                    "the test split compares the dual path with it once"}
