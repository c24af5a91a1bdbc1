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
from pathlib import Path
from typing import Any

from hcrbench.data.structured import read_json

DEV_SPLIT = "dev"
DEV_LOGS = "logs/dev"


def _dev_data(data: Any) -> Any | None:
    from hcrbench.data.beir import read_queries
    from hcrbench.data.hashing import sha256_file
    from hcrbench.data.trec import read_qrels
    from hcrbench.experiment.dataset import ExperimentData

    root = Path(data.root)
    qp, qpath = root / "qrels" / f"{DEV_SPLIT}.tsv", root / "queries.jsonl"
    if data.split == DEV_SPLIT or not qp.is_file() or not qpath.is_file():
        return None
    qrels = read_qrels(qp, name=f"{root.name}/{DEV_SPLIT}")
    queries = read_queries(qpath)
    queries = queries.subset([q for q in qrels.query_ids if q in queries])
    files = {k: v for k, v in data.files.items() if not k.startswith("qrels/")}
    files[f"qrels/{DEV_SPLIT}.tsv"] = sha256_file(qp)
    return ExperimentData(data.corpus, queries, qrels, DEV_SPLIT, root, dict(sorted(files.items())))


def not_run(why: str) -> dict[str, Any]:
    return {"status": "not run", "split": DEV_SPLIT, "chosen": None, "scores": {}, "text": f"not run: {why}"}


def dev_selection(cfg: Any, data: Any, out: Path) -> dict[str, Any]:
    """Choose H1b's single path on the dev split (see the module docstring)."""
    import numpy as np

    from hcrbench.data.atomic import atomic_write_text
    from hcrbench.data.trec import read_run, write_run
    from hcrbench.experiment.cell import run_system
    from hcrbench.experiment.manifest import sha256_json
    from hcrbench.experiment.runner import system_fingerprint
    from hcrbench.metrics import evaluate

    p = cfg.protocol
    singles = [s for n in (p.beam_only, p.collapsed_only) if n is not None
               for s in cfg.systems if s.name == n]
    if len(singles) < 2:
        return not_run("fewer than two single paths in [protocol] (beam_only, collapsed_only)")
    ddata = _dev_data(data)
    if ddata is None:
        return not_run(f"the dataset has no '{DEV_SPLIT}' split (H1b compares the dual path with each single path, "
                       "Holm over them)")
    folder = out / DEV_LOGS
    m = p.metric
    scores: dict[str, float] = {}
    for system in singles:
        run_path, stamp = folder / f"{system.name}.trec", folder / f"{system.name}.fingerprint.json"
        fp = system_fingerprint(system, cfg, sha256_json({"data": ddata.key}))
        fresh = stamp.is_file() and read_json(stamp).get("fingerprint") == fp
        if fresh and run_path.is_file():
            run = read_run(run_path, name=system.name)
        else:
            folder.mkdir(parents=True, exist_ok=True)
            run, _ = run_system(system, ddata, cfg.k, cfg.seed if system.seed is None else system.seed)
            write_run(run, run_path, tag=system.name)
            atomic_write_text(stamp, json.dumps({"fingerprint": fp, "split": DEV_SPLIT,
                                                 "n_queries": len(ddata.queries)}) + "\n")
        ev = evaluate(ddata.qrels, {system.name: run}, [m], rel_threshold=cfg.rel_threshold, missing="zero")
        scores[system.name] = round(float(np.mean(np.asarray(ev.runs[system.name].values[m], dtype=float))), 6)
    chosen = max(scores, key=lambda n: (scores[n], -list(scores).index(n)))  # ties: the first (beam-only)
    n_q = len(ddata.queries)
    words = ", ".join(f"{n} {s:.3f}" for n, s in scores.items())
    return {"status": "selected", "split": DEV_SPLIT, "metric": m, "n_queries": n_q, "rule": "H1b",
            "scores": scores, "chosen": chosen,
            "text": f"H1b's single path chosen on the {DEV_SPLIT} split ({n_q} queries) by {m}: {chosen} ({words}); "
                    "the test split compares the dual path with it once"}
