"""Reproduce trec_eval's own regression outputs (../shared/conformance/trec_eval) line by line.

For every output line whose measure hcrbench implements, the per-query value and the ``all`` line must print
the same 4 decimals (counts: the same integer; trec_eval's ``all`` for ``num_*`` is a sum).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from hcrbench.data import read_qrels, read_run
from hcrbench.errors import HcrbenchWarning
from hcrbench.metrics import evaluate, parse_measure

COUNTS = {"num_rel", "num_ret", "num_rel_ret"}
# trec_eval's rbp uses graded gains rescaled to [0, 1]; hcrbench's RBP is ir_measures' (binary at the threshold).
# They agree on binary qrels (out.test.aq, .aqc) and differ on the graded qrels.rel_level.
GRADED_ONLY_DIFFERENCES = {"out.test.aql": {"rbp"}}
CASES = [
    # (expected output, qrels, run, trec_eval flags as evaluate() kwargs)
    ("out.test.aq", "qrels.test", "results.test", {"missing": "skip"}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"missing": "zero"}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"missing": "skip", "rel_threshold": 2}),
]


def _expected(path: Path) -> dict[str, dict[str, str]]:
    """{trec_eval measure: {qid or 'all': printed value}} for the measures hcrbench implements."""
    out: dict[str, dict[str, str]] = {}
    skip = GRADED_ONLY_DIFFERENCES.get(path.name, set())
    for line in path.read_text().splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        try:
            parse_measure(name)
        except ValueError:
            continue
        if name in skip:
            continue
        out.setdefault(name, {})[qid] = value
    return out


@pytest.mark.parametrize(("out_file", "qrels_file", "run_file", "kwargs"), CASES)
def test_reproduces_trec_eval_regression_output(conformance_dir, out_file, qrels_file, run_file, kwargs):
    expected = _expected(conformance_dir / out_file)
    # The measures we must cover appear in the file (guards against a parser that silently skips everything).
    for must in ("map", "recip_rank", "P_5", "ndcg_cut_10", "recall_100", "Rprec", "num_rel", "num_rel_ret",
                 "ndcg", "map_cut_10", "success_5", "unj_10", "num_ret", "bpref", "infAP", "gm_map",
                 "iprec_at_recall_0.00", "iprec_at_recall_0.50", "iprec_at_recall_1.00", "11pt_avg", "set_P",
                 "set_recall", "set_F"):
        assert must in expected, must
    qrels = read_qrels(conformance_dir / qrels_file)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)  # results.trunc has extra columns; 302 is missing
        run = read_run(conformance_dir / run_file)
        result = evaluate(qrels, run, list(expected), **kwargs)
    r = next(iter(result))
    checked = 0
    for name, by_query in expected.items():
        measure = parse_measure(name).name
        values = dict(zip(r.query_ids, r.values[measure].tolist()))
        for qid, printed in by_query.items():
            if qid == "all":
                got = sum(values.values()) if name in COUNTS else r.means[measure]
            else:
                got = values[qid]
            mine = str(round(got)) if name in COUNTS else f"{got:.4f}"
            assert mine == printed, f"{out_file}: {name} {qid}: hcrbench {got!r} vs trec_eval {printed}"
            checked += 1
    # 66 implemented measures (67 with rbp on binary qrels) x (3 queries + all), plus gm_map's `all` line
    assert checked == (66 if out_file == "out.test.aql" else 67) * 4 + 1


def test_zero_fill_matches_trec_eval_c_query_count(conformance_dir):
    qrels = read_qrels(conformance_dir / "qrels.test")
    with pytest.warns(HcrbenchWarning):
        run = read_run(conformance_dir / "results.trunc")
    with pytest.warns(HcrbenchWarning, match="1 qrels queries absent from the run are counted as 0: '302'"):
        r = evaluate(qrels, run, "map")["results.trunc"]
    assert r.ledger.zero_filled == ["302"]
    assert r.ledger.n_queries_averaged == 3
    with pytest.warns(HcrbenchWarning, match="left out of the means"):
        s = evaluate(qrels, run, "map", missing="skip")["results.trunc"]
    assert s.ledger.skipped == ["302"] and s.ledger.n_queries_averaged == 2
