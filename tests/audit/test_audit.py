"""``hcrbench audit``: each check fires on its planted defect alone and stays quiet on a clean BEIR folder."""

from __future__ import annotations

import json
import subprocess

import pytest

from hcrbench.audit import audit
from hcrbench.data import read_run

DOCS = {
    "d1": "Cats purr when they are content and warm near the fire at night.",
    "d2": "Dogs bark loudly at the mail carrier every single morning.",
    "d3": "The stock market fell sharply on Monday after the central bank report.",
    "d4": "Python is a programming language used for data analysis work.",
    "d5": "Tomatoes need sun and rich soil to grow in a garden.",
    "d6": "Rain and wind are expected across the northern coast tomorrow.",
    "d7": "Boil the pasta in salted water for ten minutes before serving.",
}
QUERIES = {  # id: (text, split, relevant doc, category)
    "t1": ("why do cats purr", "test", "d1", "animals"),
    "t2": ("dogs bark at the mail carrier", "test", "d2", "animals"),
    "t3": ("stock market fell on monday", "test", "d3", "finance"),
    "t4": ("python programming language", "test", "d4", "finance"),
    "u1": ("tomatoes garden soil", "tune", "d5", "garden"),
    "u2": ("rain wind coast forecast", "tune", "d6", "weather"),
}
DEFECTS = {  # check -> what plants its defect
    "false_negatives": "an unjudged document with every key term of t1",
    "duplicate_queries": "a test query worded like t2",
    "split_leakage": "a tune query with t3's relevant set",
    "graded_near_duplicates": "a near-copy of d3 judged 0 for t3",
    "oracle_ceilings": "t4's evidence names a non-relevant document",
    "unjudged_in_run": "a run whose top documents are unjudged",
}


def make_folder(root, defect=None):
    docs = dict(DOCS)
    queries = dict(QUERIES)
    qrels = {q: {rel: 1} for q, (_, _, rel, _) in queries.items()}
    meta = {q: {"category": c} for q, (_, _, _, c) in queries.items()}
    meta["t1"]["answer"] = ["content and warm"]
    if defect == "false_negatives":
        docs["d8"] = "A purring cat is usually a calm cat; cats purr to signal comfort."
    if defect == "duplicate_queries":
        queries["t5"] = ("Dogs bark at the mail carrier?", "test", "d2", "animals")
        qrels["t5"] = {"d2": 1}
    if defect == "split_leakage":
        queries["u3"] = ("equity indices decline", "tune", "d3", "finance")
        qrels["u3"] = {"d3": 1}
    if defect == "graded_near_duplicates":
        docs["d9"] = DOCS["d3"].replace("Monday", "Monday,")
        qrels["t3"]["d9"] = 0
    if defect == "oracle_ceilings":
        meta["t4"]["evidence"] = [{"doc_id": "d7", "start": 0, "end": 4}]
    root.mkdir(parents=True, exist_ok=True)
    (root / "qrels").mkdir(exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": d, "title": "", "text": t}) + "\n"
                                               for d, t in docs.items()))
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": v[0], "metadata": meta.get(q, {})})
                                                + "\n" for q, v in queries.items()))
    for split in ("test", "tune"):
        rows = [f"{q}\t{d}\t{g}" for q, v in queries.items() if v[1] == split for d, g in qrels[q].items()]
        (root / "qrels" / f"{split}.tsv").write_text("query-id\tcorpus-id\tscore\n" + "\n".join(rows) + "\n")
    run = root / "run.trec"
    tests = [q for q, v in queries.items() if v[1] == "test"]
    if defect == "unjudged_in_run":
        run.write_text("".join(f"{q} Q0 {d} {r} {3 - r} x\n" for q in tests for r, d in enumerate(("d5", "d6"), 1)))
    else:
        run.write_text("".join(f"{q} Q0 {queries[q][2]} 1 1.0 x\n" for q in tests))
    return root


def _statuses(root):
    return {c.name: c.status for c in audit(root, "test", read_run(root / "run.trec"))}


def test_clean_folder_passes_every_check(tmp_path):
    root = make_folder(tmp_path / "clean")
    assert set(_statuses(root).values()) == {"ok"}
    r = subprocess.run(["hcrbench", "audit", str(root), "--run", str(root / "run.trec")], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1].endswith("all 6 checks pass")


