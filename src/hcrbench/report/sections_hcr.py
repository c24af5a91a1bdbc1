"""Report sections for the hierarchical retriever and the protocol's extra files: routing and tree quality
(``tree_metrics.json``), the gate and its controls (``gate.json``), the ablation table (the manifest's systems of
the main system's type), bench-size calibration (``gate.json``'s ``calibration``) and corpus growth
(``growth.json``). Each returns a "not run" section when its input is absent.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from hcrbench.report import plots
from hcrbench.report.legend import p_header
from hcrbench.report.model import Cell, Figure, Para, Section, Table, not_run
from hcrbench.report.sections import ALPHA, Context, f3, fp, plain_comparison, plain_value, signed

_ABLATION_ID = re.compile(r"^(A\d+(?:\+A\d+)*)")
_IGNORED_PARAMS = {"log_path"}


def _within(observed: float | None, predicted: float | None, tol: float = 0.10) -> bool | None:
    if observed is None or predicted is None or not predicted:
        return None
    return abs(observed - predicted) / predicted <= tol


# ----------------------------------------------------------------------------------------------- routing, tree


def routing_section(ctx: Context) -> Section:
    title = "Routing and tree quality"
    tm = ctx.inp.tree_metrics
    if not tm:
        return not_run("routing", title, "tree_metrics.json is absent: no HCR-like system wrote a routing log "
                                         "(hcrbench tree-metrics LOG --dataset DIR --json FILE makes one entry).")
    depth = max((len(rep["routing"].get("eps_any") or []) for rep in tm.values()), default=0)
    rows, lines = [], []
    subject_tree = ctx.main is None or ctx.main in tm  # a subject with no routing log: these are comparators
    why = " (H1c criterion)" if subject_tree else ""
    for name, rep in tm.items():
        r = rep["routing"]
        if not r.get("n_queries") and not r.get("eps_any"):  # e.g. A1 (flat): a log without levels
            lines.append(f"{name}: no query was routed through the tree (its routing log has no levels).")
            continue
        eps = list(r.get("eps_any") or [])
        ok = _within(r.get("accuracy"), r.get("predicted_power"))
        rows.append([Cell(name), Cell(str(r.get("n_queries", "—")), num=True),
                     *[Cell(f3(eps[i]) if i < len(eps) else "—", num=True,
                            tone="bad" if i < len(eps) and eps[i] is not None and eps[i] > 0.10 else None)
                       for i in range(depth)],
                     Cell(f3(r.get("accuracy")), num=True), Cell(f3(r.get("predicted_product")), num=True),
                     Cell(f3(r.get("predicted_power")), num=True),
                     Cell("—" if ok is None else "yes" if ok else "no", tone=None if ok is None else
                          "good" if ok else "bad")])
        if ok is not None:
            lines.append(f"{name}: {f3(r.get('accuracy'))} of judged queries keep a relevant branch down to the "
                         f"leaves; (1 - mean eps)^d predicts {f3(r.get('predicted_power'))}: observed is "
                         f"{'within' if ok else 'outside'} ±10%{why}.")
    blocks: list[Any] = []
    if not subject_tree:
        blocks.append(Para(f"{ctx.main}, the system under test, writes no routing log: the tree rules (tree "
                           "sanity, routing, dual path, routing explains quality) were not run for it. The systems "
                           "below are the field's tree retrievers, shown as comparators."))
    if lines:
        blocks.append(Para(items=lines, kind="bullets"))
    blocks.append(Table("routing", "Routing error per level: eps = share of queries whose beam keeps no relevant "
                                   "branch (red: above 0.10)",
                        ["system", "queries", *[f"eps L{i}" for i in range(1, depth + 1)], "observed accuracy",
                         "prod(1 - eps)", "(1 - mean eps)^d", "within ±10%"], rows))
    fig = plots.routing_levels(tm)
    if fig:
        blocks.append(Figure("routing", "Routing accuracy per level (bars), cumulative product (dashed), observed "
                                        "at the leaves (diamond) vs (1 - mean eps)^d (cross)", fig))
    blocks.append(_tree_table(tm))
    return Section("routing", title, blocks)


def _tree_table(tm: dict[str, Any]) -> Table:
    names = list(tm)

    def row(label: str, get: Any, crit: str = "", good: Any = None, *, count: bool = False,
            per_query: bool = False) -> list[Cell]:
        cells = [Cell(label), Cell(crit, tone="muted")]
        for n in names:
            try:
                x = get(tm[n])
            except (KeyError, TypeError, IndexError):
                x = None
            tone = None
            if good is not None and isinstance(x, (int, float)):
                tone = "good" if good(x) else "bad"
            cells.append(Cell(_count(x, per_query) if count else (f3(x) if not isinstance(x, str) else x),
                              num=True, tone=tone))
        return cells

    rows = [row("depth", lambda r: r["tree"]["depth"], count=True),
            row("nodes", lambda r: r["tree"]["n_nodes"], count=True),
            row("sibling distinctiveness (mean)", lambda r: r["tree"]["sibling_distinctiveness"]["mean"],
                ">= 0.15 (tree sanity)", lambda x: x >= 0.15),
            row("sibling distinctiveness (min)", lambda r: r["tree"]["sibling_distinctiveness"]["min"]),
            row("summary fidelity (cosine to centroid)", lambda r: r["tree"]["summary_fidelity"]["cosine_mean"]),
            row("summary closest to own centroid", lambda r: r["tree"]["summary_fidelity"]["own_centroid_rate"]),
            row("dendrogram purity", lambda r: r["tree"]["dendrogram_purity"])]
    levels = sorted({k for n in names for k in (tm[n].get("tree", {}).get("purity_per_level") or {})}, key=str)
    rows += [row(f"purity at L{k}", lambda r, k=k: r["tree"]["purity_per_level"][k]) for k in levels]
    reach = sorted({k for n in names for k in (tm[n].get("tree", {}).get("leaf_reachability") or {})}, key=float)
    rows += [row(f"leaf reachability at eps {k}", lambda r, k=k: r["tree"]["leaf_reachability"][k]) for k in reach]
    rows += [row("entity-link coverage", lambda r: r["entity_links"]["coverage"]),
             row("beam / collapsed agree on top document", lambda r: r["path_agreement"]["agreement"]),
             row("nodes scored per query", lambda r: r["cost"]["nodes_scored_per_query"], count=True,
                 per_query=True),
             row("chunks scored per query", lambda r: r["cost"]["chunks_scored_per_query"], "mean; see note",
                 count=True, per_query=True),
             row("chunks in the tree", lambda r: r["cost"]["n_chunks"], count=True)]
    return Table("tree", "Tree quality and routing cost", ["measure", "criterion", *names], rows,
                 notes="Chunks scored per query count every chunk score a query computed: a chunk scored by both "
                       "paths, or again by the entity-link step, counts each time, so the mean can exceed the "
                       "chunks in the tree. Counts are whole numbers; per-query figures are means over queries.")


# ----------------------------------------------------------------------------------------------- gate


def gate_section(ctx: Context) -> Section:
    title = "Gate and controls"
    g = ctx.inp.gate
    if g is None:
        return not_run("gate", title, "gate.json is absent: the four-null gate was not run "
                                      "(hcrbench gate RUNS --dataset DIR --controls --json gate.json).")
    from hcrbench.gate import NULL_TITLES

    nulls = list(NULL_TITLES)
    rows = []
    for name, pair in g["systems"].items():
        for kind in ("graded", "strict"):
            r = pair.get(kind) if isinstance(pair, dict) else None
            if not r:
                continue
            cells = [Cell(name), Cell(str(r.get("metric", kind))), Cell(f3(r.get("real_mean")), num=True)]
            for x in nulls:
                nr = (r.get("nulls") or {}).get(x)
                cells.append(Cell("—" if nr is None else f"{f3(nr.get('mean'))} {'✓' if nr.get('passed') else '✗'}",
                                  num=True, tone=None if nr is None or nr.get("passed") else "bad"))
            ok = bool(r.get("gate_pass"))
            cells.append(Cell("pass" if ok else "FAIL", tone="good" if ok else "bad", bold=True))
            rows.append(cells)
    n_fail = sum(1 for r in rows if r[-1].text == "FAIL")
    blocks: list[Any] = []
    fam = g.get("family")
    fam_text = fam if isinstance(fam, str) else (f"Holm family kind '{fam.get('kind')}'" if isinstance(fam, dict)
                                                 else None)
    ctrl = g.get("controls")
    trusted = None if not ctrl else bool(ctrl.get("trusted"))
    blocks.append(Para(f"{len(rows) - n_fail} of {len(rows)} gated results pass"
                       + ("" if trusted is None else "; the harness is trusted (every control classified as "
                          "expected)" if trusted else "; the harness is NOT trusted (a control was misclassified)")
                       + (f". Family: {fam_text}." if fam_text else ".")))
    blocks.append(Table("gate", "Four-null gate: real mean, each null's mean (✓ = beaten by the margin)",
                        ["system", "metric", "real", *[f"null {x}" for x in nulls], "gate"], rows,
                        notes="Nulls: " + "; ".join(f"{x} = {NULL_TITLES[x]}" for x in nulls) + "."))
    if ctrl and ctrl.get("rows"):
        crow = [[Cell(str(r.get("control"))), Cell(str(r.get("metric"))), Cell(f3(r.get("real")), num=True),
                 Cell("pass" if r.get("expected_pass") else "fail"), Cell("pass" if r.get("gate_pass") else "fail"),
                 Cell("✓" if r.get("ok") else "✗", tone="good" if r.get("ok") else "bad")] for r in ctrl["rows"]]
        blocks.append(Table("controls", "Positive and negative controls: expected vs observed gate outcome",
                            ["control", "metric", "real", "expected", "got", "ok"], crow))
    if g.get("verdicts"):
        head = p_header([v.get("family_size") or 0 for v in g["verdicts"]])
        per_row = "m=)" in head
        vrow = []
        for v in g["verdicts"]:
            label = f"HIT {v.get('sign', '')}".strip() if v.get("label") == "HIT" else str(v.get("label"))
            tone = {"HIT": "good" if v.get("sign") == "+" else "bad", "NULL-FAIL": "bad", "UNDER-NS": "warn",
                    "MISS": "info"}.get(str(v.get("label")))
            vrow.append([Cell(str(v.get("run"))), Cell(str(v.get("metric"))), Cell(signed(v.get("delta")), num=True),
                         Cell(f"[{signed(v.get('ci_low'))}, {signed(v.get('ci_high'))}]", num=True),
                         Cell(fp(v.get("p_holm")) + (f" (m={v.get('family_size', '—')})" if per_row else ""),
                              num=True),
                         Cell(label, tone=tone, bold=True)])
        blocks.append(Table("gate-verdicts", f"Gate verdicts against {g.get('baseline')} (HIT / UNDER-NS / MISS / "
                                             "NULL-FAIL; one test: paired permutation, Holm)",
                             ["system", "metric", "delta", "95% CI", head, "verdict"], vrow))
    return Section("gate", title, blocks)


# ----------------------------------------------------------------------------------------------- ablations


def _param_diff(main: dict[str, Any], other: dict[str, Any], keys: list[str]) -> list[str]:
    """``key: main value → other value`` for each of ``keys`` (the switches either config set) that differs."""
    keys = [k for k in keys if k not in _IGNORED_PARAMS]
    return [f"{k}: {plain_value(main.get(k), exact=True)} → {plain_value(other.get(k), exact=True)}" for k in keys
            if main.get(k) != other.get(k)]


def _settings(entry: dict[str, Any]) -> dict[str, Any]:
    """A manifest system's settings as one flat dict: its parameters and its chunking (``"off"`` for whole
    documents, else its settings), so an ablation that also turns chunking on says so."""
    out = {**(entry.get("config_params") or {}), **(entry.get("params") or {})}
    chunking = entry.get("chunking")
    out["chunking"] = (", ".join(f"{k}={plain_value(v, exact=True)}" for k, v in sorted(chunking.items()) if v is not None)
                       if chunking else "off")
    return out


def _count(x: Any, per_query: bool) -> str:
    """A count as a whole number (``3,783``); a per-query mean of counts with one decimal (``3,857.3``)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return "—" if x is None else str(x)
    return f"{x:,.1f}" if per_query and x != int(x) else f"{round(x):,}"


