"""Query wording of Meridian beside real collections: lexical overlap with the relevant documents
(:mod:`hcrbench.synth.checks.describe_lexical`) and template skeletons (:mod:`hcrbench.synth.checks.describe_templates`).

    python benchmarks/meridian_lexical.py [--datasets ../shared/datasets] [--sizes small,medium,full]
                                          [--seeds 4242,7777] [--json PATH]

Measures SciFact (test), NFCorpus (test), Cranfield and CISI (their judged queries), then generates each Meridian
suite (size x seed, 300 queries, in a temporary folder) and measures every judged query of it (all splits). Prints
the markdown table (:func:`markdown`) that docs/meridian.md holds; ``--json PATH`` writes the figures it renders
from (``scripts/doc_figures.py`` renders the block). Same data, same generator: same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
REAL = (("SciFact", "scifact", "beir"), ("NFCorpus", "nfcorpus-processed", "beir"),
        ("Cranfield", "cranfield", "cranfield"), ("CISI", "cisi", "cisi"))
# the columns the range is judged on: (key in the row, label)
COLUMNS = (("rarest_exclusive", "rarest word only in relevant"), ("p25", "terms shared p25"),
           ("p50", "terms shared p50"), ("p75", "terms shared p75"), ("no_shared_term", "no term shared"),
           ("identifier_exclusive", "identifier only in relevant"), ("repeat_share", "repeats a skeleton"))


def _row(name: str, lex: dict[str, Any], tpl: dict[str, Any]) -> dict[str, Any]:
    q = lex["shared_quantiles"]
    return {"name": name, "queries": lex["queries"], "rarest_exclusive": lex["rarest_exclusive"],
            "p10": q["p10"], "p25": q["p25"], "p50": q["p50"], "p75": q["p75"], "p90": q["p90"],
            "no_shared_term": lex["no_shared_term"], "names_identifier": lex["names_identifier"],
            "identifier_exclusive": lex["identifier_exclusive"], "repeat_share": tpl["repeat_share"],
            "degenerate_ranges": tpl["degenerate_ranges"], "pasted_parameters": tpl["pasted_parameters"]}


def measure_real(datasets: Path) -> list[dict[str, Any]]:
    from hcrbench.data import load_beir, load_cisi, load_cranfield
    from hcrbench.synth.checks.describe_lexical import dataset_overlap
    from hcrbench.synth.checks.describe_templates import template_summary

    loaders = {"beir": load_beir, "cranfield": load_cranfield, "cisi": load_cisi}
    rows = []
    for name, sub, kind in REAL:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # CISI's unjudged queries: left out, as the loader says
            ds = loaders[kind](datasets / sub)
        judged = {q: t for q, t in ds.queries.items() if q in ds.qrels}
        rows.append({**_row(name, dataset_overlap(ds), template_summary(judged)), "kind": "real"})
        print(f"{name}: measured", file=sys.stderr, flush=True)
    return rows


def measure_meridian(size: str, seed: int) -> dict[str, Any]:
    from hcrbench.synth import generate_meridian
    from hcrbench.synth.checks.describe_lexical import meridian_overlap
    from hcrbench.synth.checks.describe_templates import meridian_templates

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "m"
        man = generate_meridian(out, size, seed=seed)
        lex, tpl = meridian_overlap(out), meridian_templates(out)
    print(f"Meridian {size} seed {seed}: measured", file=sys.stderr, flush=True)
    row = _row(f"Meridian {size}, seed {seed}", lex["all"], tpl)
    row.update(kind="meridian", generator=man["generator_version"],
               no_shared_not_vocabulary=len(lex["no_shared_term_not_vocabulary"]),
               by_category={c: {"queries": v["queries"], "rarest_exclusive": v["rarest_exclusive"],
                                "p50": v["shared_quantiles"].get("p50"), "no_shared_term": v["no_shared_term"],
                                "identifier_exclusive": v["identifier_exclusive"],
                                "repeat_share": tpl["by_group"].get(c, {}).get("repeat_share")}
                            for c, v in lex["by_category"].items()})
    return row


def _fmt(v: Any) -> str:
    return "-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))


def outside(doc: dict[str, Any]) -> list[str]:
    """Per Meridian row, the columns outside the real collections' range (min-max over them)."""
    real = [r for r in doc["rows"] if r["kind"] == "real"]
    notes = []
    for r in doc["rows"]:
        if r["kind"] != "meridian":
            continue
        out = []
        for key, label in COLUMNS:
            lo, hi = min(x[key] for x in real), max(x[key] for x in real)
            if r[key] < lo or r[key] > hi:
                out.append(f"{label} {_fmt(r[key])} (real {_fmt(lo)}-{_fmt(hi)})")
        notes.append(f"- {r['name']}: " + ("; ".join(out) if out else "inside the real range on every column"))
    return notes


