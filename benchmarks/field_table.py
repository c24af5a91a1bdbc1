"""The field of a quickstart (or any protocol) folder on dev and test: nDCG@10 of the kill baseline, A1, chunk- and
document-level BM25, dense, hybrid and HCR, and whether the kill baseline is a value barrier.

    python benchmarks/field_table.py OUT [--systems rerank,hcr-flat,bm25,bm25-doc,dense,hybrid-rrf,hcr]

Dev runs are the protocol's own (``OUT/logs/dev/``, reused while their fingerprint holds; a system the verdict
step did not run on dev, such as A1, is run once and kept there); test figures are ``OUT/eval.json``'s. The
barrier line is ``OUT/verdicts.json["field"]``'s (docs/protocol.md, "The field").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

DEFAULT = "rerank,hcr-flat,bm25,bm25-doc,dense,hybrid-rrf,hcr"


def main() -> None:
    from hcrbench.experiment.config import load_config
    from hcrbench.experiment.dataset import load_data
    from hcrbench.metrics import evaluate
    from hcrbench.protocol.devselect import split_data, split_runs

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--systems", default=DEFAULT)
    ap.add_argument("--config", default="quickstart.toml", help="the config's file name inside OUT")
    a = ap.parse_args()
    path = a.out / a.config
    cfg, text = load_config(path)
    data = load_data(cfg.dataset, path.parent, path, text)
    dev = split_data(data, "dev")
    known = [s.name for s in cfg.systems]
    names = [n for n in a.systems.split(",") if n in known]
    m = cfg.protocol.metric if cfg.protocol else "nDCG@10"
    test = json.loads((a.out / "eval.json").read_text(encoding="utf-8"))["runs"]
    dev_means: dict[str, float] = {}
    if dev is not None:
        runs = split_runs(cfg, dev, a.out / "logs" / "dev", names)
        ev = evaluate(dev.qrels, runs, [m], missing="zero")
        dev_means = {n: float(np.mean(ev.runs[n].values[m])) for n in names}
    n_dev = len(dev.queries) if dev is not None else 0
    print(f"{m}: {'system':12s} {'dev':>7s} {'test':>7s}   (dev {n_dev} queries, test {len(data.queries)})")
    for n in names:
        d = f"{dev_means[n]:7.4f}" if n in dev_means else "      —"
        t = test.get(n, {}).get("means", {}).get(m)
        print(f"{'':{len(m) + 2}s}{n:12s} {d} {'      —' if t is None else f'{t:7.4f}'}")
    v = a.out / "verdicts.json"
    if v.is_file():
        f = json.loads(v.read_text(encoding="utf-8")).get("field") or {}
        print(f"barrier: {(f.get('barrier') or {}).get('text', 'not in verdicts.json')}")


if __name__ == "__main__":
    main()