def ablation_section(ctx: Context, n_resamples: int = 10_000) -> Section:
    title = "Ablations"
    man, ev = ctx.inp.manifest, ctx.inp.eval
    if man is None or ev is None or ctx.main is None or ctx.main not in (man.get("systems") or {}):
        return not_run("ablations", title, "needs manifest.json and eval.json with the main system.")
    kind = ctx.system_type(ctx.main)
    others = [s for s in ctx.systems if s != ctx.main and ctx.system_type(s) == kind and s in man["systems"]]
    if not others:
        return not_run("ablations", title, f"no other system of type {kind!r} besides {ctx.main} in this run "
                                            "(ablations are systems of the same type with other parameters).")
    params = {s: _settings(man["systems"][s]) for s in [ctx.main, *others]}
    set_keys = {s: [*(man["systems"][s].get("config_params") or man["systems"][s].get("params") or {}),
                    "chunking"]
                for s in [ctx.main, *others]}
    comps = _paired(ev, ctx.main, others, ctx.metric, n_resamples, int(man.get("seed") or 0))
    rows = []
    with_id = any(_ABLATION_ID.match(s) for s in others)  # an all-dash id column says nothing
    for s in others:
        m = _ABLATION_ID.match(s)
        c = comps.get(s)
        tone = None if c is None or c["p_holm"] >= ALPHA else ("good" if c["delta"] > 0 else "bad")
        vs_base = ctx.comparison(s)
        rows.append([Cell(s), *([Cell(m.group(1) if m else "—", tone="muted")] if with_id else []),
                     Cell("; ".join(_param_diff(params[ctx.main], params[s], list(dict.fromkeys(
                         [*set_keys[ctx.main], *set_keys[s]])))) or "(same parameters)"),
                     Cell(f3(ev["runs"][s]["means"].get(ctx.metric)), num=True),
                     Cell("—" if c is None else f"{signed(c['delta'])} [{signed(c['ci_low'])}, {signed(c['ci_high'])}]",
                          num=True, tone=tone),
                     Cell("—" if c is None else fp(c["p_holm"]), num=True, tone=tone),
                     Cell("—" if vs_base is None else signed(vs_base.get("delta")), num=True)])
    main_mean = f3(ev["runs"][ctx.main]["means"].get(ctx.metric))
    return Section("ablations", title, [Table(
        "ablations", f"Every {kind} system against {ctx.main} ({ctx.metric} {main_mean}): what changed and what it "
                     "did", ["system", *(["id"] if with_id else []), "settings changed (main → this)", ctx.metric,
                             f"delta vs {ctx.main}",
                             p_header(len(others)), f"delta vs {ctx.baseline}"], rows,
        notes=(f"Delta vs {ctx.main}: paired, 95% CI; p from a paired permutation test with Holm over this table's "
               f"{len(others)} comparisons (computed by the report; seed {int(man.get('seed') or 0)})."))])


