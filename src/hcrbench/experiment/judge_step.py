"""Judge an experiment's budgeted contexts with an LLM (optional): ``hcrbench judge OUTPUT_DIR``.

Rebuilds the exact context texts a run selected (``contexts/<system>.jsonl`` + the chunking recorded in
``eval.json``'s ``sufficiency``), asks the Sufficient Context autorater about each (:mod:`hcrbench.llm.judge`,
with its hygiene checks), compares the judge with the evidence rule (Cohen's kappa), and writes
``judge/<system>@<budget>.json`` atomically, with the judge's manifest entry (model, settings, flags).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.beir import iter_jsonl, read_corpus, read_queries
from hcrbench.data.chunking import chunk_corpus
from hcrbench.data.tokens import get_counter
from hcrbench.errors import InputError
from hcrbench.llm.client import LLMClient
from hcrbench.llm.judge import judge_manifest, run_sufficiency_judge


def judge_contexts(output_dir: str | Path, system: str, budget: str, client: LLMClient, *,
                   limit: int | None = None, repeat: bool = True) -> dict[str, Any]:
    """Judge ``system``'s contexts at ``budget`` (a number or ``all``); returns the written document."""
    out = Path(output_dir)
    ev_path = out / "eval.json"
    if not ev_path.is_file():
        raise InputError("no eval.json here: run `hcrbench run` with budgets first", path=out)
    doc = json.loads(ev_path.read_text(encoding="utf-8"))
    suff = doc.get("sufficiency")
    if not suff:
        raise InputError("eval.json has no 'sufficiency' (the experiment set no budgets)", path=ev_path)
    if budget not in suff["budgets"]:
        raise InputError(f"no budget {budget!r} (budgets: {', '.join(suff['budgets'])})", field="--budget")
    ctx_path = out / "contexts" / f"{system}.jsonl"
    if not ctx_path.is_file():
        systems = sorted(p.stem for p in (out / "contexts").glob("*.jsonl"))
        raise InputError(f"no contexts for system {system!r} (systems: {', '.join(systems)})", field="--system")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    root = Path(manifest["dataset"]["path"])
    corpus = read_corpus(root / "corpus.jsonl")
    queries = read_queries(root / "queries.jsonl")
    chunked = chunk_corpus(corpus, max_tokens=suff["params"]["chunk_tokens"], overlap=0,
                           counter=get_counter(suff["token_counter"]))
    text_of = dict(zip(chunked.corpus.doc_ids, chunked.corpus.texts))
    items: list[tuple[str, str, str]] = []
    rule: dict[str, bool | None] = {}
    want = None if budget == "all" else int(budget)
    for _, row in iter_jsonl(ctx_path):
        if row["budget"] != want or row["query_id"] not in queries:
            continue
        q = row["query_id"]
        items.append((q, queries[q], "\n\n".join(text_of[c] for c in row["chunks"])))
        rule[q] = row.get(suff["headline"]) if suff.get("headline") else None
        if limit is not None and len(items) >= limit:
            break
    report = run_sufficiency_judge(client, items, rule=rule, system_names=list(manifest.get("systems", {})),
                                   repeat=repeat)
    result = {"system": system, "budget": budget, "rule": suff.get("headline"),
              "judge": judge_manifest(report, client), **report.to_dict()}
    (out / "judge").mkdir(exist_ok=True)
    atomic_write_text(out / "judge" / f"{system}@{budget}.json",
                      json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return result
