"""Every generated figure block of the docs: its page, the command that measures it, how it is re-measured and
the renderer from its saved JSON (docs/figures/NAME.json) to Markdown. ``scripts/doc_figures.py`` reads it.

A renderer is the benchmark's own table function where it has one (so the page and the benchmark's printout are
one function), plus a line naming what the figures were measured on.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Figure:
    name: str
    page: str  # the page holding the block, relative to the repository
    command: str  # how the saved JSON is measured, as the block shows it
    render: Callable[[dict[str, Any]], str]
    # the command(s), argv after python: "{from}" = the --from folders ("{from:a,b}": those named a or b), "{json}"
    # = the file to write; several commands' files are saved together as {"runs": [...]}
    measure: list[list[str]]
    # command(s) re-measuring from the repository alone ("{saved}" = the committed file, "{tmp}" = scratch)
    replay: list[list[str]] | None = None
    needs_from: str | None = None  # what --measure's --from must be, when the command reads a folder
    # (committed JSON, re-measured JSON) -> the two texts --replay compares (default: the whole files)
    compare: Callable[[dict[str, Any], dict[str, Any]], tuple[str, str]] | None = None
    # a timing: --measure stamps the saved JSON with where and when it ran ("measured_on"), the block says it,
    # and nothing re-measures it byte for byte (--check compares the block with the saved JSON only)
    timing: bool = False


def measured_on(doc: dict[str, Any]) -> str:
    """A timing block's first line: the machine, its load and the date of the measurement (the JSON's stamp)."""
    m = doc["measured_on"]
    return (f"Measured {m['date']} on {m['machine']} (load average {m['load']} at the start; other jobs share "
            "this machine, so absolute timings move between runs: read the ratios).")


def bench(name: str) -> ModuleType:
    """benchmarks/NAME.py as a module (its table functions). benchmarks/ goes on ``sys.path`` first, as when the
    benchmark runs as a script, so its imports of sibling modules (``from hcrbench_cli import ...``) resolve."""
    path = REPO / "benchmarks" / f"{name}.py"
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


# ------------------------------------------------------------------------------------------ docs/protocol.md


def operating(doc: dict[str, Any]) -> str:
    """A protocol_operating.py --json file: what it was replayed on, the table, the kill's CR1 / CR2 rates."""
    from hcrbench.protocol.operating_table import markdown

    s = doc["source"]
    if doc.get("as_run"):
        head = (f"The run's own `verdicts.json[\"operating\"]` (folder `{s['folder']}`, system {s['system']}, kill "
                f"baseline {s['kill_baseline']}): every rule the verdict step judged. The replay column is "
                "reported only: it voids no verdict, so a row decided on its interval (tree sanity's pass) may "
                "sit beside a replay short of its targets.")
    else:
        head = (f"Replayed from folder `{s['folder']}`: system {s['system']}, kill baseline {s['kill_baseline']} "
                f"(the kill criterion judged against {s['judged_against']}), n = {s['n']}"
                + (f" in {s['clusters']} clusters" if s.get("clusters") else "")
                + (f", every rule replayed at n = {s['n_override']} (no clusters)" if s.get("n_override") else "")
                + f"; {doc['reps']:,} resamples per rule and truth, seed {doc['seed']}.")
    out = [head, "", markdown(doc["operating"])]
    r = doc.get("cr1_vs_cr2")
    if r:
        out += ["", f"The kill criterion at truth 0 on the cluster bootstrap of its own pair ({r['draws']:,} draws): "
                    f"CR1 P(go) {r['CR1']['p_go']:.1%} / P(kill) {r['CR1']['p_kill']:.1%}, **CR2 "
                    f"{r['CR2']['p_go']:.1%} / {r['CR2']['p_kill']:.1%}** (nominal 2.5% each)."]
    return "\n".join(out)


def _operating_fig(name: str, what: str, extra: list[str]) -> Figure:
    cmd = " ".join(["python benchmarks/protocol_operating.py OUT", *extra, f"--json docs/figures/{name}.json"])
    return Figure(name, "docs/protocol.md", cmd, operating,
                  [["benchmarks/protocol_operating.py", "{from}", *extra, "--json", "{json}"]],
                  replay=[["benchmarks/protocol_operating.py", "--inputs", "{saved}", "--json", "{json}"]],
                  needs_from=what)


