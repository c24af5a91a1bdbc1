#!/usr/bin/env bash
# A demo experiment folder with every report input, from the repository root:   bash benchmarks/report_demo.sh
# Runs examples/report_demo.toml, gates every run (controls, verdicts against A1-flat, calibration), computes
# HCR's routing and tree metrics, and writes the report. Until the protocol runner writes gate.json and
# tree_metrics.json itself, this script writes them in the runner's format (docs/report.md).
set -euo pipefail
cd "$(dirname "$0")/.."
D=runs/report-demo
hcrbench run examples/report_demo.toml
hcrbench gate "$D"/runs/*.trec --dataset data/meridian-small --controls --baseline A1-flat --stratify category \
    --calibration "$D/calibration.png" --json "$D/gate.json" --n-trials 100 --n-resamples 2000 || [ $? -eq 1 ]
hcrbench tree-metrics "$D/logs/hcr.routing.jsonl" --dataset data/meridian-small --json "$D/tree-metrics-hcr.json" \
    > /dev/null
python - "$D" <<'PY'
import json, sys
from pathlib import Path
d = Path(sys.argv[1])
(d / "tree_metrics.json").write_text(json.dumps({"hcr": json.loads((d / "tree-metrics-hcr.json").read_text())},
                                                indent=1) + "\n")
gate = json.loads((d / "gate.json").read_text())
gate["family"] = "Holm per system over (nDCG@10, strict R@5) against A1-flat"
(d / "gate.json").write_text(json.dumps(gate, indent=1) + "\n")
PY
hcrbench report "$D"