def _paired(ev: dict[str, Any], main: str, others: list[str], metric: str, n_resamples: int,
            seed: int) -> dict[str, dict[str, Any]]:
    """Paired comparisons of ``others`` with ``main`` from eval.json's per-query values (one Holm family)."""
    import numpy as np

    from hcrbench.stats import compare

    base = (ev["runs"][main].get("per_query") or {}).get(metric)
    if not base:
        return {}
    qids = list(base)
    runs = {main: SimpleNamespace(query_ids=qids, values={metric: np.array([base[q] for q in qids], dtype=float)})}
    for s in others:
        pq = (ev["runs"][s].get("per_query") or {}).get(metric)
        if pq:
            runs[s] = SimpleNamespace(query_ids=qids, values={metric: np.array([pq.get(q, 0.0) for q in qids],
                                                                                dtype=float)})
    if len(runs) < 2:
        return {}
    evaluation = SimpleNamespace(metrics=[metric], runs=runs)
    return {c.run: c.to_dict() for c in compare(evaluation, main, [metric], n_resamples=n_resamples, seed=seed,
                                                 family="all")}


# ----------------------------------------------------------------------------------------------- calibration, growth


def calibration_section(ctx: Context) -> Section:
    title = "Calibration"
    rows = (ctx.inp.gate or {}).get("calibration")
    if not rows:
        return not_run("calibration", title, "gate.json has no bench-size calibration "
                                             "(hcrbench gate ... --baseline NAME --calibration FILE).")
    measured = [r for r in rows if r.get("ci_width") is not None]
    n_bench = max((int(r["n"]) for r in measured), default=0)
    blocks: list[Any] = []
    fig = plots.calibration(rows, n_bench, (ctx.inp.gate or {}).get("min_delta"))
    if fig:
        blocks.append(Figure("calibration", "95% CI width of the delta against the number of queries (measured by "
                                            "bootstrap on subsamples; dashed: SE projection)", fig))
    runs = list(dict.fromkeys(r["run"] for r in rows))
    ns = sorted({int(r["n"]) for r in rows})
    trow = []
    for run in runs:
        by_n = {int(r["n"]): r for r in rows if r["run"] == run}
        trow.append([Cell(run), *[Cell(f3(by_n[n].get("ci_width") if by_n[n].get("ci_width") is not None
                                          else by_n[n].get("projected_width")) + ("" if by_n[n].get("ci_width")
                                                                                  is not None else " (proj.)")
                                       if n in by_n else "—", num=True) for n in ns]])
    blocks.append(Table("calibration", "CI width of the delta by number of queries", ["system", *map(str, ns)], trow,
                        notes=f"This bench has {n_bench} queries; (proj.) = projected from the standard error."))
    return Section("calibration", title, blocks)


