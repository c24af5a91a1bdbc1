"""The scoring stage's and the tree metrics' shared work, old vs new side by side in one process.

Part 1 (always): :func:`hcrbench.stats.bootstrap.bootstrap_means` against the plain 64-bit draw and float mean it
replaced (kept here), on a 0/1 rate and on real-valued scores of ``--n`` queries with ``--resamples`` resamples:
the CPU seconds per call of each, their ratio, and a check that the means are the same bytes.

Part 2 (with ``--run DIR``, a finished run folder such as a quickstart's, copied to a temporary folder first):
the whole context step (:func:`hcrbench.experiment.context_step.context_step`) and the tree metrics
(:func:`hcrbench.experiment.tree_step.tree_step`) timed twice on the same inputs: "old" with every shared piece
switched off (a fresh cover memo per call, no judgement memo, no tree memo, the old bootstrap draw), "new" as
shipped; CPU seconds of each, the ratio, and a check that every contexts file, the sufficiency document and the
tree metrics are the same bytes. The folder's memo is removed before each timing (nothing reused).

    python benchmarks/bench_scoring_memo.py [--n 285] [--resamples 10000] [--calls 30] [--run DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np


def reference_means(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """bootstrap_means as it was: 64-bit indices, float mean, the same chunks."""
    from hcrbench.stats.bootstrap import _CHUNK_ENTRIES

    n = x.size
    out = np.empty(n_resamples)
    chunk = max(1, min(n_resamples, _CHUNK_ENTRIES // n))
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        idx = rng.integers(0, n, size=(rows, n))
        out[start : start + rows] = x[idx].mean(axis=1)
    return out


def bench_bootstrap(n: int, resamples: int, calls: int) -> None:
    from hcrbench.stats.bootstrap import bootstrap_means

    rng = np.random.default_rng(0)
    for kind, x in (("0/1 rate", (rng.random(n) < 0.4).astype(np.float64)), ("real scores", rng.random(n))):
        times = {}
        for label, f in (("old", reference_means), ("new", bootstrap_means)):
            t = time.process_time()
            got = [f(x, resamples, np.random.default_rng(s)) for s in range(calls)]
            times[label] = (time.process_time() - t) / calls
            if label == "old":
                want = got
        same = all(a.tobytes() == b.tobytes() for a, b in zip(got, want))
        print(f"bootstrap_means, {kind}, n {n}, {resamples} resamples: old {times['old'] * 1e3:.1f} ms, "
              f"new {times['new'] * 1e3:.1f} ms per call, {times['old'] / times['new']:.2f}x; same bytes: {same}")


@contextlib.contextmanager
def old_code() -> Iterator[None]:
    """Every shared piece of the context step and the tree metrics switched off (the code before them)."""
    import hcrbench.experiment.context_deliver as cd
    import hcrbench.experiment.context_stages as cs
    import hcrbench.experiment.tree_step as ts
    import hcrbench.stats.bootstrap as boot

    class NoMemo(cd.Covers):  # each unit set indexed once (as each function did), every cover computed anew
        def cover(self, us, q, ev, budget, doc_texts):  # type: ignore[no-untyped-def]
            u = self.units(us)
            return cd.cheapest_cover(ev, u.units, u.by_doc, budget, doc_texts)

        def items(self, us, q, ev, doc_texts):  # type: ignore[no-untyped-def]
            u = self.units(us)
            return cd._cover_items(ev, u.units, u.by_doc, doc_texts, cd.COVER_RUN)

    real_deliver, real_judge, real_tree = cs.deliver, cs.judge_system, ts.system_tree_metrics

    def deliver(*a: Any, **k: Any) -> Any:
        offer = real_deliver(*a, **k)
        offer.covers = NoMemo()
        return offer

    saved = (cs.deliver, boot.bootstrap_means, cs.judge_system, ts.system_tree_metrics)
    cs.deliver = deliver  # type: ignore[assignment]
    boot.bootstrap_means = reference_means
    cs.judge_system = lambda *a, **k: real_judge(*a[:15], None)  # type: ignore[assignment]
    ts.system_tree_metrics = lambda *a, **k: real_tree(*a, **{**k, "shared": None})  # type: ignore[assignment]
    try:
        yield
    finally:
        cs.deliver, boot.bootstrap_means, cs.judge_system, ts.system_tree_metrics = saved


def _steps(folder: Path) -> tuple[float, dict[str, Any]]:
    """CPU seconds of the context step and the tree metrics on ``folder`` (memo removed), and what they wrote."""
    from hcrbench.data.trec import read_run
    from hcrbench.experiment.config import load_config
    from hcrbench.experiment.context_step import ContextRoles, context_step
    from hcrbench.experiment.dataset import load_data
    from hcrbench.experiment.tree_step import tree_step

    cfg_path = folder / "config.toml"
    cfg, text = load_config(cfg_path)
    data = load_data(cfg.dataset, cfg_path.parent, cfg_path, text)
    out = folder
    runs = {s.name: read_run(out / "runs" / f"{s.name}.trec", name=s.name) for s in cfg.systems
            if (out / "runs" / f"{s.name}.trec").is_file()}
    baseline = cfg.baseline_name if cfg.baseline_name in runs else next(iter(runs))
    shutil.rmtree(out / "memo", ignore_errors=True)
    t = time.process_time()
    suff, _timings = context_step(cfg, data, runs, baseline, out, cfg_path, text,  # type: ignore[misc]
                                  roles=ContextRoles.of(cfg.protocol, baseline))
    t_ctx = time.process_time() - t
    t = time.process_time()
    tree = tree_step(list(runs), data, out, rel_threshold=cfg.rel_threshold, seed=cfg.seed)
    t_tree = time.process_time() - t
    files = {p.name: p.read_bytes() for p in sorted((out / "contexts").glob("*.jsonl"))}
    return t_ctx + t_tree, {"context_s": t_ctx, "tree_s": t_tree, "files": files,
                            "sufficiency": json.dumps(suff, sort_keys=True, default=str),
                            "tree": json.dumps(tree, sort_keys=True, default=str)}


def bench_run(run: Path) -> None:
    import os

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("HCRBENCH_HOME", str(Path(tmp) / "home"))  # never the user's lock registry
        res = {}
        for label in ("old", "new"):
            folder = Path(tmp) / label
            shutil.copytree(run, folder, ignore=shutil.ignore_patterns("memo"))
            with old_code() if label == "old" else contextlib.nullcontext():
                _total, res[label] = _steps(folder)
        o, n = res["old"], res["new"]
        same = o["files"] == n["files"] and o["sufficiency"] == n["sufficiency"] and o["tree"] == n["tree"]
        for part in ("context_s", "tree_s"):
            print(f"{part[:-2]} step on {run}: old {o[part]:.1f} CPU-s, new {n[part]:.1f} CPU-s, "
                  f"{o[part] / max(n[part], 1e-9):.2f}x")
        print(f"same bytes (every contexts file, the sufficiency document, the tree metrics): {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=285)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--run", type=Path, default=None, help="a finished run folder (copied; never written)")
    a = ap.parse_args()
    bench_bootstrap(a.n, a.resamples, a.calls)
    if a.run is not None:
        bench_run(a.run)


if __name__ == "__main__":
    main()
