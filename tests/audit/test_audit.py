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
    assert doc["checks"][3]["details"] == {"near_duplicate_pairs": 1, "conflicts": 1}
    bad = subprocess.run(["hcrbench", "audit", str(root), "--split", "dev"], capture_output=True, text=True,
                         check=False)
    assert bad.returncode == 2 and "splits: test, tune" in bad.stderr and "Traceback" not in bad.stderr


def test_queries_that_differ_in_a_name_are_two_questions():
    from hcrbench.audit.checks import _differ_in_a_name

    assert _differ_in_a_name("What did DEC-0408 decide?", "What did DEC-0414 decide?")
    assert _differ_in_a_name("Cobalt changes a product: where?", "Aurora changes a product: where?")
    assert not _differ_in_a_name("Dogs bark at the mail carrier?", "dogs bark at the mail carrier")
    assert not _differ_in_a_name("why do cats purr", "Why do cats purr?")
