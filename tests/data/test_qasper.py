"""QASPER loader and ``hcrbench convert qasper`` on a small file in QASPER's exact format (written here)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from hcrbench.data.beir import load_beir
from hcrbench.data.evidence import read_evidence
from hcrbench.data.qasper import load_qasper
from hcrbench.errors import InputError

P1 = "Our model is trained on 10k tweets."
P2 = "We evaluate with macro F1 and report 0.72."
P3 = "Related work includes BERT."


def _answer(unanswerable=False, spans=(), yes_no=None, free="", evidence=(), highlighted=()):
    return {"answer": {"unanswerable": unanswerable, "extractive_spans": list(spans), "yes_no": yes_no,
                       "free_form_answer": free, "evidence": list(evidence),
                       "highlighted_evidence": list(highlighted)},
            "annotation_id": "a", "worker_id": "w"}


QASPER = {
    "1909.00001": {
        "title": "Tweets and Things", "abstract": "We study tweets.",
        "full_text": [{"section_name": "Introduction", "paragraphs": [P3]},
                      {"section_name": "Method ::: Data", "paragraphs": [P1, ""]},
                      {"section_name": "Results", "paragraphs": [P2]}],
        "qas": [
            {"question": "How big is the dataset?", "question_id": "qa1", "nlp_background": "two",
             "topic_background": "familiar", "paper_read": "no", "search_query": "", "question_writer": "x",
             "answers": [_answer(spans=["10k tweets"], evidence=[P1], highlighted=[P1])]},
            {"question": "Which metric and score?", "question_id": "qa2", "nlp_background": "two",
             "topic_background": "familiar", "paper_read": "no", "search_query": "", "question_writer": "x",
             "answers": [_answer(free="macro F1, 0.72", evidence=[P2, "FLOAT SELECTED: Table 2: Results"]),
                         _answer(spans=["macro F1", "0.72"], evidence=[P2])]},
            {"question": "Do they use images?", "question_id": "qa3", "nlp_background": "two",
             "topic_background": "familiar", "paper_read": "no", "search_query": "", "question_writer": "x",
             "answers": [_answer(unanswerable=True), _answer(unanswerable=True)]},
            {"question": "Is BERT mentioned?", "question_id": "qa4", "nlp_background": "two",
             "topic_background": "familiar", "paper_read": "no", "search_query": "", "question_writer": "x",
             "answers": [_answer(yes_no=True, evidence=[P3])]},
        ],
        "figures_and_tables": [{"caption": "Table 2: Results", "file": "t2.png"}],
    }
}


@pytest.fixture
def qasper_file(tmp_path: Path) -> Path:
    p = tmp_path / "qasper-test-v0.3.json"
    p.write_text(json.dumps(QASPER))
    return p


def test_load_qasper(qasper_file):
    ds = load_qasper(qasper_file)
    assert ds.corpus.doc_ids == ["1909.00001:abstract", "1909.00001:0.0", "1909.00001:1.0", "1909.00001:2.0"]
    assert ds.corpus["1909.00001:1.0"].metadata["heading_path"] == ["Method", "Data"]
    assert ds.corpus["1909.00001:1.0"].title == "Tweets and Things"
    assert ds.qrels.to_dict() == {"qa1": {"1909.00001:1.0": 1}, "qa2": {"1909.00001:2.0": 1},
                                  "qa4": {"1909.00001:0.0": 1}}
    assert ds.queries.meta("qa3")["unanswerable"] and ds.n_unanswerable == 1
    assert ds.unmatched_evidence == 1  # the FLOAT SELECTED table quote
    ev = {e.query_id: e for e in ds.evidence}
    assert set(ev) == {"qa1", "qa2", "qa4"}
    assert ev["qa1"].answer == ["10k tweets"] and ev["qa1"].facts == ["1909.00001:1.0"]
    # qa2's first annotation cites a table (unmatched): the second, fully matched one is used
    assert ev["qa2"].answer == ["macro F1", "0.72"] and ds.queries.meta("qa2")["answer_type"] == "extractive"
    assert ev["qa4"].answer == "yes"
    span = ev["qa1"].evidence[0]
    assert ds.corpus[span.doc_id].text[span.start:span.end] == P1


def test_bad_qasper_is_a_one_line_error(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"x": {"qas": [{"question": "q"}]}}')
    with pytest.raises(InputError, match="question_id"):
        load_qasper(p)
    p.write_text("{not json")
    with pytest.raises(InputError, match="invalid JSON"):
        load_qasper(p)


def test_convert_qasper_cli(qasper_file, tmp_path):
    out = tmp_path / "beir"
    env = {**os.environ, "HCRBENCH_PROGRESS": "0"}
    r = subprocess.run(["hcrbench", "convert", "qasper", "--in", str(qasper_file), "--out", str(out)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "4 questions" in r.stderr and "1 unanswerable" in r.stderr
    ds = load_beir(out, "test")
    assert len(ds.corpus) == 4 and set(ds.qrels.query_ids) == {"qa1", "qa2", "qa4"}
    ev = read_evidence(out / "evidence.jsonl")
    assert ev["qa1"].answer == ["10k tweets"]
    r = subprocess.run(["hcrbench", "convert", "qasper", "--in", str(tmp_path / "missing.json"), "--out",
                        str(tmp_path / "o2")], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and "missing.json" in r.stderr and "Traceback" not in r.stderr
