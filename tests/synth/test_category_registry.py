"""The query-category registry: every stage reads a category from its one object, so a category declared in this
file alone is planned, generated, checked by its own property and described (docs/meridian_categories.md)."""

from __future__ import annotations

import importlib
import random
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from hcrbench.data import iter_jsonl
from hcrbench.synth import describe, generate_meridian
from hcrbench.synth.questions import category as registry
from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.questions.category import PropertyInput, QueryCategory, registered
from hcrbench.synth.questions.fit import SLOT_ORDER, UNTARGETED
from hcrbench.synth.questions.generators import CATEGORIES
from hcrbench.synth.questions.planner import FILL_ORDER
from hcrbench.synth.questions.properties import violations
from hcrbench.synth.questions.scale import KEEP_HARD, SCALE
from hcrbench.synth.questions.suite import category_counts
from hcrbench.synth.questions.tiers import FEASIBLE_DESIGN, TIER_ALLOWED, tier_targets

DESIGN = {"thematic": 50, "entity_spanning": 55, "detail": 50, "two_hop": 35, "multi_hop": 15, "comparative": 25,
          "aggregation": 20, "temporal": 20, "ambiguous": 15, "out_of_distribution": 15}


def system_vendor(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A toy category: who supplies one system (one fact, asked by the system's name)."""
    sy = c.pick(r, c.w.systems)
    fid = f"sys:{sy.id}:vendor"
    if not c.stated(fid):
        return None
    text = {"easy": f"Who supplies {sy.name}?", "medium": f"Which vendor is behind {sy.name}?",
            "hard": f"From which firm does Meridian buy {sy.name}?"}[diff]
    plan = QueryPlan("system_vendor", diff, "template", text, sy.vendor, [fid], [sy.id])
    plan.intent, plan.params = "system_vendor", {"system": sy.id}
    return plan


def stated_in_an_overview(q: PropertyInput) -> list[str]:
    """The toy's property: its fact is stated on the system's own overview page."""
    kinds = {t for f in q.facts for _, t, _ in q.stated(f)}
    return [] if "system_overview" in kinds else ["vendor not stated on a system overview"]


TOY = QueryCategory("system_vendor", 30, system_vendor, feasible=1.0, tiers=("easy",), targeted=False,
                    check=stated_in_an_overview, description="who supplies a system")


def test_the_ten_categories_are_declared_once_and_every_table_reads_them():
    assert CATEGORIES.keys() == DESIGN.keys() and {c: n for c, (n, _) in CATEGORIES.items()} == DESIGN
    assert category_counts(300) == DESIGN
    assert list(FILL_ORDER)[:3] == ["ambiguous", "aggregation", "multi_hop"]
    assert "out_of_distribution" not in FEASIBLE_DESIGN and TIER_ALLOWED["multi_hop"] == ("hard",)
    assert "detail" in UNTARGETED and SLOT_ORDER["comparative"] == ("hard", "easy", "medium")
    assert set(KEEP_HARD) == {"thematic", "comparative", "temporal"} and "aggregation" not in SCALE


def test_registering_a_category_reaches_every_table_and_leaves_no_trace():
    with registered(TOY):
        assert CATEGORIES["system_vendor"] == (30, system_vendor)
        counts = category_counts(330)
        assert counts["system_vendor"] == 30 and {c: counts[c] for c in DESIGN} == DESIGN
        assert list(FILL_ORDER)[-1] == "system_vendor"  # default fill rank: last
        assert FEASIBLE_DESIGN["system_vendor"] == 1.0 and TIER_ALLOWED["system_vendor"] == ("easy",)
        assert tier_targets("system_vendor", 10) == {"easy": 10, "medium": 0, "hard": 0}
        with pytest.raises(ValueError, match="already registered"):
            registry.register(TOY)
    assert "system_vendor" not in CATEGORIES and category_counts(300) == DESIGN


def test_a_category_is_checked_by_its_own_property():
    def stated(_f):
        return [(4, "incident", "The vendor is Acme.")]
    with registered(TOY):
        assert violations("system_vendor", "template", "Who supplies X?", "Acme", ["sys:S:vendor"], stated) == \
            ["vendor not stated on a system overview"]
        assert not violations("system_vendor", "template", "Who supplies X?", "Acme", ["sys:S:vendor"],
                              lambda _f: [(4, "system_overview", "Supplied by Acme.")])


def test_a_category_declared_in_one_file_is_generated_and_described(tmp_path):
    out = tmp_path / "toy"
    with registered(TOY):
        generate_meridian(out, "small", seed=11, n_queries=62, grow=False)
        design = category_counts(62)
        want = design["system_vendor"]
        res = describe(out, write=False)
    metas = [m for _, m in iter_jsonl(out / "queries.meta.jsonl")]
    toy = [m for m in metas if m["category"] == "system_vendor"]
    assert want >= 5 and len(toy) == want and len(metas) == 62
    kinds = {o["_id"]: o["metadata"]["doc_type"] for _, o in iter_jsonl(out / "corpus.jsonl")}
    stated: dict[str, set[str]] = {}
    for _, row in iter_jsonl(out / "provenance.jsonl"):
        stated.setdefault(row["fact_id"], set()).add(kinds[row["doc_id"]])
    for m in toy:
        assert m["facts"] == [f"sys:{m['params']['system']}:vendor"] and "system_overview" in stated[m["facts"][0]]
        assert any(g == 3 for g in m["qrels"].values())  # a page states its one fact
    props = {p["property"]: p for p in res["properties"]}
    assert props["queries per category"]["measured"]["system_vendor"] == want
    assert props["queries per category"]["met"]  # the design's shares, the toy's included
    assert "system_vendor" in props["budget-feasible share per category (128-token chunks, 400 tokens)"]["measured"]
    assert Counter(m["category"] for m in metas) == Counter(design)


def test_the_docs_module_dropped_into_the_categories_package_is_discovered(tmp_path, monkeypatch):
    """docs/meridian_categories.md's module, as written there, placed in hcrbench.synth.categories."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "meridian_categories.md").read_text(encoding="utf-8")
    code = re.findall(r"^```python\n(.*?)^```", doc, flags=re.S | re.M)
    assert len(code) == 1 and "src/hcrbench/synth/categories/system_vendor.py" in code[0]
    pkg = importlib.import_module(registry.EXTRAS)
    (tmp_path / "system_vendor.py").write_text(code[0])
    monkeypatch.setattr(pkg, "__path__", [*pkg.__path__, str(tmp_path)])
    try:
        assert registry.discover() == ["system_vendor"] and registry.discover() == []
        spec = registry.get("system_vendor")
        assert spec is not None and CATEGORIES["system_vendor"][0] == 30 and list(FILL_ORDER)[-1] == "system_vendor"
        assert violations("system_vendor", "template", "Who supplies X?", "Acme", ["sys:S:vendor"],
                          lambda _f: [(1, "incident", "")]) == ["vendor not stated on a system overview"]
    finally:
        registry.unregister("system_vendor")
        sys.modules.pop(f"{registry.EXTRAS}.system_vendor", None)
    assert registry.get("system_vendor") is None and category_counts(300) == DESIGN
