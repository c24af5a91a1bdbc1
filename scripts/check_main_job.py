"""Check that a finished ``hcrbench quickstart`` folder reached every stage the main job has (CI runs it on the
folder ``make quickstart`` wrote from the README's own install: .ci/run).

    python scripts/check_main_job.py OUT [--seconds N]

Stages checked, each from the file that stage writes: the tuning record, the power plan, the looks at batches of
test worlds (with ``--worlds 1``: the power plan's query hook), every
system of the packaged config (one of each kind: BM25, dense, hybrid, the kill baseline's reranker, RAPTOR, HCR)
run and scored, the gate, the verdicts with their operating characteristics, and the report. Prints one line per
stage and exits 1 naming every stage that is missing. Reads JSON only: it runs under any install (the core's).
"""

from __future__ import annotations

import argparse
import json
import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib
from pathlib import Path

#: The kinds of system the main job fields (the packaged MiniLM template's types).
KINDS = ("bm25", "dense", "hybrid", "rerank", "raptor", "hcr")


def _json(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SystemExit(f"check_main_job: {path}: cannot read ({e})") from None
    return doc if isinstance(doc, dict) else {}


def stages(out: Path) -> list[tuple[str, bool, str]]:
    """``(stage, reached, detail)`` for every stage of the main job."""
    v = _json(out / "verdicts.json")
    manifest = _json(out / "manifest.json")
    ev = _json(out / "eval.json")
    cfg = tomllib.loads((out / "quickstart.toml").read_text(encoding="utf-8"))
    systems = {s["name"]: s["type"] for s in cfg.get("systems", [])}
    scored = set((ev.get("means") or ev.get("runs") or {}).keys()) if isinstance(ev, dict) else set()
    if not scored:
        scored = {k for k in (manifest.get("systems") or {})}
    run_stages = set(manifest.get("stages") or {})
    missing_sys = [n for n in systems if n not in scored]
    kinds = sorted({t for n, t in systems.items() if n in scored})
    tuning = v.get("tuning") or {}
    plan = v.get("power_plan") or {}
    seq = v.get("sequential") or {}  # several worlds: the looks at batches of test worlds (one world: the query hook)
    gate = out / "gate.json"
    gate_doc = _json(gate) if gate.is_file() else {}
    operating = v.get("operating") or {}
    report = out / "report.html"
    return [
        ("tuning on the tune split", bool(tuning.get("chosen")) or "text" in tuning, str(tuning.get("text", ""))[:120]),
        ("power plan", plan.get("status") == "planned", str(plan.get("status"))),
        ("test worlds in looks" if seq else "query hook",
         bool(seq.get("looks")) if seq else "queries_hook" in plan,
         (f"{len(seq.get('looks') or [])} look(s), stopped: {seq.get('stopped')}" if seq else
          str((plan.get("queries_hook") or {}).get("text", ""))[:120])),
        ("every system kind", set(KINDS) <= set(kinds), f"kinds run and scored: {', '.join(kinds)}"),
        ("every system scored", not missing_sys, f"{len(systems) - len(missing_sys)}/{len(systems)} systems"
                                                 + (f"; missing {', '.join(missing_sys)}" if missing_sys else "")),
        ("stage timings", {"load", "scoring"} <= run_stages, f"{len(run_stages)} stages in manifest.json"),
        ("gate", bool(gate_doc), f"gate.json {'present' if gate_doc else 'missing'}"),
        ("verdicts", bool(v.get("overall")) and bool(v.get("bottom_line")), f"overall {v.get('overall')!r}"),
        ("operating characteristics", bool(operating), f"{len(operating)} rules replayed"),
        ("report", report.is_file() and report.stat().st_size > 1000, str(report)),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the quickstart's output folder")
    ap.add_argument("--seconds", type=int, default=None, help="the job's wall time, to print beside the result")
    args = ap.parse_args(argv)
    rows = stages(args.out)
    for name, ok, detail in rows:
        print(f"{'ok  ' if ok else 'MISS'} {name}: {detail}")
    bad = [name for name, ok, _ in rows if not ok]
    took = f" in {args.seconds} s" if args.seconds is not None else ""
    if bad:
        print(f"main job{took}: stages not reached: {', '.join(bad)}", file=sys.stderr)
        return 1
    print(f"main job{took}: every stage reached ({len(rows)} checks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