@pytest.mark.parametrize("check", list(DEFECTS))
def test_each_check_fires_on_its_defect_alone(tmp_path, check):
    statuses = _statuses(make_folder(tmp_path / check, check))
    assert [n for n, s in statuses.items() if s == "FAIL"] == [check], DEFECTS[check]


@pytest.mark.parametrize("how", ["relevant", "facts"])
def test_duplicate_queries_counts_the_same_evidence_however_worded(tmp_path, how):
    """A differently worded test query with t2's relevant set (any BEIR folder), or with t2's needed facts
    (metadata lists facts), is a duplicate; the same relevant set in another split is leakage, not this."""
    root = make_folder(tmp_path / how)
    meta = {q: {"category": c} for q, (_, _, _, c) in QUERIES.items()}
    rows = [json.loads(x) for x in (root / "queries.jsonl").read_text().splitlines()]
    rows.append({"_id": "t6", "text": "what happens when the postman arrives each morning", "metadata": {}})
    if how == "facts":
        rows[1]["metadata"] = {**meta["t2"], "facts": ["dog:bark"]}
        rows[-1]["metadata"] = {"facts": ["dog:bark"]}
    (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rel = "d2" if how == "relevant" else "d7"
    with (root / "qrels" / "test.tsv").open("a") as fh:
        fh.write(f"t6\t{rel}\t1\n")
    check = next(c for c in audit(root, "test") if c.name == "duplicate_queries")
    assert check.status == "FAIL" and check.details["pairs"] == 0
    assert check.details["evidence_pairs"] == 1
    assert check.details["same_relevant_set" if how == "relevant" else "same_needed_facts"] == 1
    assert any("t2 ~ t6" in e for e in check.examples)


def test_defects_through_the_console_script(tmp_path):
    root = make_folder(tmp_path / "bad", "graded_near_duplicates")
    out = tmp_path / "audit.json"
    r = subprocess.run(["hcrbench", "audit", str(root), "--json", str(out)], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert [ln.split()[0] for ln in lines if not ln.startswith(" ")][:5] == ["ok", "ok", "ok", "FAIL", "ok"]
    assert "t3: d3 graded 1, near-duplicate d9 graded 0" in r.stdout
    assert "(graded_near_duplicates)" in lines[-1]
    doc = json.loads(out.read_text())
    assert [c["name"] for c in doc["checks"]] == list(DEFECTS)[:5]
    assert doc["checks"][3]["details"] == {"near_duplicate_pairs": 1, "conflicts": 1, "differ_where_the_query_looks": 0}
    bad = subprocess.run(["hcrbench", "audit", str(root), "--split", "dev"], capture_output=True, text=True,
                         check=False)
    assert bad.returncode == 2 and "splits: test, tune" in bad.stderr and "Traceback" not in bad.stderr


def test_queries_that_differ_in_a_name_are_two_questions():
    from hcrbench.audit.checks import _differ_in_a_name

    assert _differ_in_a_name("What did DEC-0408 decide?", "What did DEC-0414 decide?")
    assert _differ_in_a_name("Cobalt changes a product: where?", "Aurora changes a product: where?")
    assert not _differ_in_a_name("Dogs bark at the mail carrier?", "dogs bark at the mail carrier")
    assert not _differ_in_a_name("why do cats purr", "Why do cats purr?")


# The refinements that keep Meridian's intended look-alikes from failing the audit must not hide a real defect:
# each one below is tested on a folder where it explains the finding and on one where it must not.

def _with(root, *, docs=None, topical=None, meta=None, tune_meta=None):
    """Rewrite make_folder's files with extra documents, a qrels-topical view and query metadata."""
    if docs:
        with (root / "corpus.jsonl").open("a") as f:
            f.writelines(json.dumps({"_id": d, "title": "", "text": t}) + "\n" for d, t in docs.items())
    if topical:
        (root / "qrels-topical").mkdir(exist_ok=True)
        (root / "qrels-topical" / "test.tsv").write_text(
            "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in topical))
    if meta or tune_meta:
        rows = [json.loads(x) for x in (root / "queries.jsonl").read_text().splitlines()]
        for r in rows:
            r["metadata"].update((meta or {}).get(r["_id"], {}))
            r["metadata"].update((tune_meta or {}).get(r["_id"], {}))
        (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {c.name: c for c in audit(root, "test")}


def test_a_secondary_judgment_explains_key_terms_but_not_an_answer(tmp_path):
    purr = {"d8": "A purring cat is usually a calm cat; cats purr to signal comfort."}
    seen = _with(make_folder(tmp_path / "a"), docs=purr, topical=[("t1", "d8")])["false_negatives"]
    assert seen.status == "ok" and seen.details["judged_in_secondary_view"] == 1
    answer = {"d8": "Cats purr when content and warm, a calm cat purrs to signal comfort."}
    hit = _with(make_folder(tmp_path / "b"), docs=answer, topical=[("t1", "d8")])["false_negatives"]
    assert hit.status == "FAIL" and "d8 contains the answer string beside" in hit.examples[0]


def test_a_name_is_held_as_a_phrase(tmp_path):
    from hcrbench.audit.checks import _name_phrases

    assert _name_phrases("For Wei Osei, give their job title") == ["wei osei"]
    assert _name_phrases("What did DEC-0408 decide?") == []
    apart = {"d8": "Wei Bauer works on cats; her manager Osei says cats purr."}
    root = make_folder(tmp_path / "a")
    rows = [json.loads(x) for x in (root / "queries.jsonl").read_text().splitlines()]
    rows[0]["text"] = "why do Wei Osei cats purr"
    (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert _with(root, docs=apart)["false_negatives"].status == "ok"
    together = {"d10": "Wei Osei works on cats; cats purr."}
    assert _with(root, docs=together)["false_negatives"].status == "FAIL"


def test_an_answer_the_query_names_is_no_evidence(tmp_path):
    doc = {"d8": "The vet said on Monday the stock market fell sharply."}  # judged topical: key terms explained
    named = {"t3": {"answer": ["stock market"]}}  # "stock market fell on monday" names its own answer
    assert _with(make_folder(tmp_path / "a"), docs=doc, meta=named, topical=[("t3", "d8")])[
        "false_negatives"].status == "ok"
    told = {"t3": {"answer": ["fell sharply"]}}
    assert _with(make_folder(tmp_path / "b"), docs=doc, meta=told, topical=[("t3", "d8")])[
        "false_negatives"].status == "FAIL"


LONG = (" Analysts had expected a calm week, and traders spent the afternoon reading the report line by line while"
        " the desks in every office tried to work out what the bank would do next and how long it would take.")


def _long_d3(root):
    rows = [json.loads(x) for x in (root / "corpus.jsonl").read_text().splitlines()]
    for r in rows:
        if r["_id"] == "d3":
            r["text"] += LONG
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_graded_twins_compare_the_needed_fact_statements(tmp_path):
    base = DOCS["d3"] + LONG
    fact = "The stock market fell sharply on Monday"
    ev = {"t3": {"evidence": [{"doc_id": "d3", "start": 0, "end": len(fact)}]}}
    # a twin that differs exactly in the statement the query needs (a templated page with another figure)
    other_day = {"d9": base.replace("fell sharply", "fell slightly")}  # no query term differs: the span does
    ok = _with(_long_d3(make_folder(tmp_path / "a")), docs=other_day, meta=ev)["graded_near_duplicates"]
    assert ok.status == "ok" and ok.details["differ_where_the_query_looks"] == 1, ok.summary
    # a twin that states the same fact and differs elsewhere: still a defect when left unjudged
    same_fact = {"d9": base.replace("calm week", "quiet week")}
    bad = _with(_long_d3(make_folder(tmp_path / "b")), docs=same_fact, meta=ev)["graded_near_duplicates"]
    assert bad.status == "FAIL" and "d3 graded 1, near-duplicate d9 unjudged" in bad.examples[0]
    # without evidence spans, a twin that differs in a query term differs rightly; one that does not is a defect
    other_term = {"d9": base.replace("Monday", "Tuesday")}
    assert _with(_long_d3(make_folder(tmp_path / "c")), docs=other_term)["graded_near_duplicates"].status == "ok"
    assert _with(_long_d3(make_folder(tmp_path / "d")), docs=same_fact)["graded_near_duplicates"].status == "FAIL"


def test_a_needed_fact_shared_across_splits_leaks(tmp_path):
    facts = {"t1": {"facts": ["cat:purr"]}, "t2": {"facts": ["dog:bark"]}}
    assert _with(make_folder(tmp_path / "a"), meta=facts, tune_meta={"u1": {"facts": ["soil"]}})[
        "split_leakage"].status == "ok"
    leak = _with(make_folder(tmp_path / "b"), meta=facts, tune_meta={"u1": {"facts": ["cat:purr"]}})
    assert leak["split_leakage"].status == "FAIL" and leak["split_leakage"].details["shared_fact"] == 1
