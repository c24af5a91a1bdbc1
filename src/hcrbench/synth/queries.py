"""The 300-query suite: slots per category and difficulty, stratified tune/dev/test splits with no project or key
entity shared between test and tune, and the final rows (metadata, evidence spans, graded qrels)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hcrbench.synth.catalog import Catalog, QueryPlan
from hcrbench.synth.query_gen import CATEGORIES
from hcrbench.synth.seeds import rng, sub_seed
from hcrbench.synth.world import CORE_PROJECTS, World

DIFFICULTY_SHARES = {"easy": 0.40, "medium": 0.35, "hard": 0.25}
SPLIT_SHARES = {"tune": 0.6, "dev": 0.2, "test": 0.2}
BUDGET_TOKENS = 400
MAX_TRIES = 400


def difficulty_counts(n: int) -> dict[str, int]:
    e, m = round(n * 0.40), round(n * 0.35)
    return {"easy": e, "medium": m, "hard": n - e - m}


def split_counts(n: int) -> list[str]:
    tune, dev = round(n * 0.6), round(n * 0.2)
    return ["tune"] * tune + ["dev"] * dev + ["test"] * (n - tune - dev)


def entity_pools(world: World, seed: int) -> dict[str, str]:
    """Each project and key entity belongs to one split's pool; tune and test queries draw only from their own."""
    r = rng(seed, "split_pools")
    pool: dict[str, str] = {}
    for group in ([p.id for p in world.projects[:CORE_PROJECTS]],
                  [k for k in world.key_entities if not k.startswith("PRJ")]):
        group = list(group)
        r.shuffle(group)
        labels = split_counts(len(group))
        pool.update(zip(group, labels))
    for p in world.projects[CORE_PROJECTS:]:
        pool[p.id] = ["tune", "tune", "tune", "dev", "test"][sub_seed(seed, "pool", p.id) % 5]
    return pool


def _fits(plan: QueryPlan, split: str, pool: dict[str, str]) -> bool:
    if split == "dev":
        return True
    return all(pool.get(e, split) == split for e in plan.entities)


def plan_queries(cat: Catalog, seed: int) -> list[QueryPlan]:
    """Draw the 300 queries. Every slot (category, difficulty, split) is filled by rejection sampling from its
    generator; a slot that cannot be filled is a generator bug and raises."""
    pool = entity_pools(cat.w, seed)
    out: list[QueryPlan] = []
    texts: set[str] = set()
    for cname, (n, gen) in CATEGORIES.items():
        for diff, k in difficulty_counts(n).items():
            splits = split_counts(k)
            rng(seed, "split_order", f"{cname}|{diff}").shuffle(splits)
            for slot, split in enumerate(splits):
                plan = _draw(cat, gen, seed, cname, diff, slot, split, pool, texts)
                plan.split = split
                texts.add(plan.text)
                out.append(plan)
    for i, p in enumerate(out):
        p.query_id = f"MQ{i + 1:03d}"
    return out


def _draw(cat: Catalog, gen: Callable, seed: int, cname: str, diff: str, slot: int, split: str,
          pool: dict[str, str], texts: set[str]) -> QueryPlan:
    for attempt in range(MAX_TRIES):
        r = rng(seed, f"query|{cname}|{diff}|{slot}", attempt)
        plan = gen(cat, r, diff)
        if plan is not None and plan.text not in texts and _fits(plan, split, pool):
            return plan
    raise RuntimeError(f"meridian: could not fill query slot {cname}/{diff}/{split} #{slot}")


def expected_domains(plan: QueryPlan, cat: Catalog) -> list[str]:
    docs = [d for d, _ in plan.evidence] + sorted(d for d, g in plan.grades.items() if g >= 2)
    return list(dict.fromkeys(cat.specs[d].domain for d in docs))


def query_rows(plans: list[QueryPlan], cat: Catalog, spans: dict[tuple[int, str], tuple[int, int, str]],
               count_tokens: Callable[[str], int]) -> tuple[list[dict], list[dict], list[dict]]:
    """``queries.jsonl``, ``queries.meta.jsonl`` and ``evidence.jsonl`` rows, from resolved evidence spans."""
    q_rows, meta_rows, ev_rows = [], [], []
    for p in plans:
        ev: list[dict[str, Any]] = []
        seen: set[tuple[int, int, int]] = set()
        for d, key in p.evidence:
            start, end, text = spans[(d, key)]
            if (d, start, end) in seen:
                continue
            seen.add((d, start, end))
            ev.append({"doc_id": cat.specs[d].doc_id, "start": start, "end": end, "text": text})
        n_tok = sum(count_tokens(e["text"]) for e in ev)
        qrels = {cat.specs[d].doc_id: g for d, g in sorted(p.grades.items())}
        q_rows.append({"_id": p.query_id, "text": p.text,
                       "metadata": {"category": p.category, "difficulty": p.difficulty}})
        meta_rows.append({
            "query_id": p.query_id, "category": p.category, "difficulty": p.difficulty, "split": p.split,
            "origin": p.origin, "text": p.text, "answer": p.answer,
            "budget_feasible": n_tok <= BUDGET_TOKENS, "evidence_tokens": n_tok,
            "n_evidence_docs": len({e["doc_id"] for e in ev}),
            "expected_domains": expected_domains(p, cat), "expected_entities": p.entities, "qrels": qrels,
            "evidence": [{k: e[k] for k in ("doc_id", "start", "end")} for e in ev],
        })
        ev_rows.append({"query_id": p.query_id, "evidence": ev})
    return q_rows, meta_rows, ev_rows