def growth_section(ctx: Context) -> Section:
    title = "Corpus growth"
    g = ctx.inp.growth
    if g is None:
        return not_run("growth", title, "growth.json is absent (run with --sizes small,medium,full).")
    blocks: list[Any] = []
    fig = plots.growth(g)
    if fig:
        blocks.append(Figure("growth", f"{g.get('system')} − {g.get('baseline')} on {g.get('metric')} by corpus size",
                             fig))
    rows = [[Cell(str(p.get("size", "—"))), Cell(str(p.get("n_docs", "—")), num=True),
             Cell(signed(p.get("delta")), num=True),
             Cell(f"[{signed(p.get('ci_low'))}, {signed(p.get('ci_high'))}]", num=True), Cell(fp(p.get("p")), num=True)]
            for p in g["points"]]
    blocks.append(Table("growth", f"{g.get('system')} − {g.get('baseline')} ({g.get('metric')}) as the corpus grows",
                        ["size", "documents", "delta", "95% CI", "p"], rows))
    last = g["points"][-1] if g["points"] else None
    if last is not None and last.get("p") is not None:
        blocks.insert(0, Para("At the largest size: " + plain_comparison(
            {"run": g.get("system"), "baseline": g.get("baseline"), "metric": g.get("metric"),
             "delta": last["delta"], "p_holm": last["p"]}).replace("Holm p", "p") + "."))
    return Section("growth", title, blocks)

