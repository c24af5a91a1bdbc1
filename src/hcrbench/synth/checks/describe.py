"""Measure a generated Meridian folder against the design targets (``hcrbench describe DIR``).

Everything is measured from the files on disk (the text is re-tokenised, identifiers are found by pattern), not
read back from the generator's own bookkeeping, so a regression in the generator shows up here.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data import atomic_write_text, iter_jsonl
from hcrbench.data.structured import read_json
from hcrbench.data.tokens import default_counter
from hcrbench.errors import InputError
from hcrbench.synth.checks.describe_answerable import answerable_props
from hcrbench.synth.checks.describe_lexical import lexical_props
from hcrbench.synth.checks.describe_templates import template_props
from hcrbench.synth.checks.describe_tiers import tier_props
from hcrbench.synth.checks.describe_topics import topic_props
from hcrbench.synth.checks.describe_world import world_props
from hcrbench.synth.checks.label_audit import CHAIN_CATEGORIES, audit, entity_names
from hcrbench.synth.corpus.doc_kinds import KINDS
from hcrbench.synth.questions.generators import SPANNING_MIN_DOCS
from hcrbench.synth.questions.suite import SPLIT_SHARES, bridge_cap, category_counts
from hcrbench.synth.questions.tiers import FEASIBLE_DESIGN

IDENTIFIER = re.compile(r"\b[A-Z]{2,4}(?:-[A-Z]{2,4})?-\d{2,6}\b")
MEDIUM_DOCS = 2000  # the size the design's text targets are set for
SPLIT_TOL = 0.05


def _prop(name: str, measured: Any, target: str, met: bool) -> dict[str, Any]:
    return {"property": name, "measured": measured, "target": target, "met": bool(met)}


def describe(folder: str | Path, *, write: bool = True) -> dict[str, Any]:
    """Measured properties of the Meridian folder, each with its target and whether it is met.

    Writes ``folder/describe.json`` atomically unless ``write`` is false.
    """
    folder = Path(folder)
    for name in ("corpus.jsonl", "queries.meta.jsonl", "world.json"):
        if not (folder / name).is_file():
            raise InputError(f"not a Meridian folder: missing {name}", path=folder)
    try:
        world = read_json(folder / "world.json")
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON ({e.msg})", path=folder / "world.json", line=e.lineno) from None
    key = world.get("key_entities", [])
    counter = default_counter()

    text_stats = TextStats()
    n = multi = ident = 0
    tokens: list[int] = []
    spread: Counter[str] = Counter()
    clusters: dict[str, int] = defaultdict(int)
    quarters: Counter[str] = Counter()
    by_kind: dict[str, list[int]] = defaultdict(list)
    path = folder / "corpus.jsonl"
    for line, obj in iter_jsonl(path):
        meta = obj.get("metadata") or {}
        text = obj.get("text")
        if not isinstance(text, str) or not isinstance(meta.get("domains"), list):
            raise InputError("corpus line lacks 'text' or 'metadata.domains'", path=path, line=line)
        n += 1
        text_stats.add(str(obj.get("_id")), text, str(meta.get("doc_type", "")))
        multi += len(meta["domains"]) >= 2
        ident += bool(IDENTIFIER.search(text))
        tokens.append(counter.count(text))
        by_kind[str(meta.get("kind", "page"))].append(tokens[-1])
        spread.update(e for e in meta.get("entities", []) if e in key)
        if meta.get("cluster"):
            clusters[meta["cluster"]] += 1
        if meta.get("snapshot"):
            quarters[meta["quarter"]] += 1
    metas = [obj for _, obj in iter_jsonl(folder / "queries.meta.jsonl")]

    tok = np.asarray(tokens or [0])
    props = [
        _size_prop(folder, n),
        _prop("share spanning 2+ domains", round(multi / max(n, 1), 3), "~40% (30-50%)", 0.30 <= multi / max(n, 1) <= 0.50),
        _prop("share with identifiers", round(ident / max(n, 1), 3), "~50% (40-60%)", 0.40 <= ident / max(n, 1) <= 0.60),
        *_length_props(tok, by_kind),
        _prop("key entities in 5+ documents", sum(spread[k] >= 5 for k in key), "20 of 20",
              len(key) == 20 and all(spread[k] >= 5 for k in key)),
        _prop("near-duplicate clusters (docs each)", dict(sorted(clusters.items())), "3-4 clusters, 3+ docs each",
              3 <= len(clusters) <= 4 and all(v >= 3 for v in clusters.values())),
        _prop("quarterly snapshot documents", dict(sorted(quarters.items())), "3 quarters x 50",
              len(quarters) == 3 and all(v == 50 for v in quarters.values())),
    ]
    props += text_stats.props(n)
    props += _query_props(metas, key)
    props += _provenance_props(folder, metas, world)
    props += tier_props(folder, metas)  # difficulty tiers and feasibility in 128-token chunks (synth/questions/tiers.py)
    topic_rows, topics = topic_props(metas, world)
    props += topic_rows
    props += world_props(folder)  # world rules (synth/checks/world_rules.py) and the share of text stating facts
    answerable, checks = answerable_props(folder, metas, world)  # anchors stated and unique; asides (reported)
    props += answerable
    props += lexical_props(folder) + template_props(folder)  # query wording: reported beside the real collections'
    result = {"folder": str(folder), "n_docs": n, "n_queries": len(metas), "token_counter": counter.name,
              "all_met": all(p["met"] for p in props), "missed": [p["property"] for p in props if not p["met"]],
              "properties": props, "topics": topics, **checks}
    if write:
        atomic_write_text(folder / "describe.json", json.dumps(result, indent=1) + "\n")
    return result


#: Token lengths a document may have: from a chat thread of a few lines to a specification of several thousand words.
MIN_TOKENS, MAX_TOKENS = 40, 8000
PAGE_MEDIAN = (150, 800)  # the median document is a page of the design's length


def _length_props(tok: np.ndarray, by_kind: dict[str, list[int]]) -> list[dict[str, Any]]:
    """Document lengths (all documents, and per kind) and the count of each document kind
    (:mod:`hcrbench.synth.corpus.doc_kinds`), every kind required."""
    med = float(np.median(tok))
    lo, hi = PAGE_MEDIAN
    per_kind = {k: [min(v), int(np.median(v)), max(v)] for k, v in sorted(by_kind.items())}
    missing = [k for k in KINDS if k not in by_kind]
    return [
        _prop("tokens per document (min / median / max)", [int(tok.min()), int(med), int(tok.max())],
              f"median {lo}-{hi}; {MIN_TOKENS}-{MAX_TOKENS:,} (chat threads to long specifications)",
              lo <= med <= hi and tok.min() >= MIN_TOKENS and tok.max() <= MAX_TOKENS),
        _prop("documents per kind", {k: len(by_kind.get(k, [])) for k in KINDS},
              "every kind present" + (f" (missing: {', '.join(missing)})" if missing else ""), not missing),
        _prop("tokens per document by kind (min / median / max)", per_kind, "reported", True),
    ]


def _size_prop(folder: Path, n: int) -> dict[str, Any]:
    """Documents against the size the manifest asked for: a world at its size (``grow`` off, or a world that did
    not need to grow) must hold exactly that many; a grown world says so beside its size. A folder without a
    manifest is checked against the smallest design size."""
    try:
        man = read_json(folder / "manifest.json")
    except (OSError, ValueError):
        man = None
    want = man.get("size_docs") if isinstance(man, dict) else None
    if not isinstance(want, int):
        return _prop("documents", n, "small 500, medium 2000, full 3500+", n >= 500)
    asked = f"{man.get('size')} {want:,}" if isinstance(man.get("size"), str) else f"{want:,}"
    if man.get("grow") and n != want:
        return _prop("documents", n,
                     f"{asked} asked; grown to hold the suite's topics (--grow; the default keeps the size)", n > want)
    return _prop("documents", n, f"{asked} (the size asked)", n == want)


def _query_props(metas: list[dict[str, Any]], key: list[str]) -> list[dict[str, Any]]:
    nq = max(len(metas), 1)
    cats = Counter(m["category"] for m in metas)
    want = {c: k for c, k in category_counts(len(metas)).items() if k}
    splits = Counter(m["split"] for m in metas)
    tracked = set(key)
    side = {s: {e for m in metas if m["split"] == s for e in m["expected_entities"]
                if e in tracked or e.startswith("PRJ-")} for s in ("tune", "test")}
    split_dev = max(abs(splits[s] / nq - share) for s, share in SPLIT_SHARES.items())
    ood = [m for m in metas if m["category"] == "out_of_distribution"]
    feasible = sum(m["budget_feasible"] for m in metas) / nq
    wide = sum(m.get("n_minimal_docs", m["n_evidence_docs"]) > SPANNING_MIN_DOCS for m in metas) / nq
    vocab = sum(m["origin"] == "adversarial:vocabulary" for m in metas)
    # targets that scale with the suite (``--queries N``): 15 vocabulary-mismatch queries per 300 (the tier mix
    # per category is describe_tiers.py's, from the chunked evidence)
    need_vocab = math.ceil(15 * len(metas) / 300)
    return [
        _prop("queries per category", dict(sorted(cats.items())), f"design shares ({len(metas)} queries)",
              dict(cats) == want),
        _prop("splits tune/dev/test", {s: splits[s] for s in SPLIT_SHARES}, "60/20/20",
              split_dev <= SPLIT_TOL),
        _prop("projects or key entities shared by tune and test", len(side["tune"] & side["test"]), "0",
              not side["tune"] & side["test"]),
        _prop("queries needing >10 documents", round(wide, 3), "~25% (20-30%)", 0.20 <= wide <= 0.30),
        _prop("budget-feasible share (minimal evidence <= 400 tokens)", round(feasible, 3), "reported (>= 60%)",
              feasible >= 0.60),
        _prop("vocabulary-mismatch queries", vocab, f">= {need_vocab}", vocab >= need_vocab),
        _prop("out-of-distribution queries without relevant docs", f"{sum(not m['qrels'] for m in ood)}/{len(ood)}",
              "all", all(not m["qrels"] for m in ood) and len(ood) > 0),
    ]


SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
WORDS = re.compile(r"[a-z]+")


class TextStats:
    """Sentence repetition and vocabulary over a corpus streamed one document at a time.

    A sentence is a line split at sentence ends, without list markers; headings, table rules and fragments under
    three words are not sentences. Counts are over occurrences."""

    def __init__(self) -> None:
        self.docs_of: dict[str, set[str] | int] = {}
        self.occurrences: Counter[str] = Counter()
        self.vocab: set[str] = set()
        self.templates: Counter[str] = Counter()

    def add(self, doc_id: str, text: str, doc_type: str) -> None:
        self.templates[doc_type] += 1
        self.vocab.update(WORDS.findall(text.lower()))
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("|---"):
                continue
            for s in SENTENCE_END.split(line.removeprefix("- ")):
                if len(s.split()) < 3:
                    continue
                self.occurrences[s] += 1
                seen = self.docs_of.setdefault(s, set())
                if isinstance(seen, set):
                    seen.add(doc_id)
                    if len(seen) >= 10:
                        self.docs_of[s] = 10  # enough: the sentence is common; stop storing its documents

    def props(self, n_docs: int) -> list[dict[str, Any]]:
        total = max(sum(self.occurrences.values()), 1)
        distinct = len(self.occurrences) / total
        common = sum(k for s, k in self.occurrences.items() if self.docs_of[s] == 10) / total
        top = max(self.templates.values(), default=0) / max(n_docs, 1)
        return [
            _prop("distinct-sentence ratio", round(distinct, 3), ">= 0.70", distinct >= 0.70),
            _prop("share of sentences found in 10+ documents", round(common, 3), "<= 0.10", common <= 0.10),
            # the design sets the vocabulary target for medium (2,000 documents) and up; a smaller corpus reports
            # its vocabulary against no target rather than missing one it was never meant to meet
            _prop("vocabulary (distinct words)", len(self.vocab),
                  ">= 6,000 (medium and up)" if n_docs >= MEDIUM_DOCS else
                  f"reported (the >= 6,000 target is for {MEDIUM_DOCS:,}+ documents)",
                  len(self.vocab) >= 6000 or n_docs < MEDIUM_DOCS),
            _prop("documents per template", dict(sorted(self.templates.items())), "no template over 35%",
                  top <= 0.35),
        ]


def _provenance_props(folder: Path, metas: list[dict[str, Any]], world: dict[str, Any]) -> list[dict[str, Any]]:
    """Re-derive what the qrels and labels promise from ``provenance.jsonl`` (Meridian 2 folders)."""
    path = folder / "provenance.jsonl"
    if not path.is_file():
        return [_prop("fact provenance (provenance.jsonl)", "missing", "present", False)]
    docs_of: dict[str, set[str]] = defaultdict(set)
    texts: dict[str, list[str]] = defaultdict(list)
    for _, row in iter_jsonl(path):
        docs_of[row["fact_id"]].add(row["doc_id"])
        texts[row["fact_id"]].append(row["text"])
    missing = shortcut = 0
    owner: dict[frozenset, str] = {}
    shared = 0
    facts_seen: Counter[tuple] = Counter()
    feasible: dict[str, list[bool]] = defaultdict(list)
    for m in metas:
        facts = m.get("facts", [])
        rel = {d for d, g in m["qrels"].items() if g >= 2}
        stated = set().union(*(docs_of[f] for f in facts)) if facts else set()
        missing += len(stated - rel)
        if m["category"] in CHAIN_CATEGORIES and facts and set.intersection(*(docs_of[f] for f in facts)):
            shortcut += 1
        if facts:
            facts_seen[tuple(sorted(facts))] += 1
            key = frozenset(rel)
            shared += owner.setdefault(key, m["split"]) != m["split"]
        if m["category"] in FEASIBLE_DESIGN:
            feasible[m["category"]].append(bool(m["budget_feasible"]))
    shares = {c: round(sum(v) / len(v), 2) for c, v in sorted(feasible.items())}
    dups = sum(k - 1 for k in facts_seen.values())
    lab = audit(folder, metas, docs_of, texts, entity_names(world), world)
    low = {c: v["ndcg@10 min"] for c, v in lab["oracle"].items()}
    recall = min((v["R@100 min"] for v in lab["oracle"].values()), default=0.0)
    most = max((sum(g >= 2 for g in m["qrels"].values()) for m in metas), default=0)
    cap = max(lab["bridges"].values(), default=0.0)
    # the generator's cap is max(2, 10%) of a category (queries.bridge_cap): a small suite allows 2 of k
    chain_n = [k for c, k in Counter(m["category"] for m in metas).items() if c in CHAIN_CATEGORIES]
    bridge_limit = max([0.15, *(bridge_cap(k) / k for k in chain_n if k)])
    return [
        _prop("documents stating a needed fact but not judged relevant", missing, "0 (exhaustive qrels)", missing == 0),
        _prop("multi-hop queries shortcut by one document", shortcut, "0", shortcut == 0),
        _prop("vocabulary-mismatch queries sharing a stem with evidence or a relevant title",
              lab["vocabulary shared"], "0", lab["vocabulary shared"] == 0),
        _prop("evidence-oracle nDCG@10 on the primary qrels (lowest per category)", low, "1.0 in every category",
              bool(low) and all(v == 1.0 for v in low.values())),
        _prop("evidence-oracle R@100 (lowest query); most relevant documents of a query", [recall, most],
              "1.0; <= 100", recall == 1.0 and most <= 100),
        _prop("split leakage (shared across splits)", lab["leakage"], "all 0", not any(lab["leakage"].values())),
        _prop("largest share of a chain category through one bridge entity", lab["bridges"],
              f"~10% (<= {bridge_limit:.2f})", cap <= bridge_limit),
        _prop("chain queries answered by the first hop's document", lab["chain shortcuts"], "0",
              lab["chain shortcuts"] == 0),
        _prop("judged-0 documents naming a query entity", lab["judged 0 naming a query entity"], "0",
              lab["judged 0 naming a query entity"] == 0),
        _prop("queries repeating another's fact set", dups, "0", dups == 0),
        _prop("relevant-document sets shared across splits", shared, "0", shared == 0),
        # the design's shares are in deliverable chunks (describe_tiers.py); sentences are reported beside them
        _prop("budget-feasible share per category in sentences", shares,
              "reported (the design's shares are met in 128-token chunks, below)", True),
    ]
