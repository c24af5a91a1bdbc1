"""``describe``'s difficulty-tier and budget-feasibility rows, re-derived from the files in 128-token chunks.

Every document holding a statement of a needed fact is chunked as the context step chunks it, the cheapest chunk
cover of each query's needed facts is computed from ``evidence.jsonl`` (:mod:`hcrbench.synth.questions.tiers`), and from it
the design's tier (one chunk / two or three in one document domain / the rest, hops counted from the metadata) and
whether it fits 400 tokens. Rows: agreement of the ``difficulty`` label with that tier per split (>= 90%), the tier
mix per category against :func:`~hcrbench.synth.questions.tiers.tier_targets` (a hand-written pattern's budget-feasible questions
counted at the tier they have by construction: :func:`pattern_tiers`), and the feasible share per category against
the design's (within :data:`~hcrbench.synth.questions.tiers.FEASIBLE_BAND`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from hcrbench.data import iter_jsonl
from hcrbench.data.evidence import read_evidence
from hcrbench.data.tokens import default_counter
from hcrbench.synth.questions.tiers import (
    FEASIBLE_BAND,
    FEASIBLE_DESIGN,
    TIERS,
    ChunkEvidence,
    chunk_evidence,
    chunk_units,
    tier_of,
    tier_targets,
)

#: The least share of a split's queries whose difficulty label is the design's tier of their evidence.
MIN_AGREEMENT = 0.90
TIER_TOL = 0.10


def _prop(name: str, measured: Any, target: str, met: bool) -> dict[str, Any]:
    return {"property": name, "measured": measured, "target": target, "met": bool(met)}


def measured_tiers(folder: str | Path, metas: list[dict[str, Any]]) -> dict[str, tuple[ChunkEvidence, str]]:
    """Per query with needed facts: its chunk evidence and the design's tier, from the folder's files."""
    folder = Path(folder)
    path = folder / "evidence.jsonl"
    if not path.is_file():
        return {}
    evidence = read_evidence(path)
    by_id = {m["query_id"]: m for m in metas}
    qids = [q for q, ev in evidence.items() if ev.facts and q in by_id]
    needed = {sp.doc_id for q in qids for sp in evidence[q].evidence}
    texts: dict[str, str] = {}
    domain: dict[str, str] = {}
    for _, obj in iter_jsonl(folder / "corpus.jsonl"):
        d = str(obj.get("_id"))
        if d in needed:
            texts[d] = str(obj.get("text", ""))
            domain[d] = str((obj.get("metadata") or {}).get("domain", ""))
    counter = default_counter()
    units: dict[str, list] = {}

    def units_of(d: str) -> list:
        if d not in units:
            units[d] = chunk_units(d, texts.get(d, ""), counter)
        return units[d]

    out: dict[str, tuple[ChunkEvidence, str]] = {}
    for q in qids:
        ce = chunk_evidence(evidence[q], units_of, lambda d: domain.get(d, ""), texts)
        out[q] = (ce, tier_of(ce, int(by_id[q].get("hops") or 1)))
    return out


def pattern_tiers() -> dict[str, str]:
    """Kind -> tier of the hand-written patterns whose budget-feasible questions have one tier by construction
    (``adversarial.toml``'s ``tier``)."""
    from hcrbench.synth.questions.adversarial import patterns

    return {p["kind"]: p["tier"] for p in patterns() if p.get("tier")}


def fixed_tiers(metas: list[dict[str, Any]], got: dict[str, tuple[ChunkEvidence, str]]) -> dict[str, Counter]:
    """Per category, the budget-feasible questions of a hand-written pattern at the tier it has by construction
    (:func:`pattern_tiers`), which :func:`~hcrbench.synth.questions.tiers.tier_targets` takes as fixed."""
    kinds = pattern_tiers()
    out: dict[str, Counter] = defaultdict(Counter)
    for m in metas:
        if m["query_id"] not in got:
            continue
        ce, tier = got[m["query_id"]]
        if m.get("origin") == "adversarial" and ce.feasible and kinds.get(m.get("intent") or "") == tier:
            out[m["category"]][tier] += 1
    return out


def tier_props(folder: str | Path, metas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The three rows (see the module docstring)."""
    got = measured_tiers(folder, metas)
    if not got:
        return [_prop("difficulty tiers from chunked evidence (evidence.jsonl)", "missing", "present", False)]
    agree: dict[str, list[bool]] = defaultdict(list)
    mix: dict[str, Counter] = defaultdict(Counter)
    fixed = fixed_tiers(metas, got)  # feasible queries of a pattern with a tier by construction
    feasible: dict[str, list[bool]] = defaultdict(list)
    for m in metas:
        if m["query_id"] not in got:
            continue
        ce, tier = got[m["query_id"]]
        agree[m["split"]].append(m["difficulty"] == tier)
        mix[m["category"]][m["difficulty"]] += 1
        if m["category"] in FEASIBLE_DESIGN:
            feasible[m["category"]].append(ce.feasible)
    share = {s: round(sum(v) / len(v), 3) for s, v in sorted(agree.items())}
    worst = 0.0
    tol = TIER_TOL
    shown: dict[str, str] = {}
    for c, counts in sorted(mix.items()):
        k = sum(counts.values())
        want = tier_targets(c, k, fixed[c])
        tol = max(tol, 1 / k)
        worst = max(worst, *(abs(counts[t] - want[t]) / k for t in TIERS))
        shown[c] = "/".join(str(counts[t]) for t in TIERS) + " (" + "/".join(str(want[t]) for t in TIERS) + ")"
    feas = {c: round(sum(v) / len(v), 2) for c, v in sorted(feasible.items())}
    pinned = ", ".join(f"{c} {k} {t}" for c, cnt in sorted(fixed.items()) for t, k in sorted(cnt.items())) or "none"
    off = {c: round(feas[c] - FEASIBLE_DESIGN[c], 2) for c in feas}
    return [
        _prop("difficulty agreeing with the design's tier of the chunked evidence, per split", share,
              f">= {MIN_AGREEMENT:.0%} in every split (easy 1 chunk; medium 2-3 chunks, one domain, <= 2 hops; "
              "hard the rest)", bool(share) and min(share.values()) >= MIN_AGREEMENT),
        _prop("difficulty easy/medium/hard per category (target)", shown,
              "40/35/25 where the category allows, hard >= infeasible share, a hand-written pattern's feasible "
              f"questions at their tier by construction ({pinned}); worst deviation {worst:.2f} "
              f"(within {tol:.0%})", worst <= tol),
        _prop("budget-feasible share per category (128-token chunks, 400 tokens)", feas,
              "design " + ", ".join(f"{c} {v:.0%}" for c, v in FEASIBLE_DESIGN.items())
              + f" (within {FEASIBLE_BAND:.0%})", all(abs(v) <= FEASIBLE_BAND + 1e-9 for v in off.values())),
    ]
