"""Per-category budget feasibility in deliverable units, beside the design's shares: ``hcrbench describe`` (console
script) and :func:`deliverable_feasibility` against whole-document units, where the answer is known."""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict

from hcrbench.data.tokens import default_counter
from hcrbench.experiment.context_feasibility import deliverable_feasibility
from hcrbench.synth.checks.describe import FEASIBLE_DESIGN

from .conftest import DOCS, EVIDENCE, QUERIES


def test_describe_prints_and_writes_feasibility_per_category_beside_the_design(meridian, tmp_path):
    p = subprocess.run(["hcrbench", "describe", str(meridian)], capture_output=True, text=True, timeout=600)
    assert p.returncode in (0, 1), p.stderr
    last = p.stdout.strip().splitlines()[-1]
    assert "feasible at 400 tokens:" in last and "in chunks-128" in last and "describe.json" in last
    assert "Feasible at 400 tokens per category" in p.stdout
    feas = json.loads((meridian / "describe.json").read_text())["deliverable_feasibility"]
    assert feas["budget"] == 400 and set(feas["unit_sets"]) == {"chunks-128", "chunks-128o32s"}
    metas = [json.loads(x) for x in (meridian / "queries.meta.jsonl").read_text().splitlines()]
    by_cat: dict[str, list[bool]] = defaultdict(list)
    for m in metas:
        if m.get("facts"):
            by_cat[m["category"]].append(bool(m["budget_feasible"]))
    assert set(feas["by_category"]) == set(by_cat)
    for cat, row in feas["by_category"].items():
        assert row["n"] == len(by_cat[cat])
        assert row["design"] == FEASIBLE_DESIGN.get(cat)
        assert row["sentences"] == round(sum(by_cat[cat]) / len(by_cat[cat]), 3)  # the folder's own flags
        # a chunk holding a statement costs at least the statement: never more feasible than sentences
        assert row["chunks-128"] <= row["sentences"] and row["chunks-128o32s"] <= row["sentences"]
        assert cat in p.stdout
    # the units matter: multi-document categories lose feasibility in chunks, single-fact ones do not
    assert feas["by_category"]["entity_spanning"]["chunks-128"] < feas["by_category"]["entity_spanning"]["sentences"]
    assert feas["by_category"]["detail"]["chunks-128"] == feas["by_category"]["detail"]["sentences"]


def test_whole_document_units_are_feasible_iff_the_evidence_documents_fit(tiny):
    with open(tiny / "queries.meta.jsonl", "w") as fh:
        for q, (_, cat) in QUERIES.items():
            fh.write(json.dumps({"query_id": q, "category": cat}) + "\n")
    c = default_counter()
    cost = {q: sum(c.count(DOCS[d]) for d in {d for d, _, _ in items}) for q, items in EVIDENCE.items()}
    for budget in sorted(set(cost.values())):
        got = deliverable_feasibility(tiny, budget=budget, unit_sets={"docs": {"max_tokens": 1000}})
        for cat in ("security", "data", "it"):
            qs = [q for q, (_, k) in QUERIES.items() if k == cat]
            want = round(sum(cost[q] <= budget for q in qs) / len(qs), 3)
            assert got["by_category"][cat]["docs"] == want, (budget, cat)
    # sentence-level feasibility of the same folder: every query's two short sentences fit in 400 tokens
    assert deliverable_feasibility(tiny, unit_sets={})["all"] == {"n": 4, "sentences": 1.0}