def rules_sim(doc: dict[str, Any]) -> str:
    return bench("protocol_rules_sim").markdown(doc)


def calibration(doc: dict[str, Any]) -> str:
    return bench("calibrate_rules").markdown(doc)


def known_truth(doc: dict[str, Any]) -> str:
    """known_truth_quickstart.py --json files: one table per file (each world at the effect; worlds spread). Parts
    saved together are stamped by their own runs (the first start, the range of loads), not by when they were
    gathered."""
    runs = doc.get("runs", [doc])
    stamps = [r["measured_on"] for r in runs if r.get("measured_on")]
    if len(runs) > 1 and len(stamps) == len(runs):
        loads = sorted(float(x) for m in stamps for x in str(m["load"]).split("-") if x.replace(".", "").isdigit())
        doc = {**doc, "measured_on": {"date": min(m["date"] for m in stamps), "machine": stamps[0]["machine"],
                                      "load": f"{loads[0]:g}-{loads[-1]:g}" if loads else "unknown"}}
    return measured_on(doc) + "\n\n" + "\n\n".join(bench("known_truth_quickstart").markdown(d) for d in runs)


# ------------------------------------------------------------------------------------------ docs/context.md


def _folder(name: str) -> str:
    """``small-21`` -> ``small (21)``: a Meridian folder named SIZE-SEED."""
    size, _, seed = name.rpartition("-")
    return f"{size} ({seed})" if size and seed.isdigit() else name


def perfect_control(doc: dict[str, Any]) -> str:
    """A perfect_control.py --json file (through hcrbench run): failure on the queries feasible at 400 with its
    anatomy, then the perfect runfile at every budget."""
    cols = [("perfect-runfile", "perfect runfile"), ("perfect", "perfect control (ties in bm25's order)"),
            ("degraded-runfile", "degraded runfile"), ("bm25-doc", "bm25-doc"), ("bm25", "bm25 (own chunks)"),
            ("oracle", "oracle")]
    gen = f"Meridian generator {doc['generator']}'s folders. " if doc.get("generator") else ""
    out = [gen + "Failure on the queries feasible at 400 tokens (retrieval / selection / delivery misses; \"of N\" "
           "where a system's own unit set makes N feasible):", "",
           "| Meridian (seed) | feasible | " + " | ".join(c for _, c in cols) + " |",
           "|---|---" + "|---" * len(cols) + "|"]
    for f in doc["folders"]:
        systems = f["through"]["systems"]
        n0 = systems["perfect-runfile"]["at_400"]["n"]
        cells = []
        for key, _ in cols:
            a = (systems.get(key) or {}).get("at_400")
            if a is None:
                cells.append("—")
                continue
            of = "" if a["n"] == n0 else f" of {a['n']}"
            cells.append(f"{a['rate']:.1%}{of} ({a['retrieval']} / {a['selection']} / {a['delivery']})")
        out.append(f"| {_folder(f['data'])} | {n0} | " + " | ".join(cells) + " |")
    budgets = list(doc["folders"][0]["through"]["systems"]["perfect-runfile"]["by_budget"])
    out += ["", "The perfect runfile on the queries feasible at each budget (feasible counts in brackets):", "",
            "| Meridian (seed) | " + " | ".join(f"B={b}" for b in budgets) + " |",
            "|---" + "|---" * len(budgets) + "|"]
    for f in doc["folders"]:
        bb = f["through"]["systems"]["perfect-runfile"]["by_budget"]
        out.append(f"| {_folder(f['data'])} | " + " | ".join(
            f"{c['failures'] / c['feasible']:.1%} ({c['feasible']})" if c["feasible"] else "—"
            for c in (bb[b] for b in budgets)) + " |")

    def span(b: str) -> str:
        r = [100 * c["failures"] / c["feasible"] for f in doc["folders"]
             for c in [f["through"]["systems"]["perfect-runfile"]["by_budget"][b]] if c["feasible"]]
        return f"{min(r):.1f}-{max(r):.1f}%"

    moved = max(abs(f["through"]["systems"]["perfect-runfile"]["at_400"]["rate"]
                    - f["through"]["systems"]["perfect"]["at_400"]["rate"]) for f in doc["folders"])
    out += ["", f"Over the {len(doc['folders'])} folders the perfect runfile fails **{span('400')}** at 400 tokens, "
                + ", ".join(f"{span(b)} at {b}" for b in budgets if b != "400")
                + f"; the control's ties in bm25's order move a folder by up to {100 * moved:.1f} points."]
    return "\n".join(out)


