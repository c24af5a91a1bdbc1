"""Text on the page's own subject (synth/corpus/subjects.py): no checked document borrows another domain's vocabulary
(warehouse scanners in a CI outage log, the HR portal in an API standard), on several seeds and sizes; a page
broken that way is caught; project code names are never another's namesake and the staff draw on a larger pool of
first names."""

from __future__ import annotations

import functools
import re

import pytest

from hcrbench.synth.checks.describe_world import off_subject_docs
from hcrbench.synth.corpus.render import render
from hcrbench.synth.corpus.subjects import (
    allowed_subjects,
    off_subject,
    off_subject_words,
    on_subject,
    subject_scope,
    template_subjects,
)
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import build_world
from hcrbench.synth.world_model.schedule import iter_specs


@functools.cache
def _rendered(seed: int, n: int) -> tuple[dict, list[dict], list[tuple[str, int, int]]]:
    w = build_world(seed, n)
    docs, spans = [], []
    for s in iter_specs(w):
        d = render(w, s)
        docs.append(d.row())
        spans += [(d.doc_id, a, b) for a, b in d.spans.values()]
    return w.to_json(), docs, spans


@pytest.mark.parametrize("seed, n", [(0, 500), (2718, 500), (613, 2000)])
def test_no_checked_document_uses_another_subjects_vocabulary(seed, n):
    w, docs, spans = _rendered(seed, n)
    assert off_subject_docs(w, docs, spans) == {}
    checked = [d for d in docs if allowed_subjects(d["metadata"]["doc_type"], d["metadata"]["entities"],
                                                   d["metadata"].get("cluster"), {e["id"]: e for k in (
                                                       "teams", "systems", "products", "projects", "policies")
                                                       for e in w[k]}.get) is not None]
    assert len(checked) > len(docs) / 3  # incidents, systems, policies and project pages are checked


def test_a_ci_outage_log_with_warehouse_scanners_is_caught():
    w, docs, _ = _rendered(0, 500)
    build = next(s["id"] for s in w["systems"] if s["kind"] == "continuous integration service")
    doc = next(d for d in docs if d["metadata"]["doc_type"] == "incident" and build in d["metadata"]["entities"])
    broken = [{**doc, "text": doc["text"] + "\nA warehouse scanner stopped syncing and merchants retried payments."}]
    found = off_subject_docs(w, broken, [])
    assert [s for s, _ in found[doc["_id"]]] == ["commerce", "commerce"]


def test_subjects_follow_the_systems_policies_and_products_a_page_is_about():
    w, _, _ = _rendered(0, 500)
    get = {e["id"]: e for k in ("teams", "systems", "products", "projects", "policies") for e in w[k]}.get
    by_kind = {s["kind"]: s["id"] for s in w["systems"]}
    assert allowed_subjects("incident", [by_kind["continuous integration service"]], None, get) == frozenset()
    assert "people" in allowed_subjects("incident", [by_kind["human resources information system"]], None, get)
    eng = next(p for p in w["policies"] if p["domain"] == "engineering")
    assert allowed_subjects("policy", [eng["id"]], None, get) == frozenset()  # no HR portal in an API standard
    assert allowed_subjects("announcement", [], None, get) is None  # (not checked)
    assert allowed_subjects("access_review", [by_kind["continuous integration service"]], "C1", get) is None
    assert off_subject_words("Requests go through the HR portal.", frozenset()) == [("people", "HR portal")]


def test_templates_of_another_subject_are_not_drawn_inside_a_scope():
    pool = ["A warehouse scanner stopped syncing.", "Dashboards turned red.", "Payroll staff phoned the helpdesk."]
    assert template_subjects(pool[0]) == {"commerce"} and template_subjects(pool[2]) == {"finance"}
    with subject_scope(off_subject(frozenset())):
        assert on_subject(pool) == ["Dashboards turned red."]
    with subject_scope(off_subject(frozenset({"finance"}))):
        assert on_subject(pool) == pool[1:]
    assert on_subject(pool) == pool  # outside a document's scope every template is drawn
    with subject_scope(off_subject(frozenset())):
        assert on_subject(pool[:1]) == pool[:1]  # a fact's only wording is kept


def test_code_names_are_unique_and_never_a_namesake():
    names = lx.ALL_CODE_NAMES
    assert len(names) == len(set(names)) >= 800  # enough for worlds of ~30,000 documents
    assert not any(re.search(r" \d+$", n) for n in names)
    assert not [(a, b) for a in names for b in names if a != b and re.search(rf"\b{re.escape(a)}\b", b)]
    w, _, _ = _rendered(613, 2000)
    codes = [p["code_name"] for p in w["projects"]]
    assert len(codes) > len(lx.CODE_NAMES) // 3 and len(set(codes)) == len(codes)


def test_staff_draw_on_a_larger_pool_of_first_names():
    assert len(set(lx.FIRST_NAMES)) >= 200 and not set(lx.FIRST_NAMES) & set(lx.LAST_NAMES)
    w, _, _ = _rendered(613, 2000)
    firsts = {p["name"].split()[0] for p in w["people"]}
    assert len(firsts) >= 0.4 * len(w["people"])  # Meridian 4: 69 first names for 308 staff
