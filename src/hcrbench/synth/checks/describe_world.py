"""The world half of ``hcrbench describe``: violations of every world rule, the figures of the year's events the
rules bound, and the share of text stating facts.

Read from the folder's files (``world.json``, ``corpus.jsonl``, ``provenance.jsonl``), like the rest of describe.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hcrbench.data import iter_jsonl
from hcrbench.data.structured import read_json
from hcrbench.synth.checks.world_rules import violation_counts
from hcrbench.synth.checks.world_rules_events import event_figures
from hcrbench.synth.corpus.subjects import allowed_subjects, off_subject_words

# what describe says each of the year's event figures is held to (the rules in world_rules_events bound them)
EVENT_TARGETS = {
    "busiest month's share of decisions": "reported (rule: every month within 1/3x-2x its share, n/9)",
    "share of follow-up decisions that change course": "reported (rules: 10%-40% of follow-ups)",
    "top 3 systems' share of incidents": "reported (rule: within 15 points of their users' share)",
    "top 3 systems' share of users (expected)": "reported (the incidents' load by users)",
    "share of severity 1 incidents": "reported (rule: 1%-8%)",
}


def fact_share(docs: list[dict[str, Any]], spans: list[tuple[str, int, int]]) -> float:
    """Characters of body text inside a fact statement (the union of provenance spans) over all characters."""
    covered: dict[str, list[tuple[int, int]]] = {}
    for doc_id, start, end in spans:
        covered.setdefault(doc_id, []).append((start, end))
    total = inside = 0
    for d in docs:
        total += len(d["text"])
        last = 0
        for start, end in sorted(covered.get(d["_id"], [])):
            start = max(start, last)
            if end > start:
                inside += end - start
                last = end
    return inside / max(total, 1)


def _outside(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with every span blanked (what the document says besides its facts)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def off_subject_docs(world: dict[str, Any], docs: list[dict[str, Any]],
                     spans: list[tuple[str, int, int]]) -> dict[str, list[tuple[str, str]]]:
    """Documents whose body text (outside fact statements, entity names and titles blanked) uses the vocabulary of
    a subject their own does not bring (:mod:`hcrbench.synth.corpus.subjects`): doc id -> (subject, words)."""
    by_id: dict[str, Any] = {}
    names: list[str] = []
    for kind, fields in (("teams", ("name",)), ("systems", ("name",)), ("products", ("name",)),
                         ("projects", ("code_name", "goal")), ("policies", ("title",))):
        for e in world.get(kind, []):
            by_id[e["id"]] = e
            names += [e[f] for f in fields if e.get(f)]
    names.sort(key=len, reverse=True)
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for doc_id, start, end in spans:
        by_doc.setdefault(doc_id, []).append((start, end))
    out = {}
    for d in docs:
        meta = d["metadata"]
        allowed = allowed_subjects(meta["doc_type"], meta["entities"], meta.get("cluster"), by_id.get)
        if allowed is None:
            continue
        text = _outside(d["text"], by_doc.get(d["_id"], []))
        for name in names:
            if name in text:
                text = text.replace(name, " ")
        found = off_subject_words(text, allowed)
        if found:
            out[d["_id"]] = found
    return out


def world_props(folder: str | Path) -> list[dict[str, Any]]:
    """One property per world rule (violations, target 0) and the share of text that states world facts."""
    folder = Path(folder)
    world = read_json(folder / "world.json")
    docs = [obj for _, obj in iter_jsonl(folder / "corpus.jsonl")]
    counts = violation_counts(world, docs)
    props = [{"property": f"world rule: {name}", "measured": n, "target": "0 violations",
              "met": n == 0} for name, n in counts.items()]
    props += [{"property": name, "measured": round(v, 3), "target": EVENT_TARGETS[name], "met": True}
              for name, v in event_figures(world).items()]
    prov = folder / "provenance.jsonl"
    if prov.is_file():
        spans = [(o["doc_id"], o["start"], o["end"]) for _, o in iter_jsonl(prov)]
        off = off_subject_docs(world, docs, spans)
        example = next(iter(off.items()), None)
        props.append({"property": "documents using another subject's vocabulary",
                      "measured": len(off) if example is None else f"{len(off)} (e.g. {example[0]}: "
                      f"{', '.join(w for _, w in example[1][:3])})",
                      "target": "0 (commerce, people and finance words only where the page's subject brings them)",
                      "met": not off})
        props.append({"property": "share of text stating world facts", "measured": round(fact_share(docs, spans), 3),
                      "target": "reported (characters inside fact statements)", "met": True})
    return props