def markdown(doc: dict[str, Any]) -> str:
    head = ("| collection | queries | rarest word only in relevant | terms shared p10 / p25 / p50 / p75 / p90 | "
            "no term shared | names an identifier | identifier only in relevant | repeats a skeleton | "
            "degenerate ranges | pasted names |")
    gens = sorted({r["generator"] for r in doc["rows"] if r["kind"] == "meridian"})
    lines = [f"Meridian generator {', '.join(gens) or '-'}; every judged query (all splits; SciFact and NFCorpus: "
             "test). Relevant: grade >= 1.", "", head, "|" + "---|" * 10]
    for r in doc["rows"]:
        q = " / ".join(_fmt(r[k]) for k in ("p10", "p25", "p50", "p75", "p90"))
        lines.append(f"| {r['name']} | {r['queries']} | {_fmt(r['rarest_exclusive'])} | {q} | "
                     f"{_fmt(r['no_shared_term'])} | {_fmt(r['names_identifier'])} | "
                     f"{_fmt(r['identifier_exclusive'])} | {_fmt(r['repeat_share'])} | {r['degenerate_ranges']} | "
                     f"{r['pasted_parameters']} |")
    lines += ["", "Outside the real collections' range (min-max over the four):", "", *outside(doc)]
    slips = [f"{r['name']}: {r['no_shared_not_vocabulary']}" for r in doc["rows"] if r["kind"] == "meridian"]
    if slips:
        lines += ["", "Queries sharing no term with their relevant documents that are not vocabulary-mismatch "
                  "queries (the design's one place without overlap): " + "; ".join(slips) + "."]
    cats = sorted({c for r in doc["rows"] if r["kind"] == "meridian" for c in r["by_category"]})
    suites = [r for r in doc["rows"] if r["kind"] == "meridian"]
    if cats:
        lines += ["", "Per Meridian category (lowest-highest over the suites above):", "",
                  "| category | rarest word only in relevant | terms shared p50 | no term shared | "
                  "identifier only in relevant | repeats a skeleton |", "|" + "---|" * 6]
        for c in cats:
            cells = []
            for key in ("rarest_exclusive", "p50", "no_shared_term", "identifier_exclusive", "repeat_share"):
                vals = [s["by_category"][c][key] for s in suites if c in s["by_category"]]
                vals = [v for v in vals if v is not None]
                cells.append("-" if not vals else f"{_fmt(min(vals))}-{_fmt(max(vals))}"
                             if min(vals) != max(vals) else _fmt(vals[0]))
            lines.append(f"| {c} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=Path, default=REPO.parent / "shared" / "datasets")
    ap.add_argument("--sizes", default="small,medium,full")
    ap.add_argument("--seeds", default="4242,7777")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    if not a.datasets.is_dir():
        print(f"error: {a.datasets}: datasets folder not found (--datasets)", file=sys.stderr)
        return 2
    try:
        seeds = [int(s) for s in a.seeds.split(",") if s]
    except ValueError:
        print(f"error: --seeds {a.seeds!r}: expected comma-separated integers", file=sys.stderr)
        return 2
    rows = measure_real(a.datasets)
    rows += [measure_meridian(size, seed) for size in a.sizes.split(",") if size for seed in seeds]
    doc = {"sizes": a.sizes, "seeds": seeds, "rows": rows}
    print(markdown(doc))
    if a.json:
        from hcrbench.data import atomic_write_text

        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
