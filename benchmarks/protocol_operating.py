"""Operating characteristics of every protocol rule on a finished experiment's own data, and how long they take.

    python benchmarks/protocol_operating.py OUT [--n N] [--reps 1000] [--seed 0] [--cr1] [--json PATH]
    python benchmarks/protocol_operating.py --inputs SAVED.json [--json PATH]
    python benchmarks/protocol_operating.py OUT --as-run [--json PATH]

OUT is an experiment folder (``hcrbench quickstart`` / ``hcrbench run``: per_query.csv, verdicts.json). ``--n``
replays every rule at N queries (e.g. another suite size) from OUT's per-query spread (clusters are then not
used). Prints the time of :func:`hcrbench.protocol.operating.operating_all` (all rules, ``--reps`` resamples each,
the n each undecidable rule needs included) and the Markdown table docs/protocol.md
publishes (:func:`hcrbench.protocol.operating.markdown`, the same function). ``--cr1`` adds the kill criterion's
false-decision rates at truth 0 on the cluster bootstrap under CR1 (t on G - 1 df) beside CR2 (Bell-McCaffrey df),
on the pair the criterion judged.

``--json PATH`` also writes what was replayed and what came out (no timings, so the same inputs and seed give the
same bytes): the source's description, every rule's inputs (its per-query differences, clusters, n), the CR1 / CR2
rates and :func:`operating_all`'s result. docs/figures/protocol-operating-*.json are such files and
``scripts/doc_figures.py`` renders docs/protocol.md's tables from them; ``--inputs SAVED.json`` replays the inputs a
saved file holds (with its reps, seed and ``--cr1``) instead of reading an experiment folder, which is how the slow
test checks that the committed figures are what the code gives. ``--as-run`` prints (and saves) the run's own
``verdicts.json["operating"]`` instead of replaying: every rule the verdict step judged, as it computed them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats as sps

from hcrbench.protocol.operating import Inputs, operating_all
from hcrbench.protocol.operating_inputs import from_out
from hcrbench.protocol.operating_table import markdown
from hcrbench.stats.cluster import bm_df


def cr1_vs_cr2(diffs: np.ndarray, clusters: np.ndarray, reps: int, seed: int) -> dict[str, tuple[float, float]]:
    """``{"CR1": (P(go), P(kill)), "CR2": ...}`` at truth 0 over ``reps`` cluster-bootstrap draws."""
    d = diffs - diffs.mean()
    G = int(clusters.max()) + 1
    sums = np.bincount(clusters, weights=d, minlength=G)
    cnt = np.bincount(clusters, minlength=G).astype(np.float64)
    idx = np.random.default_rng(seed).integers(0, G, size=(reps, G))
    S, C = sums[idx], cnt[idx]
    n = C.sum(axis=1)
    m = S.sum(axis=1) / n
    r2 = (S - m[:, None] * C) ** 2
    se1 = np.sqrt(G / (G - 1) * r2.sum(axis=1)) / n
    se2 = np.sqrt((r2 / (1 - C / n[:, None])).sum(axis=1)) / n
    out = {}
    for name, se, df in (("CR1", se1, np.full(reps, G - 1.0)), ("CR2", se2, bm_df(C))):
        h = sps.t.ppf(0.975, df) * se
        out[name] = (float(np.mean(m - h > 0)), float(np.mean(m + h < 0)))
    return out


def _plain(x: Any) -> Any:
    """``x`` with numpy scalars and arrays as Python numbers and lists (for json)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    return x


def inputs_to_json(ins: dict[str, Inputs]) -> dict[str, dict[str, Any]]:
    return {rid: _plain(dataclasses.asdict(x)) for rid, x in ins.items()}


def inputs_from_json(doc: dict[str, dict[str, Any]]) -> dict[str, Inputs]:
    out = {}
    for rid, d in doc.items():
        kw = dict(d)
        for k in ("diffs", "base", "high", "low"):
            if kw.get(k) is not None:
                kw[k] = np.asarray(kw[k], dtype=np.float64)
        if kw.get("clusters") is not None:
            kw["clusters"] = np.asarray(kw["clusters"], dtype=np.int64)
        out[rid] = Inputs(**kw)
    return out


