"""Label audits of a written Meridian folder, re-derived from its files (``hcrbench describe`` and the tests):

- the evidence oracle (every document that states a needed fact, those stating one about their own subject first,
  then those stating them in passing: :mod:`hcrbench.synth.questions.grades`) scored with nDCG@10 and R@100 on the primary
  qrels, per category: 1.0 when the qrels grade evidence only, by that rule;
- split leakage (:func:`hcrbench.synth.questions.splits.leakage`);
- bridges: the largest share of a chain category's queries that go through one entity;
- chain shortcuts: a document that states a chain's first hop and already contains its answer;
- vocabulary mismatch against the titles and statements of every grade-2/3 document;
- judged negatives (grade 0) whose text names a query entity.

nDCG here is trec_eval's (gain = grade, log2 discount, ideal ranking from the qrels); the tests check it against
hcrbench's evaluator, which is itself checked against pytrec_eval.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hcrbench.data import iter_jsonl
from hcrbench.synth.corpus.stems import content_stems
from hcrbench.synth.questions.category import RegistryView
from hcrbench.synth.questions.grades import evidence_grade, subjects_from_files
from hcrbench.synth.questions.splits import leakage

CHAIN_CATEGORIES = RegistryView(lambda cats: {c.name: True for c in cats if c.chain})  # each category's ``chain``


def ndcg_at(ranking: list[str], qrels: dict[str, int], k: int = 10) -> float:
    """trec_eval's ndcg_cut_k for one query (0 when the query has no positive grade)."""
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    if idcg == 0:
        return 0.0
    dcg = sum(max(qrels.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(ranking[:k]))
    return dcg / idcg


def recall_at(ranking: list[str], qrels: dict[str, int], k: int = 100) -> float:
    rel = {d for d, g in qrels.items() if g > 0}
    return len(rel & set(ranking[:k])) / len(rel) if rel else 0.0


def evidence_oracle(evidence_docs: dict[str, int]) -> list[str]:
    """The documents that state needed facts, best grade first (ties by id)."""
    return [d for d, _ in sorted(evidence_docs.items(), key=lambda kv: (-kv[1], kv[0]))]


def oracle_scores(metas: list[dict[str, Any]], docs_of: dict[str, set[str]],
                  subject_of: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """Per category: the evidence oracle's lowest and mean nDCG@10 and lowest R@100 on the primary qrels. The
    oracle is built from provenance and each document's subject (``subject_of``: documents stating a needed fact
    about their own subject first, :func:`~hcrbench.synth.questions.grades.evidence_grade`), not from the qrels it is
    scored on."""
    by_cat: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for m in metas:
        facts = m.get("facts") or []
        if not facts:
            continue
        stated: dict[str, set[str]] = defaultdict(set)
        for f in facts:
            for d in docs_of.get(f, ()):
                stated[d].add(f)
        grades = {d: evidence_grade(fs, subject_of.get(d, "")) for d, fs in stated.items()}
        run = evidence_oracle(grades)
        by_cat[m["category"]].append((ndcg_at(run, m["qrels"], 10), recall_at(run, m["qrels"], 100)))
    return {c: {"ndcg@10 min": round(min(n for n, _ in v), 4), "ndcg@10 mean": round(sum(n for n, _ in v) / len(v), 4),
                "R@100 min": round(min(r for _, r in v), 4), "queries": len(v)} for c, v in sorted(by_cat.items())}


def bridge_shares(metas: list[dict[str, Any]]) -> dict[str, float]:
    """Per chain category: the largest share of its queries that go through one bridge entity."""
    out = {}
    for c in CHAIN_CATEGORIES:
        rows = [m for m in metas if m["category"] == c]
        counts = Counter(b for m in rows for b in m.get("bridges", []))
        out[c] = round(max(counts.values(), default=0) / max(len(rows), 1), 3)
    return out


def audit(folder: Path, metas: list[dict[str, Any]], docs_of: dict[str, set[str]],
          texts_of: dict[str, list[str]], names: dict[str, str], world: Mapping[str, Any]) -> dict[str, Any]:
    """Every label figure of the folder (see the module docstring). ``names`` maps entity ids to how text
    writes them, and ``world`` (``world.json``) names the document that writes up each record (documents'
    subjects: :func:`~hcrbench.synth.questions.grades.subjects_from_files`)."""
    need_text: set[str] = set()
    for m in metas:
        if m["category"] in CHAIN_CATEGORIES and m.get("chain"):
            need_text |= docs_of.get(m["chain"][0], set())
        need_text |= {d for d, g in m["qrels"].items() if g == 0}
    titles: dict[str, str] = {}
    texts: dict[str, str] = {}
    routing: list[tuple[str, list[str]]] = []
    for _, row in iter_jsonl(folder / "corpus.jsonl"):
        titles[row["_id"]] = row.get("title", "")
        routing.append((row["_id"], list((row.get("metadata") or {}).get("entities") or [])))
        if row["_id"] in need_text:
            texts[row["_id"]] = row.get("text", "")
    shortcut = vocab = named_zero = 0
    for m in metas:
        facts = m.get("facts") or []
        chain = m.get("chain") or []
        if m["category"] in CHAIN_CATEGORIES and chain:
            final = m["answer"][-1] if isinstance(m["answer"], list) else m["answer"]
            shortcut += any(final in texts.get(d, "") for d in docs_of.get(chain[0], ()))
        if m["origin"] == "adversarial:vocabulary" and facts:
            ev = set().union(*(content_stems(t) for f in facts for t in texts_of.get(f, [])))
            ev |= set().union(*(content_stems(titles.get(d, "")) for d, g in m["qrels"].items() if g >= 2))
            vocab += bool(content_stems(m["text"]) & ev)
        ents = set(m.get("expected_entities") or []) | {f.split(":")[1] for f in facts}
        written = {names.get(e, e) for e in ents}
        named_zero += sum(any(n in texts.get(d, "") for n in written) for d, g in m["qrels"].items() if g == 0)
    return {"oracle": oracle_scores(metas, docs_of, subjects_from_files(routing, world)), "leakage": leakage(metas), "bridges": bridge_shares(metas),
            "chain shortcuts": shortcut, "vocabulary shared": vocab, "judged 0 naming a query entity": named_zero}


def entity_names(world: dict[str, Any]) -> dict[str, str]:
    """How text writes each world entity (people, teams, systems, products by name; projects by code name;
    policies by id)."""
    out: dict[str, str] = {}
    for kind in ("people", "teams", "systems", "products"):
        for e in world.get(kind, []):
            out[e["id"]] = e["name"]
    for p in world.get("projects", []):
        out[p["id"]] = p["code_name"]
    return out


__all__ = ["audit", "bridge_shares", "entity_names", "evidence_oracle", "ndcg_at", "oracle_scores", "recall_at"]