PC_DATA = "small-21 small-37 medium-37 medium-77 full-58"


def _one_folder(name: str, part: str) -> Callable[[dict[str, Any], dict[str, Any]], tuple[str, str]]:
    """--replay's comparison for a figure re-measured on one folder: that folder's ``part`` in the committed file
    (its first run holding the folder, for a file of several runs) against the re-measured one."""
    def pick(doc: dict[str, Any]) -> str:
        for run in doc.get("runs", [doc]):
            for f in run["folders"]:
                if f["data"] == name:
                    return json.dumps(f[part], indent=1)
        return f"(no folder {name})"

    return lambda saved, got: (pick(saved), pick(got))


VARIANT_WORDS = {
    "tfidf round robin (the harness)": "TF-IDF passage scorer, round robin (**the harness**)",
    "bm25 passage scorer, round robin": "BM25 passage scorer (stemmed, over the chunks), round robin",
    "minilm passage scorer, round robin": "MiniLM passage scorer (int8 ONNX cosine), round robin",
    "minilm maxsim (late interaction) passage scorer, round robin":
        "MiniLM MaxSim passage scorer (late interaction over its token vectors), round robin",
    "tfidf, top document 2 passages first": "TF-IDF, the top document's two best passages in the first round",
    "bm25 passages of the top 10 by score x rank prior":
        "BM25 passages of the top 10 documents by score x rank prior (1 / (1 + 0.5 rank)), repeats halved",
    "query-term coverage over the top 6 documents' passages":
        "query-term coverage (IDF of query terms not yet covered) over the top 6 documents' passages",
    "sentence windows (best sentence +-1), round robin":
        "sentence windows (best sentence +-1 per document), round robin",
    "chunks-64": "64-token context chunks (feasibility in them too), TF-IDF round robin",
    "bound: oracle passage order (fact-stating chunks first)":
        "*bound*: oracle passage order (a document's fact-stating chunks first)",
    "bound: oracle passages + minimal evidence's documents first":
        "*bound*: oracle passages + the minimal evidence's documents first among equal grades",
    "bound: best order of the relevant documents, tfidf round robin":
        "*bound*: the best order of the relevant documents found (TF-IDF round robin; up to 2,000 orders of the "
        "fact-stating documents as the first four)",
}


