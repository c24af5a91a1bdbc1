"""Judge an experiment's budgeted contexts with an LLM (optional): ``hcrbench judge OUTPUT_DIR``.

Rebuilds the exact context texts a run selected (the spans in ``contexts/<system>.jsonl``, in reading order; older
folders: the chunking recorded in ``eval.json``'s ``sufficiency``), asks the Sufficient Context autorater about each
(:mod:`hcrbench.llm.judge`, with its hygiene checks), calibrates the judge against the exact rule (evidence
coverage; Cohen's kappa below 0.6 = "uncalibrated", :mod:`hcrbench.llm.agreement`) on a sample stratified by query
category and exact label, and writes ``judge/<system>@<budget>.json`` atomically with the judge's manifest entry.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.beir import iter_jsonl, read_corpus, read_queries
from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.structured import read_json
from hcrbench.data.tokens import get_counter
from hcrbench.errors import InputError
from hcrbench.llm.agreement import calibration, judge_agreement, stratified_sample
from hcrbench.llm.client import LLMClient
from hcrbench.llm.judge import Judgement, judge_manifest, run_sufficiency_judge


def _text(row: dict[str, Any], doc_texts: dict[str, str], text_of: dict[str, str] | None) -> str:
    """The context of one row as the reader got it (reading order, as ``Selection.text``)."""
    from hcrbench.context import Candidate, Selection

    if "spans" not in row:  # written before spans were recorded: the context chunks by id
        missing = [c for c in row["chunks"] if c not in (text_of or {})]
        if missing:
            raise InputError(f"contexts of query {row['query_id']!r} name units that are no context chunk "
                             f"({missing[0]!r}): written before spans were recorded; re-run `hcrbench run`",
                             field="contexts")
        return "\n\n".join((text_of or {})[c] for c in row["chunks"])
    cands = []
    for i, sp in enumerate(row["spans"]):
        doc, a, b = sp[0], sp[1], sp[2]
        text = doc_texts[doc][a:b] if doc is not None else sp[3]
        cands.append(Candidate(row["chunks"][i], doc or "", a or 0, b or 0, text, 0, 0.0, i))
    return Selection(row["query_id"], row["budget"], "", cands, "", len(cands)).text()


def judge_contexts(output_dir: str | Path, system: str, budget: str, client: LLMClient, *,
                   limit: int | None = None, repeat: bool = True, seed: int = 0, judge2: LLMClient | None = None,
                   progress: Callable[[int, int, Judgement], None] | None = None, wording_sample: int = 20
                   ) -> dict[str, Any]:
    """Judge ``system``'s contexts at ``budget`` (a number or ``all``); returns the written document.

    ``limit``: judge a sample of that many queries, stratified by query category and exact label (``seed``)."""
    out = Path(output_dir)
    ev_path = out / "eval.json"
    if not ev_path.is_file():
        raise InputError("no eval.json here: run `hcrbench run` with budgets first", path=out)
    doc = read_json(ev_path)
    suff = doc.get("sufficiency")
    if not suff:
        raise InputError("eval.json has no 'sufficiency' (the experiment set no budgets)", path=ev_path)
    if budget not in suff["budgets"]:
        raise InputError(f"no budget {budget!r} (budgets: {', '.join(suff['budgets'])})", field="--budget")
    ctx_path = out / "contexts" / f"{system}.jsonl"
    if not ctx_path.is_file():
        systems = sorted(p.stem for p in (out / "contexts").glob("*.jsonl"))
        raise InputError(f"no contexts for system {system!r} (systems: {', '.join(systems)})", field="--system")
    manifest = read_json(out / "manifest.json")
    from hcrbench.gate.integrity import dataset_dir

    root = dataset_dir(out, manifest)  # a moved or copied folder finds its dataset too
    corpus = read_corpus(root / "corpus.jsonl")
    queries = read_queries(root / "queries.jsonl")
    doc_texts = dict(zip(corpus.doc_ids, corpus.texts))
    rows = [row for _, row in iter_jsonl(ctx_path)]
    text_of = None
    if any("spans" not in r for r in rows):
        chunked = chunk_corpus(corpus, max_tokens=suff["params"]["chunk_tokens"], overlap=0,
                               counter=get_counter(suff["token_counter"]))
        text_of = dict(zip(chunked.corpus.doc_ids, chunked.corpus.texts))
    want = None if budget == "all" else int(budget)
    rows = [r for r in rows if r["budget"] == want and r["query_id"] in queries]
    rule = {r["query_id"]: (r.get(suff["headline"]) if suff.get("headline") else None) for r in rows}
    if limit is not None:
        strata = {q: (str(queries.meta(q).get("category")), rule[q]) for q in rule}
        keep = set(stratified_sample([r["query_id"] for r in rows], strata, limit, seed))
        rows = [r for r in rows if r["query_id"] in keep]
    items = [(r["query_id"], queries[r["query_id"]], _text(r, doc_texts, text_of)) for r in rows]
    names = [n for n in manifest.get("systems", {})] + [suff[c] for c in ("oracle", "perfect") if suff.get(c)]
    report = run_sufficiency_judge(client, items, rule=rule, system_names=names, repeat=repeat, progress=progress,
                                   sensitivity_queries=wording_sample)
    result = {"system": system, "budget": budget, "rule": suff.get("headline"), "seed": seed,
              "sample": "stratified by query category x exact label" if limit is not None else "all queries",
              "judge": judge_manifest(report, client), **report.to_dict(),
              "calibration": calibration(report.labels, rule)}
    if judge2 is not None:
        rep2 = run_sufficiency_judge(judge2, items, rule=rule, system_names=names, repeat=False,
                                     sensitivity_queries=0)
        result["judge2"] = {"judge": judge_manifest(rep2, judge2), **rep2.to_dict(),
                            "calibration": calibration(rep2.labels, rule)}
        result["agreement"] = judge_agreement(report.labels, rep2.labels)
    (out / "judge").mkdir(exist_ok=True)
    atomic_write_text(out / "judge" / f"{system}@{budget}.json",
                      json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return result
