"""Lexical overlap of queries with their relevant documents (synth/checks/describe_lexical.py), on hand-made folders whose
answers are worked out by hand."""

from __future__ import annotations

import json

import pytest

from hcrbench.data import load_beir
from hcrbench.synth.checks.describe_lexical import (
    REAL_RANGE,
    dataset_overlap,
    identifiers,
    lexical_props,
    meridian_overlap,
    query_overlaps,
    summarize,
    within_real_range,
)

DOCS = {
    "d1": "Turbine blade cracking under thermal load was traced in INC-20003.",
    "d2": "Blade design for turbines, tracked as PRJ-7.",
    "d3": "The office lunch menu changes weekly; INC-20003 delayed it.",
    "d4": "Turbines and blades: a glossary.",
}


def _rows(queries, qrels, **kw):
    return {r.qid: r for r in query_overlaps(DOCS.items(), queries, qrels, **kw)}


def test_identifiers_mix_letters_and_digits_and_ignore_plain_words_and_numbers():
    assert identifiers("See INC-20003, p53 and IL-6 in 2024 (version 3.1), not words.") == {"inc-20003", "p53", "il-6"}


def test_the_rarest_term_counts_only_when_every_document_holding_it_is_relevant():
    rows = _rows({"q1": "thermal cracking of turbine blades", "q2": "thermal cracking"},
                 {"q1": {"d1": 1}, "q2": {"d2": 1}})
    # thermal and crack are in d1 alone (df 1): exclusive for q1 (d1 relevant), not for q2 (d2 relevant)
    assert rows["q1"].rarest_exclusive and not rows["q2"].rarest_exclusive
    assert rows["q1"].shared == 1.0 and rows["q1"].n_terms == 4  # thermal, crack, turbin, blade
    assert rows["q2"].shared == 0.0


def test_a_frequent_word_shared_with_a_relevant_document_is_not_exclusive():
    # blade and turbin are in d1, d2 and d4; d2 alone is relevant
    r = _rows({"q": "turbine blades"}, {"q": {"d2": 2}})["q"]
    assert not r.rarest_exclusive and r.shared == 1.0


def test_an_identifier_is_exclusive_only_when_no_other_document_carries_it():
    rows = _rows({"a": "root cause of INC-20003", "b": "status of prj-7", "c": "turbine glossary"},
                 {"a": {"d1": 1}, "b": {"d2": 1}, "c": {"d4": 1}})
    assert rows["a"].names_identifier and not rows["a"].identifier_exclusive  # d3 carries it too
    assert rows["b"].names_identifier and rows["b"].identifier_exclusive  # case-insensitive
    assert not rows["c"].names_identifier and not rows["c"].identifier_exclusive


def test_grades_below_the_threshold_are_not_relevant_and_unjudged_queries_are_left_out():
    rows = _rows({"q": "thermal cracking", "none": "lunch"}, {"q": {"d1": 0, "d2": 1}, "none": {"d3": 0}})
    assert set(rows) == {"q"} and not rows["q"].rarest_exclusive and rows["q"].shared == 0.0
    assert _rows({"q": "thermal cracking"}, {"q": {"d1": 1}}, min_grade=2) == {}


def test_the_summary_gives_shares_and_quantiles_of_the_shared_terms():
    rows = query_overlaps(DOCS.items(), {"q1": "thermal cracking of turbine blades", "q2": "thermal cracking",
                                         "q3": "status of PRJ-7"},
                          {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d2": 1}})
    s = summarize(rows, n_unjudged=1)
    assert s["queries"] == 3 and s["queries_without_relevant"] == 1
    # q1 (thermal) and q3 (prj-7; "status" is in no document, so not a candidate) are exclusive
    assert s["rarest_exclusive"] == pytest.approx(2 / 3, abs=1e-3)
    assert s["no_shared_term"] == pytest.approx(1 / 3, abs=1e-3)  # q2
    # shared: q1 1.0, q2 0.0, q3 0.5 (prj-7 of status, prj-7: the identifier is one term, not also "prj")
    assert s["shared_quantiles"]["p50"] == 0.5 and s["shared_mean"] == 0.5
    assert s["names_identifier"] == pytest.approx(1 / 3, abs=1e-3)
    assert s["identifier_exclusive_of_named"] == 1.0


def _beir(folder, queries, qrels):
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps({"_id": d, "title": "", "text": t}) + "\n"
                                                 for d, t in DOCS.items()))
    (folder / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items()))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for q, j in qrels.items() for d, g in j.items()))