def delivery_bounds(doc: dict[str, Any]) -> str:
    """Three perfect_control.py --bounds-only runs (128-token chunks; --minilm; --chunk-tokens 64): per delivery
    variant and folder, the failure % of the perfect ranking / of BM25 over documents on the queries feasible at
    the budget; the bounds (perfect only)."""
    plain, minilm, small = doc["runs"]
    folders = [f["data"] for f in plain["folders"]]
    cells: dict[str, dict[str, str]] = {}

    def put(run: dict[str, Any], keep: Callable[[str], bool], as_name: str | None = None) -> None:
        for f in run["folders"]:
            for r in f["bounds"]:
                if keep(r["variant"]):
                    txt = f"{100 * r['perfect'] / r['n']:.1f}"
                    if r["bm25_doc"] is not None:
                        txt += f" / {100 * r['bm25_doc'] / r['n']:.1f}"
                    cells.setdefault(as_name or r["variant"], {})[f["data"]] = txt

    put(plain, lambda v: not v.startswith("minilm"))
    put(minilm, lambda v: v.startswith("minilm"))
    put(small, lambda v: v == "tfidf round robin (the harness)", "chunks-64")
    order = [k for k in VARIANT_WORDS if k in cells] + [k for k in cells if k not in VARIANT_WORDS]
    gen = f"Meridian generator {plain['generator']}'s folders. " if plain.get("generator") else ""
    out = [gen + f"Failures (%) on the queries feasible at {plain['budget']} tokens in {plain['chunk_tokens']}-token "
           "context chunks, perfect ranking / bm25-doc (a bound: the perfect ranking only):", "",
           "| delivery (perfect / bm25-doc failures, %) | " + " | ".join(f.replace("-", " ") for f in folders) + " |",
           "|---" + "|---" * len(folders) + "|"]
    for k in order:
        out.append(f"| {VARIANT_WORDS.get(k, k)} | " + " | ".join(cells[k].get(f, "—") for f in folders) + " |")

    def span(run: dict[str, Any], keep: Callable[[str], bool], side: str = "perfect") -> str | None:
        v = [100 * r[side] / r["n"] for f in run["folders"] for r in f["bounds"]
             if keep(r["variant"]) and r.get(side) is not None]
        return f"{min(v):.1f}-{max(v):.1f}%" if v else None

    parts = [(span(plain, lambda v: v.startswith("bound: oracle passage order")), "oracle passage order leaves"),
             (span(plain, lambda v: v.startswith("bound: oracle passages +")),
              "with the minimal evidence's documents first as well"),
             (span(plain, lambda v: v.startswith("bound: best order")), "the best order of the relevant documents"),
             (span(minilm, lambda v: v.startswith("minilm")), "the MiniLM scorers"),
             (span(plain, lambda v: v.startswith("sentence windows"), "bm25_doc"),
              "sentence windows fail BM25 over documents on"),
             (span(small, lambda v: v == "tfidf round robin (the harness)", "bm25_doc"),
              "64-token chunks fail it on")]
    out += ["", "Over the folders the perfect ranking's failures: " + "; ".join(f"{w} {x}" for x, w in parts if x)
            + "."]
    fails = [r["harness_failures"] for f in plain["folders"] for r in f["bounds"][:1] if "harness_failures" in r]
    if fails:
        def total(key: str) -> dict[str, int]:
            t: dict[str, int] = {}
            for h in fails:
                for k, v in h[key].items():
                    t[k] = t.get(k, 0) + v
            return dict(sorted(t.items(), key=lambda kv: (-kv[1], kv[0])))

        cats, feas, shape = total("categories"), total("feasible_categories"), total("cover_shape")
        rel = sorted(x for h in fails for x in h["relevant_docs"])
        none = [f"{c} ({feas[c]})" for c in feas if c not in cats]
        out += ["", f"The harness's {sum(h['n'] for h in fails)} failures of the perfect ranking over the folders, by "
                    "category: " + ", ".join(f"{k} {v}" for k, v in cats.items())
                    + (f" (none of the feasible {', '.join(none)})" if none else "")
                    + "; by the cheapest cover of the query's facts: " + ", ".join(f"{k}: {v}" for k, v in shape.items())
                    + (f"; relevant documents per failing query {rel[0]}-{rel[-1]} (median {rel[len(rel) // 2]})"
                       if rel else "") + "."]
    return "\n".join(out)


# the known-truth subjects through the quickstart: fresh seeds, every world at the effect
KT_SEEDS = "930001,930002,930003"
KT = ["benchmarks/known_truth_quickstart.py", "--seeds", KT_SEEDS, "--jobs", "3", "--json", "{json}"]
KT_SD = "0.03"  # the spread case: each test world's target drawn around the effect (same workdir: same pilots)
SIM = ["benchmarks/protocol_rules_sim.py", "--reps", "2000", "--seed", "0", "--json", "{json}"]
CAL = ["benchmarks/calibrate_rules.py", "--worlds", "12", "--reps", "1000", "--max-looks", "4",
       "--worlds-per-batch", "2", "--queries-per-world", "60", "--json", "{json}"]
PC = "benchmarks/perfect_control.py"
PT = "benchmarks/perfect_ties.py"
PSG = "benchmarks/passage_control.py"
PSG_DATA = "small-7001 small-7002 medium-7001 full-7001"