def measure(ins: dict[str, Inputs], source: dict[str, Any], reps: int, seed: int, cr1: bool
            ) -> tuple[dict[str, Any], float]:
    """The saved document (see the module's doc) and the seconds :func:`operating_all` took."""
    t0 = time.perf_counter()
    ops = operating_all(ins, reps=reps, seed=seed)
    dt = time.perf_counter() - t0
    g = ins["kill"].clusters if "kill" in ins else None
    rates = (cr1_vs_cr2(ins["kill"].diffs, g, 20 * reps, seed) if cr1 and g is not None else None)
    doc = {"source": source, "reps": reps, "seed": seed, "cr1": cr1,
           "cr1_vs_cr2": None if rates is None else {"draws": 20 * reps, **{k: {"p_go": v[0], "p_kill": v[1]}
                                                                          for k, v in rates.items()}},
           "inputs": inputs_to_json(ins), "operating": _plain(ops)}
    return doc, dt


def write_json(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    from hcrbench.data.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(doc, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", help="an experiment folder (or --inputs)")
    ap.add_argument("--n", type=int, default=None, help="replay every rule at this n")
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cr1", action="store_true", help="the kill's truth-0 error under CR1 beside CR2")
    ap.add_argument("--json", type=Path, default=None, help="also write inputs and results to this file")
    ap.add_argument("--inputs", type=Path, default=None,
                    help="replay the inputs a file written by --json holds (its reps, seed, --cr1)")
    ap.add_argument("--as-run", action="store_true",
                    help="the run's own verdicts.json['operating'] (every judged rule), not a replay")
    a = ap.parse_args()
    if (a.out is None) == (a.inputs is None):
        ap.error("give an experiment folder OUT or --inputs SAVED.json (one of them)")
    if a.as_run and a.out is not None:
        v = json.loads((Path(a.out) / "verdicts.json").read_text(encoding="utf-8"))
        doc = {"source": {"folder": Path(a.out).name, "system": v["system"], "kill_baseline": v["kill_baseline"],
                          "size": v.get("size")}, "as_run": True, "operating": v["operating"]}
        print(markdown(doc["operating"]))
        if a.json is not None:
            write_json(a.json, doc)
        return
    if a.inputs is not None:
        try:
            saved = json.loads(a.inputs.read_text(encoding="utf-8"))
            ins, source = inputs_from_json(saved["inputs"]), saved["source"]
            a.reps, a.seed, a.cr1 = int(saved["reps"]), int(saved["seed"]), bool(saved["cr1"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            ap.error(f"{a.inputs}: not a file written by --json ({e})")
        where = str(a.inputs)
    else:
        ins, v = from_out(a.out, a.n)
        kill = next((h for h in v["hypotheses"] if h["id"] == "kill"), {})
        g = ins["kill"].clusters if "kill" in ins else None
        source = {"folder": Path(a.out).name, "system": v["system"], "kill_baseline": v["kill_baseline"],
                  "judged_against": (kill.get("evidence") or {}).get("judged_against") or v["kill_baseline"],
                  "size": v.get("size"), "n": ins["kill"].n if "kill" in ins else None, "n_override": a.n,
                  "clusters": None if g is None else len(set(g.tolist()))}
        where = a.out
    doc, dt = measure(ins, source, a.reps, a.seed, a.cr1)
    ops = doc["operating"]
    print(f"{where}: system {source['system']}, kill baseline {source['kill_baseline']} (the kill criterion judged "
          f"against {source['judged_against']}), size {source['size']}, n {source['n'] or '?'}"
          + (f" in {source['clusters']} clusters" if source.get("clusters") else "")
          + f"; {len(ops)} rules x {a.reps} resamples (+ needs n) in {dt:.3f} s")
    for name, r in (doc["cr1_vs_cr2"] or {}).items():
        if name != "draws":
            print(f"kill at truth 0, cluster bootstrap ({doc['cr1_vs_cr2']['draws']:,} draws), {name}: P(go) "
                  f"{r['p_go']:.1%}, P(kill) {r['p_kill']:.1%} (nominal 2.5% each)")
    print(markdown(ops))
    if a.json is not None:
        write_json(a.json, doc)


if __name__ == "__main__":
    main()
