"""Report sections from eval.json, per_query.csv / .parquet and verdicts.json: verdicts, systems, categories, token
efficiency, queries, ledger, run details. Each builder returns a :class:`~hcrbench.report.model.Section`, or a
"not run" one when its input file is absent. The HCR, gate, ablation and growth sections are in
:mod:`hcrbench.report.sections_hcr`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from hcrbench.protocol.words import diff_digits, plain, signed_diff
from hcrbench.report import plots
from hcrbench.report.inputs import ReportInputs
from hcrbench.report.legend import p_header
from hcrbench.report.model import Cell, Figure, Para, Section, Table, not_run

LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: The Holm family kinds of ``hcrbench.stats.compare`` in plain words (when the folder does not state its own).
FAMILY_TEXT = {"metric": "Holm over every system compared with {base}, separately for each metric",
               "run": "Holm over the metrics compared for each system against {base}, separately for each system",
               "all": "Holm over every (system, metric) pair compared with {base}"}
ALPHA = 0.05


def plain_value(x: Any, exact: bool = False) -> str:
    """A value as a reader writes it, never a Python literal: None -> "—", True / False -> "yes" / "no"; a float
    to 3 decimals (``exact``: as given, for settings such as ``k1 = 0.9``)."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, dict):  # an inline table: its settings in words, never a Python dict
        return "(" + "; ".join(f"{k} {plain_value(v, exact)}" for k, v in x.items()) + ")"
    if isinstance(x, (list, tuple)):
        return ", ".join(plain_value(v, exact) for v in x)
    return f3(x) if isinstance(x, float) and not exact else str(x)


def settings_words(text: str) -> str:
    """A rule's text with its ``key = value`` settings written ``key value`` (how the rest of the page writes
    them), without Markdown or internal keys (:func:`hcrbench.protocol.words.plain`)."""
    import re

    return re.sub(r"\b(\w+) = (?=[\w.\-\"'])", r"\1 ", plain(text))


