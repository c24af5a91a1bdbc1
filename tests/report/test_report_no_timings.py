"""A report holds no wall-clock time (docs/reliability.md): its cost table shows eval.json's counts, never the
manifest's seconds, so the report text does not change with the machine's speed."""

from __future__ import annotations

import json

from hcrbench.report.document import write_report


def test_the_cost_table_has_counts_and_no_ms(copy_of):
    folder = copy_of()
    ev = json.loads((folder / "eval.json").read_text())
    systems = list(ev["runs"])
    ev["cost"] = {n: {"queries": 10, "chunks_scored": 123.0, "nodes_scored": 0.0, "reranker_calls": 0.0,
                      "context_tokens": 400.0, "depth": 100.0, "ms_per_query": None} for n in systems}
    (folder / "eval.json").write_text(json.dumps(ev))
    texts = []
    for seconds in (1.5, 9.25):  # two machines of different speed
        man = json.loads((folder / "manifest.json").read_text())
        for e in man["systems"].values():
            e["seconds"], e["n_queries"] = seconds, 10
        (folder / "manifest.json").write_text(json.dumps(man))
        paths = write_report(folder)
        texts.append((paths["md"].read_text(), paths["html"].read_text()))
    md, html = texts[0]
    assert "chunks scored" in md and "123.0" in md  # the cost table is there ...
    assert "ms / query" not in md and "ms / query" not in html  # ... without a wall-clock column
    assert texts[0] == texts[1]
