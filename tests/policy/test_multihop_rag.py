"""MultiHop-RAG: its two files (exact format, written here) -> BEIR folder, qrels by article, its own scorer."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hcrbench.data import load_beir
from hcrbench.data.multihop_rag import load_multihop_rag, multihop_rag_scores
from hcrbench.errors import InputError

ARTICLES = [
    {"title": "Apple reports record quarter", "author": "A. Writer", "source": "TechCrunch",
     "published_at": "2023-10-01T10:00:00+00:00", "category": "technology", "url": "https://ex.com/apple",
     "body": "Apple said on Thursday that its services revenue reached a record in the quarter.\nIt also grew."},
    {"title": "Nvidia margin widens", "author": "B. Writer", "source": "The Verge",
     "published_at": "2023-11-02T10:00:00+00:00", "category": "technology", "url": "https://ex.com/nvidia",
     "body": "Nvidia reported a gross margin of 74 percent, its widest ever, driven by data-center chips."},
    {"title": "Local team wins cup", "author": "C. Writer", "source": "Sporting News",
     "published_at": "2023-12-03T10:00:00+00:00", "category": "sports", "url": "https://ex.com/cup",
     "body": "The local team won the cup after a penalty shoot-out on Sunday evening."},
]
QUERIES = [
    {"query": "Which company reported the wider margin, Apple or Nvidia?", "answer": "Nvidia",
     "question_type": "comparison_query",
     "evidence_list": [
         {"title": "Apple reports record quarter", "author": "A. Writer", "url": "https://ex.com/apple",
          "source": "TechCrunch", "category": "technology", "published_at": "2023-10-01T10:00:00+00:00",
          "fact": "its services revenue reached a record in the quarter"},
         {"title": "Nvidia margin widens", "author": "B. Writer", "url": "https://ex.com/nvidia",
          "source": "The Verge", "category": "technology", "published_at": "2023-11-02T10:00:00+00:00",
          "fact": "Nvidia reported a gross margin of 74 percent"}]},
    {"query": "Did the team that won the cup on Sunday win by penalties?", "answer": "Yes",
     "question_type": "inference_query",
     "evidence_list": [{"title": "Local team wins cup", "author": "C. Writer", "url": "https://other.com/moved",
                        "source": "Sporting News", "category": "sports",
                        "published_at": "2023-12-03T10:00:00+00:00", "fact": "won the cup after a penalty"}]},
    {"query": "What did the unknown company announce?", "answer": "Insufficient information.",
     "question_type": "null_query", "evidence_list": []},
]


def write_mhr(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.json").write_text(json.dumps(ARTICLES, indent=4))
    (folder / "MultiHopRAG.json").write_text(json.dumps(QUERIES, indent=4))
    return folder


def test_loader_qrels_by_article_and_strata(tmp_path: Path) -> None:
    ds = load_multihop_rag(write_mhr(tmp_path / "mhr"))
    assert ds.corpus.doc_ids == ["MHR-D0000", "MHR-D0001", "MHR-D0002"]
    assert ds.corpus.titles[1] == "Nvidia margin widens" and ds.corpus.metadata[1]["source"] == "The Verge"
    assert ds.qrels.to_dict() == {"MHR-Q0000": {"MHR-D0000": 1, "MHR-D0001": 1},
                                  "MHR-Q0001": {"MHR-D0002": 1}}  # second matched by title (url differs)
    assert [ds.queries.meta(q)["category"] for q in ds.queries.query_ids] == ["comparison", "inference", "null"]
    assert ds.queries.meta("MHR-Q0000")["facts"][1] == "Nvidia reported a gross margin of 74 percent"


def test_bad_file_names_file_and_field(tmp_path: Path) -> None:
    folder = write_mhr(tmp_path / "bad")
    bad = json.loads(json.dumps(QUERIES))
    del bad[1]["query"]
    (folder / "MultiHopRAG.json").write_text(json.dumps(bad))
    with pytest.raises(InputError) as e:
        load_multihop_rag(folder)
    assert "MultiHopRAG.json" in str(e.value) and e.value.field == "[1].query"


def test_native_scores_match_the_script_by_hand() -> None:
    facts = [["fact one", "fact two"], ["alpha"], []]
    retrieved = [
        ["nothing", "this has fact\ntwo inside", "x", "y", "fact one here"],  # rank 2: new fact; rank 5: other
        ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "alpha at rank 11"],  # beyond 10: a miss
        ["ignored: no facts (a null query)"],
    ]
    s = multihop_rag_scores(retrieved, facts)
    assert s["n"] == 2
    assert s["Hits@10"] == pytest.approx(0.5) and s["Hits@4"] == pytest.approx(0.5)
    assert s["MRR@10"] == pytest.approx((1 / 2 + 0) / 2)
    assert s["MAP@10"] == pytest.approx(((1 / 2 + 1 / 5) / 2 + 0) / 2)


def test_convert_cli_and_policy_compare(tmp_path: Path) -> None:
    src = write_mhr(tmp_path / "in")
    out = tmp_path / "beir"
    r = subprocess.run(["hcrbench", "convert", "multihop-rag", "--in", str(src), "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "3 articles, 3 queries (2 with evidence" in r.stderr
    ds = load_beir(out, "test")
    assert len(ds.queries) == 2 and ds.queries.meta("MHR-Q0001")["category"] == "inference"
    js = tmp_path / "pc.json"
    r = subprocess.run(["hcrbench", "policy-compare", "--dataset", str(out), "--system", "bm25", "--param",
                        "stemmer=none", "--budget", "3", "--resamples", "200", "--json", str(js)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "MultiHop-RAG" in r.stdout and "bottom line" in r.stdout
    native = json.loads(js.read_text())["aggregate"]["native"]
    assert {n["policy"] for n in native} == {"1-hop@3", "2-hop@3"} and all(n["n"] == 2 for n in native)
