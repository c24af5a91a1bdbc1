"""benchmarks/perfect_ties.py: the variants that locate the perfect ranking's failures (docs/context.md) change
what they say they change: mention lines are cut and nothing else, and equally graded documents are reordered by
the needed facts they state."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "benchmarks"

# q1 needs F1 and F2; d0 (first by id, same grade) states F1 only, d3 states both. d3 ends with mention lines.
DOCS = {
    "d0": "The outage ticket was reopened by the billing team on Monday morning after a second alert. "
          "The outage was caused by an expired signing key. Nobody else was paged that night.",
    "d3": "The outage was caused by an expired signing key. It lasted four hours.\n\n"
          "See also: project Tundra, Vesper Dashboards.\nLast edited by Sana Schneider.\n",
}
EVIDENCE = [("d0", "The outage was caused by an expired signing key.", "F1"),
            ("d3", "The outage was caused by an expired signing key.", "F1"),
            ("d3", "It lasted four hours.", "F2")]


def _bench():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("perfect_ties_bench", BENCH / "perfect_ties.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "ties"
    (folder / "qrels").mkdir(parents=True)
    with open(folder / "corpus.jsonl", "w") as fh:
        for d, text in DOCS.items():
            meta = {"mentions": ["PRJ-1", "P0001"]} if "See also" in text else {}
            fh.write(json.dumps({"_id": d, "title": "", "text": text, "metadata": meta}) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "what caused the outage and how long did "
                                                      "it last"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td0\t3\nq1\td3\t3\n")
    spans = [{"doc_id": d, "start": DOCS[d].index(s), "end": DOCS[d].index(s) + len(s), "text": s, "fact_id": f}
             for d, s, f in EVIDENCE]
    (folder / "evidence.jsonl").write_text(json.dumps({"query_id": "q1", "facts": ["F1", "F2"], "evidence": spans,
                                                       "minimal": spans[1:], "answer": ["expired key", "four hours"]})
                                           + "\n")
    return folder


def test_strip_mentions_cuts_the_mention_lines_before_a_footer_and_keeps_what_evidence_follows():
    b = _bench()
    body = "The outage was caused by an expired signing key. It lasted four hours.\n"
    assert b.strip_mentions(DOCS["d3"]) == (body, 0)
    assert b.strip_mentions(DOCS["d0"]) == (DOCS["d0"], 0)
    footer = body + "\nSee also: Beacon Monitor.\n\nPage maintained on the intranet.\n"
    assert b.strip_mentions(footer) == (body + "\nPage maintained on the intranet.\n", 0)
    # a statement after the line: the line stays (cutting it would move the statement's offsets)
    early = "See also: project Tundra.\nThe outage lasted four hours.\n"
    assert b.strip_mentions(early, keep_before=len(early) - 1) == (early, 1)
    assert b.strip_mentions(early)[0] == "The outage lasted four hours.\n"


def test_ties_by_needed_facts_pass_where_ties_by_id_fail(tmp_path):
    b = _bench()
    data = _folder(tmp_path)
    doc = b.measure(data, tmp_path / "out", [40, 400])
    at = doc["budgets"]
    assert doc["documents_with_mentions"] == 1 and doc["mention_lines_kept"] == 0
    # at 40 tokens one document's chunk fits: d0 (first by id) states one needed fact, d3 both
    assert at["40"]["harness"] == {"count": 1, "n": 1}
    assert at["40"]["mentions removed"] == {"count": 1, "n": 1}  # the mention lines were not the trouble
    assert at["40"]["ties by needed facts"] == {"count": 0, "n": 1}
    assert at["40"]["both"] == {"count": 0, "n": 1}
    assert at["40"]["first states all"] == {"count": 0, "n": 1}
    assert all(v == {"count": 0, "n": 1} for k, v in at["400"].items() if k != "first states all")
    stripped = json.loads((tmp_path / "out" / "no-mentions" / "ties" / "corpus.jsonl").read_text().splitlines()[1])
    assert "See also" not in stripped["text"] and stripped["text"].startswith(DOCS["d3"].split("\n")[0])
    text = b.markdown({"folders": [doc]})
    assert "| ties | 40 | 1 | 1 | 1 | 1 | 0 | 0 | 0 |" in text
    assert "with ties by needed facts 0 of 1;" in text