FIGS = [
    _operating_fig("protocol-operating-small", "the Meridian small quickstart folder (OUT)", ["--cr1"]),
    _operating_fig("protocol-operating-medium", "the Meridian medium quickstart folder (OUT)", ["--cr1"]),
    _operating_fig("protocol-operating-full", "the Meridian medium quickstart folder (OUT, replayed at n = 62)",
                   ["--n", "62"]),
    _operating_fig("protocol-operating-small-plan", "the Meridian small quickstart folder with the power plan's "
                   "suite (OUT)", ["--cr1"]),
    Figure("protocol-operating-scifact", "docs/protocol.md",
           "python benchmarks/protocol_operating.py OUT --as-run --json docs/figures/protocol-operating-scifact.json",
           operating, [["benchmarks/protocol_operating.py", "{from}", "--as-run", "--json", "{json}"]],
           needs_from="the SciFact protocol run's folder (OUT: hcrbench run examples/scifact-protocol.toml, every "
                      "backend hash, --force-test; ~30 min)"),
    Figure("protocol-operating-readme", "docs/protocol.md",
           "python benchmarks/protocol_operating.py OUT --as-run --json docs/figures/protocol-operating-readme.json",
           operating, [["benchmarks/protocol_operating.py", "{from}", "--as-run", "--json", "{json}"]],
           needs_from="the README's quickstart folder (OUT: scripts/readme_figures.py renders the README's result "
                      "block from the same folder)"),
    Figure("protocol-rules-sim", "docs/protocol.md",
           "python benchmarks/protocol_rules_sim.py --reps 2000 --seed 0 --json docs/figures/protocol-rules-sim.json",
           rules_sim, [SIM], replay=[SIM]),
    Figure("protocol-calibration", "docs/protocol.md",
           "python benchmarks/calibrate_rules.py --worlds 12 --reps 1000 --max-looks 4 --worlds-per-batch 2 "
           "--queries-per-world 60 --json docs/figures/protocol-calibration.json", calibration, [CAL], replay=[CAL]),
    Figure("protocol-known-truth", "docs/protocol.md",
           f"python benchmarks/known_truth_quickstart.py --seeds {KT_SEEDS} --jobs 3 --json PART, then the same "
           f"with --world-sd {KT_SD} (the same workdir, so the same pilots; two parts, saved together)", known_truth,
           [KT, [*KT[:-2], "--world-sd", KT_SD, *KT[-2:]]], timing=True),  # minutes: not byte-replayable
    Figure("context-perfect-control", "docs/context.md",
           f"python benchmarks/perfect_control.py {PC_DATA} --generate --out OUT --through-only --json "
           "docs/figures/context-perfect-control.json", perfect_control,
           [[PC, *PC_DATA.split(), "--generate", "--out", "{tmp}", "--through-only", "--json", "{json}"]],
           replay=[[PC, "small-21", "--generate", "--out", "{tmp}", "--through-only", "--json", "{json}"]],
           compare=_one_folder("small-21", "through")),
    Figure("context-passage-control", "docs/context.md",
           f"python {PSG} {PSG_DATA} --generate --out OUT --json docs/figures/context-passage-control.json",
           lambda doc: bench("passage_control").markdown(doc),
           [[PSG, *PSG_DATA.split(), "--generate", "--out", "{tmp}", "--json", "{json}"]],
           replay=[[PSG, "small-7001", "--generate", "--out", "{tmp}", "--json", "{json}"]],
           compare=_one_folder("small-7001", "signals")),
    Figure("context-delivery-bounds", "docs/context.md",
           f"python benchmarks/perfect_control.py {PC_DATA} --generate --out OUT --bounds-only --json PART, then "
           "--minilm on small-21 small-37 medium-77 and --chunk-tokens 64 on small-21 medium-37 (three parts, saved "
           "together)", delivery_bounds,
           [[PC, *PC_DATA.split(), "--generate", "--out", "{tmp}", "--bounds-only", "--json", "{json}"],
            [PC, "small-21", "small-37", "medium-77", "--generate", "--out", "{tmp}", "--bounds-only", "--minilm",
             "--json", "{json}"],
            [PC, "small-21", "medium-37", "--generate", "--out", "{tmp}", "--bounds-only", "--chunk-tokens", "64",
             "--json", "{json}"]],
           replay=[[PC, "small-21", "--generate", "--out", "{tmp}", "--bounds-only", "--json", "{json}"]],
           compare=_one_folder("small-21", "bounds")),
    Figure("context-perfect-ties", "docs/context.md",
           f"python {PT} {PC_DATA} --generate --out OUT --json docs/figures/context-perfect-ties.json",
           lambda doc: bench("perfect_ties").markdown(doc),
           [[PT, *PC_DATA.split(), "--generate", "--out", "{tmp}", "--json", "{json}"]],
           replay=[[PT, "small-21", "--generate", "--out", "{tmp}", "--json", "{json}"]],
           compare=_one_folder("small-21", "budgets")),
]

