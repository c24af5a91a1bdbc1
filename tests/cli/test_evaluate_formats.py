"""`hcrbench evaluate` reads and writes what the ecosystem does: ranx JSON and parquet runs/qrels in (detected by
content), per-query CSV / parquet and trec_eval's text out (`--out`, `-q`), trec_eval's `-c`. Console script."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest

from hcrbench.data import read_qrels, read_run

REPO = Path(__file__).resolve().parents[2]
EX = REPO / "examples"
CONF = REPO.parent / "shared" / "conformance" / "trec_eval"


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True, check=False, cwd=cwd)


def _means(path: Path) -> dict:
    return json.loads(path.read_text())["runs"]


def test_ranx_json_and_parquet_runs_and_qrels_score_as_trec(tmp_path):
    run, qrels = read_run(EX / "bm25.trec"), read_qrels(EX / "cranfield.qrels")
    (tmp_path / "run.json").write_text(json.dumps(run.to_dict()))  # ranx.Run.save(kind="json") writes this
    (tmp_path / "qrels.json").write_text(json.dumps(qrels.to_dict()))
    (tmp_path / "named.trec").write_text(json.dumps(run.to_dict()))  # detected by content, not by name
    frame = run.to_frame()
    frame.to_parquet(tmp_path / "ir.parquet")
    frame.rename(columns={"query_id": "q_id"}).to_parquet(tmp_path / "ranx.parquet")
    qrels.to_frame().rename(columns={"query_id": "q_id", "relevance": "score"}).to_parquet(tmp_path / "q.parquet")
    ref = tmp_path / "ref.json"
    assert _run("evaluate", str(EX / "cranfield.qrels"), str(EX / "bm25.trec"), "-m", "nDCG@10,AP,P@5", "--json",
                str(ref)).returncode == 0
    want = _means(ref)["bm25"]["per_query"]
    for q, r in (("qrels.json", "run.json"), ("q.parquet", "ir.parquet"), ("cranfield", "ranx.parquet"),
                 ("qrels.json", "named.trec")):
        qpath = EX / "cranfield.qrels" if q == "cranfield" else tmp_path / q
        out = tmp_path / f"{q}-{r}.json"
        p = _run("evaluate", str(qpath), str(tmp_path / r), "-m", "nDCG@10,AP,P@5", "--json", str(out))
        assert p.returncode == 0, p.stderr
        (got,) = _means(out).values()
        assert got["per_query"] == want, (q, r)


def test_a_run_in_no_known_format_gets_a_one_line_hint(tmp_path):
    bad = tmp_path / "three.tsv"
    bad.write_text("1\t184\t9.7\n1\t13\t8.7\n")
    p = _run("evaluate", str(EX / "cranfield.qrels"), str(bad))
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "expected 6 columns" in p.stderr and "ranx JSON" in p.stderr and "parquet" in p.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"1": {"184": 9.7}')
    p = _run("evaluate", str(EX / "cranfield.qrels"), str(broken))
    assert p.returncode == 2 and "not valid JSON" in p.stderr and str(broken) in p.stderr


def test_per_query_csv_and_parquet_out(tmp_path):
    pd = pytest.importorskip("pandas")
    for name in ("pq.csv", "pq.parquet"):
        out = tmp_path / name
        p = _run("evaluate", str(EX / "cranfield.qrels"), str(EX / "bm25.trec"), str(EX / "bm25_stemmed.trec"),
                 "-m", "nDCG@10", "-m", "AP", "--out", str(out), "--json", str(tmp_path / "e.json"))
        assert p.returncode == 0, p.stderr
        frame = pd.read_csv(out, dtype={"query_id": str}) if name.endswith(".csv") else pd.read_parquet(out)
        assert list(frame.columns) == ["run", "query_id", "nDCG@10", "AP"] and len(frame) == 50
        doc = _means(tmp_path / "e.json")
        for row in frame.itertuples(index=False):
            assert doc[row.run]["per_query"]["AP"][str(row.query_id)] == pytest.approx(row.AP, abs=1e-12)
    with open(tmp_path / "pq.csv", newline="") as fh:
        assert next(csv.reader(fh)) == ["run", "query_id", "nDCG@10", "AP"]


def test_trec_eval_text_with_q_and_c_reproduces_trec_evals_own_output(tmp_path):
    """`-q -c --out x.txt` prints trec_eval's lines: each one (runid too: the run tag) is in trec_eval 10.0's
    `out.test.aqc` (`trec_eval -q -c qrels.test results.trunc`), same padding, same 4 decimals, same sums."""
    out = tmp_path / "te.txt"
    p = _run("evaluate", str(CONF / "qrels.test"), str(CONF / "results.trunc"), "-q", "-c", "-m", "map",
             "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "num_rel_ret", "-m", "num_ret", "-m", "recip_rank",
             "-m", "Rprec", "-m", "bpref", "--out", str(out))
    assert p.returncode == 0, p.stderr
    theirs = set(CONF.joinpath("out.test.aqc").read_text().splitlines())
    ours = out.read_text().splitlines()
    assert len(ours) == 3 * 9 + 2 + 9  # 3 queries x 9 measures, runid and num_q, 9 'all' lines
    assert [ln for ln in ours if ln not in theirs] == []
    stdout = _run("evaluate", str(CONF / "qrels.test"), str(CONF / "results.trunc"), "-q", "-c", "-m", "map",
                  "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "num_rel_ret", "-m", "num_ret", "-m", "recip_rank",
                  "-m", "Rprec", "-m", "bpref", "--format", "trec")
    assert stdout.returncode == 0 and stdout.stdout == out.read_text()  # the same text on stdout, nothing else
    plain = tmp_path / "all.txt"
    assert _run("evaluate", str(CONF / "qrels.test"), str(CONF / "results.trunc"), "-m", "map", "--out",
                str(plain)).returncode == 0
    assert [ln.split("\t")[1] for ln in plain.read_text().splitlines()] == ["all"] * 3  # no -q: the summary
    e = _run("evaluate", str(CONF / "qrels.test"), str(CONF / "results.trunc"), "-c", "--missing", "skip")
    assert e.returncode == 2 and "-c" in e.stderr and e.stderr.count("\n") == 1


#: Measures in trec_eval's own print order, as `-m` names them, and as trec_eval prints them.
TREC_ORDER = [("num_ret", ["num_ret"]), ("num_rel_ret", ["num_rel_ret"]), ("map", ["map"]), ("Rprec", ["Rprec"]),
              ("bpref", ["bpref"]), ("recip_rank", ["recip_rank"]), ("P.5,10", ["P_5", "P_10"]),
              ("ndcg_cut.10", ["ndcg_cut_10"])]


@pytest.mark.parametrize("case", [("out.test.aqc", "results.trunc", ["-c"]), ("out.test.aq", "results.test", [])])
def test_q_format_trec_is_byte_identical_to_trec_evals_output(case):
    """`-q --format trec` with trec_eval's measures in its order prints exactly trec_eval 10.0's lines for them, in
    its order (queries, then runid = the run tag, num_q and the `all` lines), byte for byte."""
    expected_file, run, extra = case
    printed = {label for _, labels in TREC_ORDER for label in labels} | {"runid", "num_q"}
    expected = [ln for ln in CONF.joinpath(expected_file).read_text().splitlines()
                if ln.split("\t")[0].strip() in printed]
    args = [a for m, _ in TREC_ORDER for a in ("-m", m)]
    p = _run("evaluate", str(CONF / "qrels.test"), str(CONF / run), "-q", *extra, *args, "--format", "trec",
             *(["--missing", "skip"] if not extra else []))
    assert p.returncode == 0, p.stderr
    assert p.stdout == "\n".join(expected) + "\n"


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_q_format_trec_sorts_query_ids_as_trec_eval_does(tmp_path, stream):
    """trec_eval sorts query ids as byte strings (strcmp): 10 before 100 before 2 before 9 before Z before a before
    é, whatever order the qrels and the run give them in."""
    qids = ["9", "10", "a", "100", "é", "2", "Z"]
    (tmp_path / "q.txt").write_text("".join(f"{q} 0 d{i} 1\n" for i, q in enumerate(qids)), encoding="utf-8")
    (tmp_path / "r.trec").write_text("".join(f"{q} Q0 d{i} 1 {i}.5 mine\n" for i, q in enumerate(reversed(qids))),
                                     encoding="utf-8")
    p = _run("evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.trec"), "-q", "-m", "map", "-m", "num_ret",
             "--format", "trec", *stream)
    assert p.returncode == 0, p.stderr
    rows = [ln.split("\t") for ln in p.stdout.splitlines()]
    per_query = [q for m, q, _ in rows if q != "all"]
    assert per_query == [q for q in sorted(qids, key=lambda q: q.encode()) for _ in range(2)]
    assert ["runid                 ", "all", "mine"] in rows
