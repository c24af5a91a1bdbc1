"""docs/policy.md's code-set tables, end to end: generate the code set, compare the policies with BM25, tabulate.

    python benchmarks/policy_code.py [--package email,asyncio] [--system bm25 [--system dense]] [--json PATH]

``hcrbench generate code --package PACKAGES --seed 0`` and, per ``--system``, ``hcrbench policy-compare --system S
--budget 15 --json`` (chunkers lines and ast; dense with ``--param backend=onnx``, MiniLM int8) in a scratch
folder, then :func:`policy_tables.markdown` over the results; ``--json PATH`` writes the parts of the comparisons
the tables read (``policy_tables.trim``), which ``scripts/doc_figures.py`` renders into docs/policy.md.
Deterministic (seed 0). Seconds with BM25; minutes with dense (the encode).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hcrbench.data.atomic import atomic_write_text
from hcrbench_cli import run_hcrbench
from policy_tables import markdown, trim


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package", default="email,asyncio", help="the stdlib packages of the code set")
    ap.add_argument("--system", action="append", default=None, choices=["bm25", "dense"],
                    help="bm25 (default) and / or dense, in order")
    ap.add_argument("--json", type=Path, default=None, help="also write what the tables read to this file")
    a = ap.parse_args()
    name = "code-ea" if a.package == "email,asyncio" else "code-" + a.package.replace(",", "-")
    docs = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / name
        run_hcrbench("generate", "code", "--package", a.package, "--seed", "0", "--out", str(data))
        for system in a.system or ["bm25"]:
            out = Path(tmp) / f"{system}.json"
            extra = ["--param", "backend=onnx"] if system == "dense" else []
            run_hcrbench("policy-compare", "--dataset", str(data), "--system", system, *extra, "--budget", "15",
                      "--json", str(out))
            docs.append(trim(json.loads(out.read_text(encoding="utf-8"))))
    print(markdown(docs))
    if a.json is not None:
        atomic_write_text(a.json, json.dumps({"docs": docs, "strata": False}, indent=1) + "\n")


if __name__ == "__main__":
    main()