FIGS.append(Figure(
    "datasets-smart-bm25", "docs/datasets.md",
    "python benchmarks/smart_bm25.py --json docs/figures/datasets-smart-bm25.json",
    lambda doc: bench("smart_bm25").markdown(doc), [["benchmarks/smart_bm25.py", "--json", "{json}"]],
    replay=[["benchmarks/smart_bm25.py", "--json", "{json}"]]))

FIGS.append(Figure(
    "baselines-bm25-grid", "docs/baselines.md",
    "python benchmarks/bm25_grid.py --dataset ../shared/datasets/scifact --json docs/figures/baselines-bm25-grid.json",
    lambda doc: bench("bm25_grid").markdown(doc),
    [["benchmarks/bm25_grid.py", "--json", "{json}"]], replay=[["benchmarks/bm25_grid.py", "--json", "{json}"]]))

FIGS.append(Figure(
    "gate-controls-scifact", "docs/gate.md",
    "python benchmarks/gate_controls.py --dataset ../shared/datasets/scifact --json "
    "docs/figures/gate-controls-scifact.json",
    lambda doc: bench("gate_controls").markdown(doc),
    [["benchmarks/gate_controls.py", "--json", "{json}"]], replay=[["benchmarks/gate_controls.py", "--json", "{json}"]]))

SANITY = ["benchmarks/meridian_sanity.py", "--seed", "0", "--size", "medium", "--json", "{json}"]
FIGS.append(Figure(
    "meridian-bm25-sanity", "docs/meridian.md",
    "python benchmarks/meridian_sanity.py --seed 0 --size medium --json docs/figures/meridian-bm25-sanity.json",
    lambda doc: bench("meridian_sanity").markdown(doc), [SANITY], replay=[SANITY]))

for _name, _ds in (("gate-ladder-scifact", "scifact"), ("gate-ladder-nfcorpus", "nfcorpus-processed")):
    _cmd = ["benchmarks/gate_ladder.py", "--dataset", f"../shared/datasets/{_ds}", "--bm25", "--json", "{json}"]
    FIGS.append(Figure(
        _name, "docs/gate.md",
        f"python benchmarks/gate_ladder.py --dataset ../shared/datasets/{_ds} --bm25 --json docs/figures/{_name}.json",
        lambda doc: bench("gate_ladder").markdown(doc), [_cmd], replay=[_cmd]))

FIGS.append(Figure(
    "policy-code-bm25", "docs/policy.md", "python benchmarks/policy_code.py --json docs/figures/policy-code-bm25.json",
    lambda doc: bench("policy_tables").markdown(doc["docs"], doc["strata"]),
    [["benchmarks/policy_code.py", "--json", "{json}"]], replay=[["benchmarks/policy_code.py", "--json", "{json}"]]))

FIGS.append(Figure(
    "meridian-topics", "docs/meridian.md",
    "python benchmarks/meridian_topics.py --docs --json docs/figures/meridian-topics.json",
    lambda doc: bench("meridian_topics").markdown(doc),
    [["benchmarks/meridian_topics.py", "--docs", "--json", "{json}"]],
    replay=[["benchmarks/meridian_topics.py", "--docs", "--json", "{json}"]]))

TIERS = ["benchmarks/meridian_tiers.py", "--json", "{json}"]
FIGS.append(Figure(
    "meridian-tiers", "docs/meridian.md", "python benchmarks/meridian_tiers.py --json docs/figures/meridian-tiers.json",
    lambda doc: bench("meridian_tiers").markdown(doc), [TIERS], replay=[TIERS]))

LEXICAL = ["benchmarks/meridian_lexical.py", "--json", "{json}"]
FIGS.append(Figure(
    "meridian-lexical", "docs/meridian.md",
    "python benchmarks/meridian_lexical.py --json docs/figures/meridian-lexical.json",
    lambda doc: bench("meridian_lexical").markdown(doc), [LEXICAL], replay=[LEXICAL]))

