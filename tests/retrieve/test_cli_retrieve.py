"""``hcrbench retrieve``: writes a TREC run any tool can read; config mistakes are one line and exit 2."""

from __future__ import annotations

import json

import pytest

from hcrbench.cli import main
from hcrbench.commands.retrieve import parse_params, parse_value
from hcrbench.data import Qrels, read_run, write_beir_qrels, write_corpus, write_queries, write_run
from hcrbench.errors import InputError


@pytest.fixture
def beir_dir(tmp_path, corpus, queries):
    d = tmp_path / "tiny"
    write_corpus(corpus, d / "corpus.jsonl")
    write_queries(queries, d / "queries.jsonl")
    write_beir_qrels(Qrels.from_dict({"q1": {"d01": 1, "d05": 1}, "q3": {"d07": 2}}), d / "qrels" / "test.tsv")
    return d


def test_bm25_run_file(beir_dir, tmp_path):
    out = tmp_path / "bm25.trec"
    costs = tmp_path / "costs.json"
    rc = main(["retrieve", "--dataset", str(beir_dir), "--system", "bm25", "--param", "k1=1.2",
               "--param", "stemmer=none", "--k", "3", "--out", str(out), "--costs-json", str(costs)])
    assert rc == 0
    run = read_run(out)
    assert run.query_ids == ["q1", "q3"]  # the split's judged queries
    assert all(len(run[q]) <= 3 for q in run.query_ids)
    assert run.ranked("q3")[0][0] == "d07"
    doc = json.loads(costs.read_text())
    assert doc["params"]["k1"] == 1.2 and doc["params"]["stemmer"] == "none"
    assert doc["search_costs"]["counters"]["queries"] == 2
    line = out.read_text().splitlines()[0].split()
    assert len(line) == 6 and line[1] == "Q0" and line[3] == "1" and line[5] == "bm25"


def test_runfile_through_cli_is_byte_identical(beir_dir, tmp_path):
    first = tmp_path / "a.trec"
    assert main(["retrieve", "--dataset", str(beir_dir), "--system", "bm25", "--out", str(first)]) == 0
    second = tmp_path / "b.trec"
    assert main(["retrieve", "--dataset", str(beir_dir), "--system", "runfile", "--param", f"path={first}",
                 "--name", "bm25", "--out", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["--system", "bm25", "--param", "k1=abc"], "k1 must be a finite number"),
     (["--system", "bm25", "--param", "colour=red"], "unknown parameter 'colour' for system 'bm25'"),
     (["--system", "bm25", "--param", "k1"], "expected KEY=VALUE"),
     (["--system", "bm25", "--param", "k1=1", "--param", "k1=2"], "given twice"),
     (["--system", "nosuch"], "unknown system 'nosuch'"),
     (["--system", "bm25", "--k", "0"], "--k must be >= 1"),
     (["--system", "bm25", "--split", "dev"], "missing qrels/dev.tsv (available splits: test)"),
     (["--system", "dense", "--param", "index=lsh"], "unknown index 'lsh'")],
)
def test_config_errors_exit_2_with_one_line(beir_dir, tmp_path, capsys, args, needle):
    with pytest.raises(SystemExit) as e:
        main(["retrieve", "--dataset", str(beir_dir), "--out", str(tmp_path / "x.trec"), *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "x.trec").exists()


def test_missing_dataset_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["retrieve", "--dataset", str(tmp_path / "none"), "--system", "bm25", "--out", str(tmp_path / "x")])
    assert e.value.code == 2
    assert "BEIR dataset folder not found" in capsys.readouterr().err


def test_param_values():
    assert parse_value("3") == 3 and parse_value("0.5") == 0.5 and parse_value("True") is True
    assert parse_value("none") is None and parse_value("english") == "english"
    assert parse_value('{"k1": 1.2}') == {"k1": 1.2}
    assert parse_params(["a=1", "b=x=y"]) == {"a": 1, "b": "x=y"}
    with pytest.raises(InputError):
        parse_value("{bad json")


def test_write_run_roundtrip_of_fused_scores(tmp_path):
    from hcrbench.data import Run
    from hcrbench.retrieve import rrf

    fused = rrf([Run.from_dict({"q": {"a": 2.0, "b": 1.0}}), Run.from_dict({"q": {"b": 3.0}})])
    write_run(fused, tmp_path / "f.trec")
    assert read_run(tmp_path / "f.trec").to_dict() == fused.to_dict()


def test_runfile_sharing_no_query_is_an_error_not_an_empty_file(beir_dir, tmp_path, capsys):
    ext = tmp_path / "ext.trec"
    ext.write_text("x9 Q0 d1 1 2.0 ext\nx10 Q0 d2 1 1.0 ext\n")
    out = tmp_path / "out.trec"
    with pytest.raises(SystemExit) as ei:
        main(["retrieve", "--dataset", str(beir_dir), "--system", "runfile", "--param", f"path={ext}",
              "--out", str(out)])
    assert ei.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"{ext}: qid: the run shares no query" in err and "'x9', 'x10'" in err
    assert not out.exists()
