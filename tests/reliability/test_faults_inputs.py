"""Fault injection, input classes (issue 27): ids a TREC file cannot hold, bad JSONL / qrels / run fields, numbers
read unlike trec_eval, headerless BEIR TSV, cache-key collisions, long fields, Rich markup in names. Every case runs
the real console script and checks the exit code, the one error line (file, line, field) and that nothing was
written; the round-trip and collision cases also check the numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faultkit import hcrbench, in_process, make_dataset, one_error_line

from hcrbench.data import Run, read_qrels, read_run, write_run
from hcrbench.data.cache import corpus_fingerprint
from hcrbench.errors import InputError

# ----------------------------------------------------------------------------------------------- ids


def _retrieve(tmp_path: Path, capsys, subprocess_: bool) -> tuple[int, str]:
    args = ("retrieve", "--dataset", str(tmp_path / "data"), "--system", "bm25", "--k", "5", "--out",
            str(tmp_path / "r.trec"))
    if subprocess_:
        p = hcrbench(*args, cwd=tmp_path)
        return p.returncode, one_error_line(p) if p.returncode else p.stderr
    code, _, err = in_process(capsys, *args)
    return code, err.strip()


def _corpus_line(tmp_path: Path, line: str) -> None:
    data = make_dataset(tmp_path / "data")
    lines = (data / "corpus.jsonl").read_text().splitlines()
    lines[2] = line
    (data / "corpus.jsonl").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(("doc_id", "what", "subprocess_"), [
    ("d 1", "whitespace", True), ("d\t1", "whitespace", False), ("d\x011", "a control character", False),
    ("", "non-empty", False)], ids=["space", "tab", "control", "empty"])
def test_a_corpus_id_a_trec_file_cannot_hold_is_refused_before_any_work(tmp_path: Path, capsys, doc_id: str,
                                                                        what: str, subprocess_: bool):
    _corpus_line(tmp_path, json.dumps({"_id": doc_id, "text": "gamma doc"}))
    code, err = _retrieve(tmp_path, capsys, subprocess_)
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "corpus.jsonl:3: _id:" in err and what in err, err
    assert not (tmp_path / "r.trec").exists()


def test_written_runs_read_back_identical_and_a_spaced_id_is_refused_on_write(tmp_path: Path):
    ids = ["d1", "CR#93E-1860", "café", "a\u00a0b", "x/y:z", "#7"]  # all round-trip (a doc id may start with #)
    run = Run.from_dict({"q1": {d: float(len(ids) - i) for i, d in enumerate(ids)}, "q-2": {"d1": 0.5}}, name="s")
    write_run(run, tmp_path / "ok.trec")
    back = read_run(tmp_path / "ok.trec")
    assert back.to_dict() == run.to_dict()
    for bad in ("d 1", "d\n1", ""):
        with pytest.raises(InputError, match="doc id"):
            write_run(Run.from_dict({"q1": {"d1": 1.0, bad: 0.5}}, name="s"), tmp_path / "bad.trec")
    with pytest.raises(InputError, match=r"query id '#q'.*comment"):
        write_run(Run.from_dict({"#q": {"d1": 1.0}}), tmp_path / "bad.trec")
    assert not (tmp_path / "bad.trec").exists()


def test_a_control_character_in_a_qrels_id_names_the_line(tmp_path: Path, capsys):
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq1 0 d\x072 1\n")
    (tmp_path / "r.trec").write_text("q1 Q0 d1 1 1.0 r\n")
    code, _, err = in_process(capsys, "evaluate", str(tmp_path / "q.qrels"), str(tmp_path / "r.trec"))
    assert code == 2 and "q.qrels:2: docid: doc id 'd\\x072'" in err, err


# ----------------------------------------------------------------------------------------------- bad input

_BIG = "9" * 5000


@pytest.mark.parametrize(("line", "where", "subprocess_"), [
    ('{"_id": "d3", "text": "x", "metadata": "oops"}', "corpus.jsonl:3: metadata: 'metadata' must be a JSON object",
     True),
    ('{"_id": "d3", "text": "x", "metadata": [1, 2]}', "corpus.jsonl:3: metadata:", False),
    ('{"_id": "d3", "text": "x", "metadata": 7}', "corpus.jsonl:3: metadata:", False),
    ('{"_id": ' + _BIG + ', "text": "x"}', "corpus.jsonl:3: invalid JSON (a number of more than 4,300 digits)",
     False),
    ('{"_id": "d3", "text": "lone \\ud800 surrogate"}', "corpus.jsonl:3: text: holds a lone surrogate", False),
], ids=["metadata-str", "metadata-list", "metadata-int", "4301-digit-id", "lone-surrogate"])
def test_bad_corpus_lines_are_one_line_exit_2(tmp_path: Path, capsys, line: str, where: str, subprocess_: bool):
    _corpus_line(tmp_path, line)
    code, err = _retrieve(tmp_path, capsys, subprocess_)
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert where in err and len(err) < 400, err
    assert not (tmp_path / "r.trec").exists()


def test_a_corpus_of_empty_texts_is_refused(tmp_path: Path, capsys):
    data = make_dataset(tmp_path / "data")
    (data / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{i}", "text": " "}) + "\n" for i in range(3)))
    code, err = _retrieve(tmp_path, capsys, False)
    assert code == 2 and "corpus.jsonl: text: every document's text and title is empty" in err


@pytest.mark.parametrize(("qrels", "run", "where"), [
    ("q1 0 d1 " + _BIG + "\n", "q1 Q0 d1 1 1.0 r\n", "q.qrels:1: rel: relevance 999"),
    # headerless BEIR TSV whose first grade is a float: an error naming line 1, not a header skipped silently
    ("q1\td1\t2.0\nq1\td2\t1\n", "q1 Q0 d1 1 1.0 r\n", "q.qrels:1: rel: relevance must be an integer, got '2.0'"),
    # trec_eval's atof reads 1_000 as 1, Python's float as 1000: refused
    ("q1 0 d1 1\n", "q1 Q0 d1 1 1_000 r\n", "r.trec:1: score: score '1_000' holds '_': trec_eval reads it as '1'"),
    # a 50 kB field is cut in the message
    ("q1 0 d1 1\n", "q1 Q0 d1 1 " + "x" * 50_000 + " r\n", "r.trec:1: score: score is not a number: 'xxx"),
], ids=["4301-digit-grade", "headerless-float-grade", "underscore-score", "50kB-field"])
def test_bad_qrels_and_run_fields(tmp_path: Path, capsys, qrels: str, run: str, where: str):
    (tmp_path / "q.qrels").write_text(qrels)
    (tmp_path / "r.trec").write_text(run)
    if "_000" in run:  # this class's console-script run
        p = hcrbench("evaluate", "q.qrels", "r.trec", cwd=tmp_path)
        code, err = p.returncode, one_error_line(p)
    else:
        code, _, err = in_process(capsys, "evaluate", str(tmp_path / "q.qrels"), str(tmp_path / "r.trec"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert where in err and len(err) < 400, err


def test_headerless_beir_qrels_keep_their_first_judgement(tmp_path: Path):
    (tmp_path / "h.tsv").write_text("q1\td1\t2\nq1\td2\t1\n")
    (tmp_path / "b.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t1\n")
    assert read_qrels(tmp_path / "h.tsv").to_dict() == read_qrels(tmp_path / "b.tsv").to_dict() == \
        {"q1": {"d1": 2, "d2": 1}}


# ----------------------------------------------------------------------------------------------- cache keys


def test_a_crafted_corpus_cannot_reuse_an_honest_corpus_index(tmp_path: Path, capsys, monkeypatch):
    honest_ids, honest_texts = ["d1", "d2"], ["apple pie", "banana split"]
    crafted_ids, crafted_texts = ["d1"], ["apple pie\x01d2\x00banana split"]  # the old separators, inside a text
    assert corpus_fingerprint(honest_ids, honest_texts) != corpus_fingerprint(crafted_ids, crafted_texts)
    for name, ids, texts in (("crafted", crafted_ids, crafted_texts), ("honest", honest_ids, honest_texts)):
        (tmp_path / name / "qrels").mkdir(parents=True)
        (tmp_path / name / "corpus.jsonl").write_text(
            "".join(json.dumps({"_id": i, "text": t}) + "\n" for i, t in zip(ids, texts)))
        (tmp_path / name / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "banana"}) + "\n")
        (tmp_path / name / "qrels" / "test.tsv").write_text(f"q1\t{ids[-1]}\t1\n")
    env = {"HCRBENCH_CACHE": str(tmp_path / "cache")}
    monkeypatch.setenv("HCRBENCH_CACHE", env["HCRBENCH_CACHE"])
    code, _, err = in_process(capsys, "retrieve", "--dataset", str(tmp_path / "crafted"), "--system", "bm25",
                              "--k", "10", "--out", str(tmp_path / "crafted.trec"))  # fills the shared cache first
    assert code == 0, err
    p = hcrbench("retrieve", "--dataset", "honest", "--system", "bm25", "--k", "10", "--out", "honest.trec",
                 cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    code, _, err = in_process(capsys, "evaluate", str(tmp_path / "honest/qrels/test.tsv"),
                              str(tmp_path / "honest.trec"), "--metrics", "RR", "--json", str(tmp_path / "e.json"))
    assert code == 0, err
    assert json.loads((tmp_path / "e.json").read_text())["runs"]["honest"]["means"]["RR"] == 1.0
    assert len(list((tmp_path / "cache" / "indexes" / "bm25").iterdir())) == 2  # two entries, not one


# ----------------------------------------------------------------------------------------------- markup


def test_rich_markup_in_names_is_printed_as_text(root: Path, capsys):
    text = (root / "a.toml").read_text().replace('name = "exp-a"', 'name = "oops[/bold] [/x]"')
    (root / "m.toml").write_text(text)
    code, out, err = in_process(capsys, "run", str(root / "m.toml"))
    assert code == 0 and "Traceback" not in err, err
    assert "oops[/bold] [/x]" in err
    (root / "p[bold]x.trec").write_bytes((root / "poor.trec").read_bytes())  # a run named by its file
    code, out, err = in_process(capsys, "evaluate", str(root / "data/qrels/test.tsv"), str(root / "good.trec"),
                                str(root / "p[bold]x.trec"))
    assert code == 0 and "p[bold]x" in out, err