def test_a_beir_folder_is_measured_through_its_loader(tmp_path):
    _beir(tmp_path, {"q1": "thermal cracking of turbine blades", "q2": "thermal cracking"},
          {"q1": {"d1": 1}, "q2": {"d2": 1}})
    s = dataset_overlap(load_beir(tmp_path))
    assert s["queries"] == 2 and s["rarest_exclusive"] == 0.5 and s["no_shared_term"] == 0.5


def _meridian(folder, metas):
    folder.mkdir(exist_ok=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps({"_id": d, "title": d.upper(), "text": t}) + "\n"
                                                 for d, t in DOCS.items()))
    (folder / "queries.meta.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metas))


def test_a_meridian_folder_is_measured_per_category_and_describe_reports_it(tmp_path):
    _meridian(tmp_path, [
        {"query_id": "MQ1", "category": "detail", "split": "test", "text": "root cause of INC-20003",
         "origin": "template", "qrels": {"d1": 2, "d3": 2}},
        {"query_id": "MQ2", "category": "detail", "split": "tune", "text": "status of PRJ-7", "origin": "template",
         "qrels": {"d2": 3}},
        {"query_id": "MQ3", "category": "thematic", "split": "test", "text": "lunch", "origin": "adversarial:vocabulary",
         "qrels": {"d4": 2}},
        {"query_id": "MQ4", "category": "out_of_distribution", "split": "test", "text": "payroll", "qrels": {}},
        {"query_id": "MQ5", "category": "thematic", "split": "test", "text": "weekly menu", "origin": "template",
         "qrels": {"d1": 2}},
    ])
    m = meridian_overlap(tmp_path)
    assert m["all"]["queries"] == 4 and m["all"]["queries_without_relevant"] == 1
    assert m["by_category"]["detail"]["identifier_exclusive"] == 1.0
    assert m["by_category"]["thematic"]["no_shared_term"] == 1.0
    assert m["by_origin"]["adversarial:vocabulary"]["queries"] == 1
    assert "out_of_distribution" not in m["by_category"]
    # MQ3 is worded to share nothing; MQ5 shares nothing by accident
    assert m["no_shared_term_not_vocabulary"] == ["MQ5"]
    assert meridian_overlap(tmp_path, splits=("tune",))["all"]["queries"] == 1
    (row,) = lexical_props(tmp_path)
    assert not row["met"] and row["measured"]["no term shared"] == 0.5  # (identifiers 0.5 > 0.07; MQ5)
    assert row["measured"]["identifier only in relevant docs"] == 0.5
    assert row["measured"]["no term shared, not vocabulary-mismatch (queries)"] == 1


def test_the_real_range_bounds_rarest_word_and_identifier_exclusivity_and_the_lower_quartile():
    inside = {"rarest_exclusive": 0.1, "identifier_exclusive": 0.073, "shared_quantiles": {"p25": 0.4}}
    assert all(within_real_range(inside).values())
    assert within_real_range({**inside, "rarest_exclusive": 0.2}) == {
        "rarest_exclusive": False, "identifier_exclusive": True, "p25": True}
    assert not within_real_range({**inside, "shared_quantiles": {"p25": 0.7}})["p25"]
    assert not within_real_range({**inside, "identifier_exclusive": None})["identifier_exclusive"]


def test_the_real_range_is_the_one_the_docs_table_measures():
    """REAL_RANGE holds the min-max of the real collections in docs/figures/meridian-lexical.json."""
    from pathlib import Path

    doc = json.loads((Path(__file__).resolve().parents[2] / "docs/figures/meridian-lexical.json").read_text())
    real = [r for r in doc["rows"] if r["kind"] == "real"]
    for key, (lo, hi) in REAL_RANGE.items():
        assert (lo, hi) == (min(r[key] for r in real), max(r[key] for r in real)), key
