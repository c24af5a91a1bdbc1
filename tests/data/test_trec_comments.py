"""``#`` comment lines in TREC qrels and runs, as trec_eval 10.0 reads them.

trec_eval 10.0 skips a line that starts with ``#`` in qrels and run files (its test files
``qrels.test.with-comments``, ``qrels.comment.test``, ``results.comment.test``); a ``#`` inside a field is part of
the id. Its test directory is not in ../shared, so the comment files are rebuilt here from the shared
``qrels.test`` / ``results.test`` with trec_eval's exact edits (three comment lines, one doc id with a ``#``),
checked against the original files' sizes, and must reproduce every line of trec_eval's ``out.test`` that
hcrbench implements (comments change no number; the renamed doc is a non-relevant one that results.test never
retrieves).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import pytrec_eval

from hcrbench.data import read_qrels, read_run
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.metrics import evaluate, parse_measure

COUNTS = {"num_rel", "num_ret", "num_rel_ret"}


def _with_comments(src: Path, dst: Path, comments: tuple[str, str, str], old: str, new: str) -> Path:
    """trec_eval's edit of qrels.test: a comment before lines 1, 3 and 5, and a ``#`` inside line 5's doc id."""
    lines = src.read_text().splitlines(keepends=True)
    assert old in lines[4]
    out = [comments[0] + "\n", *lines[:2], comments[1] + "\n", *lines[2:4], comments[2] + "\n",
           lines[4].replace(old, new), *lines[5:]]
    dst.write_text("".join(out))
    return dst


def _out_test(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        try:
            parse_measure(name)
        except ValueError:
            continue
        assert qid == "all"
        out[name] = value
    return out


def _check_out_test(conformance_dir: Path, qrels_path: Path, run_path: Path) -> int:
    expected = _out_test(conformance_dir / "out.test")
    for must in ("map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall_0.50", "P_5", "num_rel"):
        assert must in expected, must
    with warnings.catch_warnings():
        warnings.simplefilter("error", HcrbenchWarning)  # a comment read as a query would warn
        qrels = read_qrels(qrels_path)
        run = read_run(run_path)
        r = next(iter(evaluate(qrels, run, list(expected), missing="skip")))
    assert qrels.query_ids == ["301", "302", "303"] and run.query_ids == ["301", "302", "303"]
    for name, printed in expected.items():
        m = parse_measure(name).name
        got = float(r.values[m].sum()) if name in COUNTS else r.means[m]
        mine = str(round(got)) if name in COUNTS else f"{got:.4f}"
        assert mine == printed, f"{name}: hcrbench {got!r} vs trec_eval {printed}"
    return len(expected)


def test_qrels_with_comments_scores_as_trec_eval_out_test(conformance_dir, tmp_path):
    qrels = _with_comments(conformance_dir / "qrels.test", tmp_path / "qrels.test.with-comments",
                           ("# comment here", "# and comment here", "# comment in docno"),
                           "CR93E-1860", "CR#93E-1860")
    assert qrels.stat().st_size == 75096  # the size of trec_eval's own qrels.test.with-comments
    assert _check_out_test(conformance_dir, qrels, conformance_dir / "results.test") == 28  # every line but runid and num_q
    assert "CR#93E-1860" in read_qrels(qrels).doc_vocab  # a '#' inside an id is part of it


def test_comment_qrels_and_run_score_as_trec_eval(conformance_dir, tmp_path):
    qrels = _with_comments(conformance_dir / "qrels.test", tmp_path / "qrels.comment.test",
                           ("# This is a test comment", "# And another one", "# Next is a comment in a docno"),
                           "CR93E-1860", "CR93E-18#60")
    assert qrels.stat().st_size == 75117  # the size of trec_eval's own qrels.comment.test
    lines = (conformance_dir / "results.test").read_text().splitlines(keepends=True)
    run = tmp_path / "results.comment.test"  # trec_eval's: it starts with two comments, a third after line 5
    run.write_text("# This is my favorite run\n# It starts with comments for documntation yay.\n"
                   + "".join(lines[:5]) + "# And has another comment here.\n" + "".join(lines[5:]))
    _check_out_test(conformance_dir, qrels, run)


def test_issue_example_comment_is_not_a_query(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 d1 1\n# a b 1\n1 0 d2 0\n")
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 d2 1 2.0 t\n1 Q0 d1 2 1.0 t\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HcrbenchWarning)
        q = read_qrels(qrels)
        res = evaluate(q, read_run(run), "AP")
    assert q.query_ids == ["1"]
    assert res.means["r"]["AP"] == 0.5
    ev = pytrec_eval.RelevanceEvaluator({"1": {"d1": 1, "d2": 0}}, {"map"})
    assert ev.evaluate({"1": {"d2": 2.0, "d1": 1.0}})["1"]["map"] == 0.5  # the same file without the comment


@pytest.mark.parametrize("first", ["# a b\n", "#query-id corpus-id score\n", "# x\n", "#\n", "  # indented\n"])
def test_a_leading_comment_is_never_a_beir_header(tmp_path, first):
    p = tmp_path / "q.qrels"
    p.write_text(first + "q1 0 d1 1\nq1 0 d2 0\n")
    q = read_qrels(p)
    assert q.query_ids == ["q1"] and q.to_dict() == {"q1": {"d1": 1, "d2": 0}}


def test_beir_header_after_a_comment_is_still_a_header(tmp_path):
    p = tmp_path / "test.tsv"
    p.write_text("# exported from BEIR\nquery-id\tcorpus-id\tscore\nq1\td1\t1\n")
    assert read_qrels(p).to_dict() == {"q1": {"d1": 1}}


def test_run_starting_with_comments_is_accepted(tmp_path):
    p = tmp_path / "r.trec"
    p.write_text("# produced by my system\n#another\nq1 Q0 d1 1 2.0 t\n# mid comment\nq1 Q0 d2 2 1.0 t\n")
    run = read_run(p)
    assert run.query_ids == ["q1"] and [d for d, _ in run.ranked("q1")] == ["d1", "d2"]


def test_error_lines_count_comments(tmp_path):
    p = tmp_path / "r.trec"
    p.write_text("# header\nq1 Q0 d1 1 2.0 t\n# again\nq1 Q0 d1 2 1.0 t\n")
    with pytest.raises(InputError) as e:
        read_run(p)
    assert e.value.line == 4
    q = tmp_path / "q.qrels"
    q.write_text("# c\nq1 0 d1 1\n#\nq1 0 d1 0\n")
    with pytest.raises(InputError) as e:
        read_qrels(q)
    assert e.value.line == 4
    only = tmp_path / "only.qrels"
    only.write_text("# nothing but a comment\n")
    with pytest.raises(InputError, match="no judgments"):
        read_qrels(only)


def test_hash_inside_ids_is_kept_as_in_trec_eval_comment_test(tmp_path):
    # trec_eval 10.0's current comment test (out.comment.test) scores MS MARCO v2.1 segment ids such as these
    qrels = tmp_path / "q.qrels"
    qrels.write_text("2024-127266 0 msmarco_v2.1_doc_00_880019750#4_1633802806 1\n"
                     "2024-127266 0 msmarco_v2.1_doc_05_1607548104#0_3077382650 2\n")
    run = tmp_path / "r.trec"
    run.write_text("2024-127266 Q0 msmarco_v2.1_doc_05_1607548104#0_3077382650 1 0.9 comment.test\n"
                   "2024-127266 Q0 msmarco_v2.1_doc_50_2286987788#13_3087841662 2 0.7 comment.test\n"
                   "2024-127266 Q0 msmarco_v2.1_doc_00_880019750#4_1633802806 3 0.5 comment.test\n")
    res = evaluate(read_qrels(qrels), read_run(run), "map,P_5,num_ret")
    r = next(iter(res))
    assert r.means["AP"] == (1 / 1 + 2 / 3) / 2 and r.means["NumRet"] == 3.0