def f3(x: Any, nd: int = 3) -> str:
    """A number to ``nd`` decimals; "—" for missing / NaN."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def fp(p: Any) -> str:
    """A p-value: 4 decimals, scientific below 1e-4."""
    if p is None or not isinstance(p, (int, float)) or not math.isfinite(p):
        return "—"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def signed(x: Any, nd: int = 3) -> str:
    return "—" if x is None or not isinstance(x, (int, float)) or not math.isfinite(x) else f"{x:+.{nd}f}"


@dataclass
class Context:
    """What every section needs to agree on: the main metric, the baseline, the system under test."""

    inp: ReportInputs
    metric: str
    baseline: str | None
    main: str | None
    systems: list[str]
    family: str

    @property
    def comparisons(self) -> list[dict[str, Any]]:
        return list((self.inp.eval or {}).get("comparisons", []))

    def comparison(self, run: str, metric: str | None = None) -> dict[str, Any] | None:
        metric = metric or self.metric
        return next((c for c in self.comparisons if c.get("run") == run and c.get("metric") == metric), None)

    def system_type(self, name: str) -> str:
        return str(((self.inp.manifest or {}).get("systems", {}).get(name) or {}).get("type", ""))


def make_context(inp: ReportInputs) -> Context:
    ev, man, ver = inp.eval or {}, inp.manifest or {}, inp.verdicts or {}
    systems = list(ev.get("runs", {})) or list(man.get("systems", {}))
    metrics = list(man.get("metrics") or [])
    if not metrics and systems:
        metrics = list(ev["runs"][systems[0]]["means"])
    metric = ver.get("metric") or (metrics[0] if metrics else "nDCG@10")
    comps = ev.get("comparisons") or []
    baseline = comps[0].get("baseline") if comps else man.get("baseline")
    main = ver.get("system")
    if main not in systems:
        main = "hcr" if "hcr" in systems else next((s for s in systems if s != baseline), None)
    fam = next((f for f in (ver.get("family"), ev.get("family"), (inp.gate or {}).get("family"))
                if isinstance(f, str) and f), None)
    if fam is None:
        kind = (comps[0].get("family") if comps else None) or (man.get("config") or {}).get("family", "run")
        fam = FAMILY_TEXT.get(kind, f"Holm family {kind!r}").format(base=baseline or "the baseline")
    return Context(inp, metric, baseline, main, systems, fam)


# ----------------------------------------------------------------------------------------------- systems


def significance_letters(ctx: Context, metrics: list[str]) -> dict[tuple[str, str], str]:
    """ranx-style superscripts: (system, metric) -> letters of the systems it beats significantly (Holm p <
    0.05, positive delta). Only the pairs eval.json compared (each system against the baseline) are marked."""
    letter = {s: LETTERS[i % len(LETTERS)] for i, s in enumerate(ctx.systems)}
    out: dict[tuple[str, str], str] = {}
    for c in ctx.comparisons:
        p, d, run, base, m = c.get("p_holm"), c.get("delta"), c.get("run"), c.get("baseline"), c.get("metric")
        if m not in metrics or p is None or d is None or p >= ALPHA or d == 0 or run not in letter \
                or base not in letter:
            continue
        winner, loser = (run, base) if d > 0 else (base, run)
        out[(winner, m)] = "".join(sorted(out.get((winner, m), "") + letter[loser]))
    return out


def plain_comparison(c: dict[str, Any]) -> str:
    """One sentence: who wins by how much, and whether it is significant."""
    d, p = c.get("delta"), c.get("p_holm")
    if d is None or p is None:
        return "not compared"
    if p < ALPHA:
        word = "beats" if d > 0 else "loses to"
        return f"{c['run']} {word} {c['baseline']} by {abs(d):.{diff_digits(d)}f} {c['metric']} (Holm p = {fp(p)})"
    return f"no significant difference ({c['run']} {signed_diff(d)} {c['metric']}, Holm p = {fp(p)})"


def systems_section(ctx: Context) -> Section:
    ev = ctx.inp.eval
    title = "Systems"
    if ev is None:
        return not_run("systems", title, "eval.json is absent: run the experiment (hcrbench run CONFIG).")
    metrics = list((ctx.inp.manifest or {}).get("metrics") or ev["runs"][ctx.systems[0]]["means"])
    sup = significance_letters(ctx, metrics)
    best = {m: max((ev["runs"][s]["means"].get(m) or -math.inf for s in ctx.systems), default=None) for m in metrics}
    rows = []
    for i, s in enumerate(ctx.systems):
        means = ev["runs"][s]["means"]
        row = [Cell(LETTERS[i % len(LETTERS)], tone="muted"), Cell(s, bold=s == ctx.main),
               Cell(ctx.system_type(s) or "—", tone="muted")]
        for m in metrics:
            x = means.get(m)
            row.append(Cell(f3(x), num=True, bold=x is not None and x == best[m], sup=sup.get((s, m), "")))
        rows.append(row)
    n = next(iter(ev["runs"].values()))["ledger"].get("n_queries_averaged") \
        if "ledger" in next(iter(ev["runs"].values())) else None
    blocks: list[Any] = []
    lines = [plain_comparison(c) for c in ctx.comparisons if c.get("metric") == ctx.metric]
    if lines:
        blocks.append(Para(f"Against the baseline {ctx.baseline} on {ctx.metric}:", items=lines, kind="bullets"))
    blocks.append(Table(
        "systems", f"Mean scores over {n if n is not None else 'the'} queries (best in bold)", ["#", "system", "type",
                                                                                               *metrics], rows,
        notes=(f"Superscripts: significantly better than the system with that letter (paired permutation test, "
               f"{ctx.family}, p < {ALPHA}); only comparisons against the baseline {ctx.baseline} were tested.")))
    crow = []
    for c in ctx.comparisons:
        p = c.get("p_holm")
        tone = None if p is None or p >= ALPHA else ("good" if c["delta"] > 0 else "bad")
        crow.append([Cell(c["run"]), Cell(c["metric"]), Cell(signed(c.get("delta")), num=True, tone=tone),
                     Cell(f"[{signed(c.get('ci_low'))}, {signed(c.get('ci_high'))}]", num=True),
                     Cell(fp(p), num=True, tone=tone),
                     Cell(f3(c.get("cohens_d"), 2), num=True),
                     Cell(f"{c.get('helped', '—')}/{c.get('hurt', '—')}/{c.get('tied', '—')}", num=True)])
    if crow:
        fig = plots.delta_forest([{"label": c["run"], "delta": c["delta"], "ci_low": c["ci_low"],
                                   "ci_high": c["ci_high"], "p_holm": c.get("p_holm")}
                                  for c in ctx.comparisons if c.get("metric") == ctx.metric
                                  and c.get("ci_low") is not None], ctx.metric, ctx.baseline or "baseline")
        if fig:
            blocks.append(Figure("deltas", f"{ctx.metric} difference of each system from {ctx.baseline}, 95% CI",
                                 fig))
        blocks.append(Table("comparisons", f"Paired comparisons against {ctx.baseline} (95% CI of the delta)",
                            ["system", "metric", "delta", "95% CI",
                             p_header([c.get("family_size") or len(ctx.comparisons) for c in ctx.comparisons]),
                             "Cohen's d", "helped/hurt/tied"],
                            crow, notes=f"One test per table: a paired permutation test, one p per row, Holm-adjusted; "
                                        f"family: {ctx.family} (the unadjusted permutation p is in eval.json)."))
    seeds = ev.get("seed_aggregates") or {}
    if seeds:
        srows = []
        for group, per_metric in seeds.items():
            members = next(iter(per_metric.values())).get("members", [])
            cells = [Cell(group), Cell(", ".join(members), tone="muted")]
            cells += [Cell(f"{f3(a.get('mean'))} ± {f3(a.get('sd'))}" if (a := per_metric.get(m)) else "—", num=True)
                      for m in metrics]
            srows.append(cells)
        blocks.append(Table("seeds", "Stochastic systems over seeds: mean ± SD of the per-seed means",
                            ["group", "seeds", *metrics], srows))
        for c in ev.get("seed_comparisons") or []:
            if c.get("metric") == ctx.metric:
                blocks.append(Para(f"Seed-averaged: {plain_comparison(c)}, 95% CI [{signed(c.get('ci_low'))}, "
                                   f"{signed(c.get('ci_high'))}].", kind="note"))
    return Section("systems", title, blocks)


# ----------------------------------------------------------------------------------------------- categories


def categories_section(ctx: Context) -> Section:
    df = ctx.inp.per_query
    title = "Per category"
    if df is None:
        return not_run("categories", title, "the per-query table (per_query.csv) is absent: run the experiment (hcrbench run).")
    if "category" not in df.columns or ctx.metric not in df.columns:
        return not_run("categories", title, f"the per-query table has no 'category' or {ctx.metric!r} column "
                                            "(add strata = [\"category\"] to the config).")
    systems = [s for s in ctx.systems if s in set(df["run"])] or sorted(set(df["run"]))
    cats = sorted(str(c) for c in set(df["category"].dropna()))
    means = df.groupby(["run", "category"])[ctx.metric].mean()
    counts = df[df["run"] == systems[0]].groupby("category")["query_id"].count()
    values = [[float(means.get((s, c), float("nan"))) for c in cats] for s in systems]
    base = ctx.baseline if ctx.baseline in systems else None
    rows = []
    for j, c in enumerate(cats):
        row = [Cell(c), Cell(str(int(counts.get(c, 0))), num=True)]
        b = values[systems.index(base)][j] if base else None
        col = [values[i][j] for i in range(len(systems))]
        top = max((x for x in col if math.isfinite(x)), default=None)
        for i, s in enumerate(systems):
            x = values[i][j]
            tone = None
            if b is not None and s != base and math.isfinite(x):
                tone = "good" if x > b + 0.02 else "bad" if x < b - 0.02 else None
            row.append(Cell(f3(x), num=True, tone=tone, bold=x == top))
        rows.append(row)
    blocks: list[Any] = [Table("categories", f"Mean {ctx.metric} per query category (best in bold)",
                               ["category", "n", *systems], rows,
                               notes=(f"Green / red: more than 0.02 above / below {base} in that category "
                                      "(descriptive; not tested per category)." if base else ""))]
    fig = plots.category_heatmap(systems, cats, values, ctx.metric)
    if fig:
        blocks.append(Figure("categories", f"{ctx.metric} per system and query category", fig))
    return Section("categories", title, blocks)


# ----------------------------------------------------------------------------------------------- sufficiency


def sufficiency_section(ctx: Context) -> Section:
    title = "Token efficiency"
    doc = (ctx.inp.eval or {}).get("sufficiency")
    if doc is None:
        return not_run("sufficiency", title, "eval.json has no 'sufficiency' (set budgets = [...] in the config).")
    from hcrbench.report.curves import bottom_lines

    suff_head = doc.get("headline")
    blocks: list[Any] = []
    others = [s for s in doc["systems"] if s not in (ctx.main, doc.get("baseline"))]
    lines = [ln for ln in bottom_lines(doc) if not any(ln.startswith(f"{s}:") for s in others)
             and not ln.startswith("budget-feasible at") and "token-efficiency ratio" not in ln
             and "within the budgets tried" not in ln  # feasibility and token efficiency: the tables below
             and not (ln.startswith("B=") and f"({ctx.main} only " not in ln)]  # paired tests: the main system's
    if lines:
        blocks.append(Para(f"What the budgets say (per-system failure rates shown for {ctx.main} and "
                           f"{doc.get('baseline')}):", items=lines, kind="bullets"))
    fig = plots.sufficiency_curves(doc)
    if fig:
        blocks.append(Figure("sufficiency", f"sufficiency@B ({suff_head}) per system, 95% bootstrap CI bands", fig))
    rows = []
    for name, e in doc["systems"].items():
        cells = [Cell(name, bold=name == ctx.main)]
        for key in doc["budgets"]:
            r = (e["rates"].get(key) or {}).get(suff_head) if suff_head else None
            cells.append(Cell("—" if r is None else f"{100 * r['rate']:.1f} [{100 * r['low']:.1f}, "
                                                    f"{100 * r['high']:.1f}]", num=True))
        rows.append(cells)
    blocks.append(Table("sufficiency", f"Sufficiency@B: % of {doc.get('n_queries')} queries whose context holds "
                                       f"the evidence ({suff_head}), [95% CI]",
                        ["system", *[f"B={k}" for k in doc["budgets"]]], rows,
                        notes=f"{doc.get('selection')} selection, {doc.get('token_counter')} tokens; B=all is "
                              "unconstrained."))
    from hcrbench.report.sufficiency_tables import efficiency_table, failure_tables

    blocks.extend(failure_tables(doc))
    eff = efficiency_table(doc)
    if eff is not None:
        blocks.append(eff)
    return Section("sufficiency", title, blocks)


# ----------------------------------------------------------------------------------------------- queries


def queries_section(ctx: Context, n: int = 5) -> Section:
    title = "Biggest wins and losses"
    df = ctx.inp.per_query
    if df is None or ctx.main is None or ctx.baseline is None or ctx.main == ctx.baseline:
        return not_run("queries", title, "needs the per-query table (per_query.csv) and a system besides the baseline.")
    a = df[df["run"] == ctx.main].set_index("query_id")
    b = df[df["run"] == ctx.baseline].set_index("query_id")
    if ctx.metric not in df.columns or a.empty or b.empty:
        return not_run("queries", title, f"the per-query table holds no {ctx.metric} for {ctx.main} and "
                                         f"{ctx.baseline}.")
    d = (a[ctx.metric] - b[ctx.metric].reindex(a.index).fillna(0.0)).sort_values(kind="mergesort")
    picks = [("loss", q) for q in d.index[:n] if d[q] < 0] + [("win", q) for q in d.index[::-1][:n] if d[q] > 0]
    rows = [[Cell(kind, tone="bad" if kind == "loss" else "good"), Cell(str(q)),
             Cell(str(a.loc[q].get("category", "—")) if "category" in a.columns else "—"),
             Cell(ctx.inp.queries.get(str(q), "(text not available)")),
             Cell(f3(float(a.loc[q, ctx.metric])), num=True), Cell(f3(float(b.loc[q, ctx.metric])), num=True),
             Cell(signed(float(d[q])), num=True)] for kind, q in picks]
    if not rows:
        return Section("queries", title, [Para(f"{ctx.main} and {ctx.baseline} tie on every query.")])
    return Section("queries", title, [Table(
        "queries", f"Queries where {ctx.main} differs most from {ctx.baseline} on {ctx.metric}",
        ["", "query", "category", "text", ctx.main, ctx.baseline, "delta"], rows, latex=False)])


# ----------------------------------------------------------------------------------------------- ledger


def ledger_section(ctx: Context) -> Section:
    title = "Ledger"
    ev = ctx.inp.eval
    if ev is None:
        return not_run("ledger", title, "eval.json is absent.")
    rows = []
    for s in ctx.systems:
        lg = ev["runs"][s].get("ledger") or {}
        unj = lg.get("unjudged_at_k") or {}
        u10 = (unj.get("10") or {}).get("mean")
        rows.append([Cell(s), Cell(str(lg.get("n_queries_averaged", "—")), num=True),
                     Cell(str(lg.get("n_qrels_queries", "—")), num=True),
                     Cell(str(lg.get("n_run_queries", "—")), num=True),
                     Cell(str(len(lg.get("zero_filled") or [])), num=True,
                          tone="warn" if lg.get("zero_filled") else None),
                     Cell(str(len(lg.get("skipped") or [])), num=True), Cell(str(len(lg.get("no_relevant") or [])),
                                                                             num=True),
                     Cell(f3(u10, 1), num=True), Cell(str(lg.get("missing_policy", "—")))])
    return Section("ledger", title, [Table(
        "ledger", "Which queries every mean is over",
        ["system", "averaged", "in qrels", "in run", "zero-filled", "skipped", "no relevant", "unjudged@10",
         "missing"], rows, notes="unjudged@10: mean number of unjudged documents in the top 10 per query.")])


def details_section(ctx: Context) -> Section:
    title = "Run details"
    man = ctx.inp.manifest
    if man is None:
        return not_run("details", title, "manifest.json is absent.")
    ds = man.get("dataset") or {}
    from hcrbench.experiment.manifest import REPORTING

    status = man.get("status", "—")
    status = "complete" if status == REPORTING else status  # what writing this report makes it
    items = [f"experiment: {man.get('name', '—')} ({status})",
             f"dataset: {ds.get('path', '—')}, split {ds.get('split', '—')}: {ds.get('n_documents', '—')} documents, "
             f"{ds.get('n_queries', '—')} queries ({ds.get('n_judged_queries', '—')} judged)",
             f"seed {man.get('seed', '—')}, depth k = {man.get('k', '—')}, relevance threshold "
             f"{man.get('rel_threshold', '—')}, baseline {man.get('baseline', '—')}",
             f"hcrbench commit {man.get('hcrbench_commit') or '—'}",
             "versions: " + ", ".join(f"{k} {v}" for k, v in (man.get("versions") or {}).items())]
    # No wall-clock seconds here: they differ between two identical runs and live in manifest.json only, so the
    # report of the same inputs is the same bytes.
    rows = [[Cell(n), Cell(str(e.get("type", "—"))),
             Cell(", ".join(f"{k} {plain_value(v, exact=True)}" for k, v in (e.get("config_params") or {}).items())
                  or "—",
                  tone="muted")]
            for n, e in (man.get("systems") or {}).items() if isinstance(e, dict)]
    return Section("details", title, [Para(items=items, kind="bullets"),
                                      Table("timings", "Systems as configured", ["system", "type",
                                                                                 "parameters set"], rows,
                                            notes="Wall-clock seconds per system: manifest.json (systems.NAME."
                                                  "seconds, timings).", latex=False)])


# the verdict section (its own module: hcrbench.report.sections_verdicts), re-exported where callers import it
from hcrbench.report.sections_verdicts import headline, level_text, verdicts_section  # noqa: E402, F401