BOUNDS = ["benchmarks/meridian_bounds.py", "--json", "{json}"]
FIGS.append(Figure(
    "meridian-bounds", "docs/meridian.md",
    "python benchmarks/meridian_bounds.py --json docs/figures/meridian-bounds.json",
    lambda doc: bench("meridian_bounds").markdown(doc), [BOUNDS], replay=[BOUNDS]))

FIGS.append(Figure(
    "policy-code-email", "docs/policy.md",
    "python benchmarks/policy_code.py --package email --system bm25 --system dense --json "
    "docs/figures/policy-code-email.json",
    lambda doc: bench("policy_tables").markdown(doc["docs"], doc["strata"]),
    [["benchmarks/policy_code.py", "--package", "email", "--system", "bm25", "--system", "dense", "--json", "{json}"]],
    # the slow test re-measures the BM25 half (seconds; dense encodes with MiniLM for minutes)
    replay=[["benchmarks/policy_code.py", "--package", "email", "--system", "bm25", "--json", "{json}"]],
    compare=lambda saved, got: (json.dumps(saved["docs"][0], indent=1), json.dumps(got["docs"][0], indent=1))))

FIGURES: dict[str, Figure] = {f.name: f for f in FIGS}

# ------------------------------------------------------------------------------------------ timings (stamped)


def _timing(name: str, page: str, argv: list[str], render: Callable[[dict[str, Any]], str]) -> Figure:
    """A timing block: the command, its JSON stamped by --measure, the machine / load / date line first."""
    cmd = " ".join(["python", *argv, "--json", f"docs/figures/{name}.json"])
    return Figure(name, page, cmd, lambda doc: measured_on(doc) + "\n\n" + render(doc), [[*argv, "--json", "{json}"]],
                  timing=True)


TIMINGS = [
    _timing("context-selection-cost", "docs/context.md", ["benchmarks/bench_context.py", "--repeats", "5"],
            lambda doc: bench("bench_context").markdown(doc)),
    _timing("baselines-speed", "docs/baselines.md",
            ["benchmarks/bench_retrieval.py", "--dataset", "../shared/datasets/scifact"],
            lambda doc: bench("bench_retrieval").markdown(doc)),
    _timing("metrics-read-trec", "docs/metrics.md",
            ["benchmarks/bench_trec_read.py", "--queries", "5000", "--depth", "1000", "--repeat", "3"],
            lambda doc: bench("bench_trec_read").markdown(doc)),
    _timing("baselines-scifact", "docs/baselines.md",
            ["benchmarks/beir_table.py", "--dataset", "../shared/datasets/scifact", "--backend", "onnx",
             "--skip-rerank"], lambda doc: bench("beir_table").markdown(doc)),
    _timing("scale-ray", "docs/scale.md", ["benchmarks/bench_ray.py", "--encode-texts", "100"],
            lambda doc: bench("bench_ray").markdown(doc)),
    _timing("protocol-world-variance", "docs/protocol.md",
            ["benchmarks/world_variance.py", "--worlds", "8", "--size", "small", "--seed", "424242"],
            lambda doc: bench("world_variance").markdown(doc)),
]
FIGURES.update({f.name: f for f in TIMINGS})

# ------------------------------------------------------------------------------------------ docs/statistics.md


def _calibration(section: str, ds: str, short: str) -> Figure:
    name = f"statistics-{section}-{short}"
    argv = ["benchmarks/verdict_calibration.py", "--dataset", f"../shared/datasets/{ds}", "--section", section,
            "--reps", "300"]
    cmd = " ".join(["python", *argv, "--json", f"docs/figures/{name}.json"])
    run = [*argv, "--json", "{json}"]
    return Figure(name, "docs/statistics.md", cmd, lambda doc: bench("verdict_calibration").markdown(doc, section),
                  [run], replay=[run])


FIGURES.update({f.name: f for f in (_calibration(sec, ds, short) for sec in ("coverage", "verdicts")
                                    for ds, short in (("scifact", "scifact"), ("nfcorpus-processed", "nfcorpus")))})
