"""SMART-format collections: Cranfield and CISI against the real files in ../shared, conversion, bad input."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.cli import main
from hcrbench.data import load_beir, read_qrels
from hcrbench.data.smart import (
    CRANQREL_GRADES,
    load_cisi,
    load_cranfield,
    read_cisi_rel,
    read_cranfield_trec_qrels,
    read_cranqrel,
    read_smart_documents,
    read_smart_queries,
)
from hcrbench.errors import HcrbenchWarning, InputError

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CRAN = SHARED / "datasets" / "cranfield"
CISI = SHARED / "datasets" / "cisi"


def _load(loader, folder):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HcrbenchWarning)
        ds = loader(folder)
    return ds, [str(w.message) for w in caught if issubclass(w.category, HcrbenchWarning)]


@pytest.fixture(scope="module")
def cran():
    if not CRAN.is_dir():
        pytest.fail(f"shared data not found at {CRAN}")
    return _load(load_cranfield, CRAN)


@pytest.fixture(scope="module")
def cisi():
    if not CISI.is_dir():
        pytest.fail(f"shared data not found at {CISI}")
    return _load(load_cisi, CISI)


def _data_lines(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text().splitlines() if ln.strip()]


# ------------------------------------------------------------------------------------------------ Cranfield


def test_cranfield_counts_and_query_numbering(cran):
    ds, _ = cran
    assert len(ds.corpus) == 1400
    assert ds.corpus.doc_ids == [str(i) for i in range(1, 1401)]
    assert len(ds.queries) == 225
    assert ds.queries.query_ids == [str(i) for i in range(1, 226)]
    assert sorted(ds.qrels.query_ids, key=int) == [str(i) for i in range(1, 226)]
    assert int(ds.qrels.grades.size) == len(_data_lines(CRAN / "cranqrel")) == 1837


def test_cranfield_renumbering_is_warned_and_recorded(cran):
    ds, msgs = cran
    renum = [m for m in msgs if "renumbered" in m]
    assert len(renum) == 1 and "cran.qry" in renum[0] and "original_id" in renum[0]
    raw_ids = [ln.split()[1] for ln in (CRAN / "cran.qry").read_text().splitlines() if ln.startswith(".I")]
    assert [ds.queries.meta(str(i))["original_id"] for i in range(1, 226)] == raw_ids
    assert raw_ids[2] == "004" and ds.queries.meta("3")["original_id"] == "004"  # the trap: .I 004 is query 3


def test_cranfield_query_1_is_the_first_query_in_the_file(cran):
    ds, _ = cran
    lines = (CRAN / "cran.qry").read_text().splitlines()
    start = lines.index(".W") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(".I"))
    assert ds.queries["1"] == " ".join(" ".join(lines[start:end]).split())
    assert ds.queries["1"].startswith("what similarity laws must be obeyed")


def test_cranfield_documents_fields(cran):
    ds, msgs = cran
    doc = ds.corpus["1"]
    assert doc.title == "experimental investigation of the aerodynamics of a wing in a slipstream ."
    assert doc.text.startswith("experimental investigation of the aerodynamics")
    assert doc.metadata == {"authors": ["brenckman,m."], "source": "j. ae. scs. 25, 1958, 324."}
    # damaged records are kept and named once
    damaged = [m for m in msgs if "repeat a field" in m]
    assert len(damaged) == 1 and all(f".I {i} " in damaged[0] for i in (240, 576, 578))
    assert ds.corpus["471"].text == ""  # an empty record in the file stays an (empty) document


def test_cranfield_grades_are_inverted_and_minus_one_is_not_relevant_by_default(cran):
    ds, _ = cran
    raw = _data_lines(CRAN / "cranqrel")
    for q, d, g in raw:
        assert ds.qrels[q][d] == (0 if g == "-1" else CRANQREL_GRADES[int(g)])
    assert ds.qrels["1"]["184"] == 3  # cranqrel "1 184 2": high relevance
    n_none = sum(1 for _, _, g in raw if g == "-1")
    assert n_none == 225 and int((ds.qrels.grades == 0).sum()) == n_none
    assert int(ds.qrels.grades.max()) == 4


def test_cranfield_both_judgment_files_agree():
    """QRelsCorrectedforTRECeval writes cranqrel's -1 as 5; read faithfully, both files give the same qrels."""
    corrected_raw = _data_lines(CRAN / "QRelsCorrectedforTRECeval")
    assert sum(1 for r in corrected_raw if r[3] == "5") == 225
    assert read_cranfield_trec_qrels(CRAN / "QRelsCorrectedforTRECeval").to_dict() == \
        read_cranqrel(CRAN / "cranqrel").to_dict()


def test_cranfield_minus_one_reading_is_a_choice():
    raw = read_qrels(CRAN / "QRelsCorrectedforTRECeval")  # the file as trec_eval would read it
    as_file, _ = _load(lambda f: load_cranfield(f, minus_one=5), CRAN)
    assert as_file.qrels.to_dict() == raw.to_dict()
    dropped = read_cranqrel(CRAN / "cranqrel", minus_one=None)
    assert int(dropped.grades.size) == 1837 - 225 and int(dropped.grades.min()) == 1
    with pytest.raises(InputError, match="minus_one: must be an integer grade"):
        read_cranqrel(CRAN / "cranqrel", minus_one="top")


def test_convert_cranfield_minus_one_flag(tmp_path, capsys):
    out = tmp_path / "beir"
    args = ["convert", "smart", "--collection", "cranfield", "--in", str(CRAN), "--out", str(out)]
    assert main([*args, "--cranfield-minus-one", "drop"]) == 0
    assert int(load_beir(out).qrels.grades.size) == 1837 - 225
    capsys.readouterr()
    err = _cli_error([*args, "--overwrite", "--cranfield-minus-one", "top"], capsys)
    assert "--cranfield-minus-one: expected an integer or 'drop'" in err
    err = _cli_error(["convert", "smart", "--collection", "cisi", "--in", str(CISI), "--out", str(tmp_path / "c"),
                      "--cranfield-minus-one", "4"], capsys)
    assert "only applies to --collection cranfield" in err


def test_cranfield_falls_back_to_cranqrel(tmp_path):
    for name in ("cran.all.1400", "cran.qry", "cranqrel"):
        (tmp_path / name).symlink_to(CRAN / name)
    ds, _ = _load(load_cranfield, tmp_path)
    assert ds.qrels.to_dict() == read_cranqrel(CRAN / "cranqrel").to_dict()


# ------------------------------------------------------------------------------------------------ CISI


def test_cisi_counts_and_unjudged_queries(cisi):
    ds, msgs = cisi
    assert len(ds.corpus) == 1460
    assert len(ds.queries) == 112
    raw = _data_lines(CISI / "CISI.REL")
    judged = {r[0] for r in raw}
    assert len(ds.qrels) == len(judged) == 76
    assert int(ds.qrels.grades.size) == len(raw) == 3114
    assert set(ds.qrels.grades.tolist()) == {1}
    unjudged = [q for q in ds.queries.query_ids if q not in judged]
    assert len(unjudged) == 36 and not set(unjudged) & set(ds.qrels.query_ids)
    warned = [m for m in msgs if "have judgments" in m]
    assert len(warned) == 1 and "76 of the 112" in warned[0] and "36 have none" in warned[0]


def test_cisi_fields(cisi):
    ds, _ = cisi
    doc = ds.corpus["1"]
    assert doc.title == "18 Editions of the Dewey Decimal Classifications"
    assert doc.metadata["authors"] == ["Comaromi, J.P."]
    assert doc.metadata["cross_refs"][0] == [1, 5, 1]
    assert sum(1 for m in ds.corpus.metadata if "keywords" in m) == 1  # the one .K record
    q58 = ds.queries.meta("58")
    assert q58["title"] == "Directions in Library Networking" and q58["authors"] == ["Avram, H.D.", "McCallum, S.H."]
    assert ds.queries["58"].startswith("Bibliographic control before and after MARC")


def test_cisi_unjudged_queries_show_as_run_only_in_the_ledger(cisi):
    from hcrbench.data import Run
    from hcrbench.metrics import evaluate

    ds, _ = cisi
    run = Run.from_dict({q: {"1": 1.0, "2": 0.5} for q in ds.queries.query_ids}, name="all")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HcrbenchWarning)
        res = evaluate(ds.qrels, run, "nDCG@10")
    ledger = res.ledger["all"]
    assert ledger.n_queries_averaged == 76
    assert sorted(ledger.ignored, key=int) == [q for q in ds.queries.query_ids if q not in set(ds.qrels.query_ids)]


# ------------------------------------------------------------------------------------------------ convert


@pytest.mark.parametrize(("collection", "loader", "folder"), [("cranfield", load_cranfield, CRAN),
                                                              ("cisi", load_cisi, CISI)])
def test_convert_round_trip(tmp_path, capsys, collection, loader, folder):
    out = tmp_path / "beir"
    assert main(["convert", "smart", "--collection", collection, "--in", str(folder), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err
    ds, _ = _load(loader, folder)
    back = load_beir(out, "test", restrict_queries=False)
    assert back.corpus.doc_ids == ds.corpus.doc_ids
    assert back.corpus.texts == ds.corpus.texts and back.corpus.titles == ds.corpus.titles
    assert back.corpus.metadata == ds.corpus.metadata
    assert back.queries.query_ids == ds.queries.query_ids and back.queries.texts == ds.queries.texts
    assert back.queries.metadata == ds.queries.metadata
    assert back.qrels.to_dict() == ds.qrels.to_dict()
    judged = load_beir(out, "test")  # default: only judged queries, as BEIR's loader
    assert len(judged.queries) == len(ds.qrels)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["beir"]  # no temp folder left behind


def test_convert_refuses_to_clobber_and_overwrites_on_request(tmp_path, capsys):
    out = tmp_path / "beir"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    args = ["convert", "smart", "--collection", "cisi", "--in", str(CISI), "--out", str(out)]
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--overwrite" in err and (out / "keep.txt").exists()
    assert main([*args, "--overwrite"]) == 0
    assert not (out / "keep.txt").exists() and (out / "qrels" / "test.tsv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["beir"]


def _cli_error(args, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_convert_bad_input_is_one_line_exit_2(tmp_path, capsys):
    out = tmp_path / "out"
    err = _cli_error(["convert", "smart", "--collection", "trec", "--in", str(CISI), "--out", str(out)], capsys)
    assert "--collection" in err
    err = _cli_error(["convert", "smart", "--collection", "cisi", "--in", str(CRAN), "--out", str(out)], capsys)
    assert "missing CISI.ALL" in err
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "CISI.ALL").write_text(".I 1\n.T\nA title\n.W\nsome text\n.Q\nwhat\n")
    (bad / "CISI.QRY").symlink_to(CISI / "CISI.QRY")
    (bad / "CISI.REL").symlink_to(CISI / "CISI.REL")
    err = _cli_error(["convert", "smart", "--collection", "cisi", "--in", str(bad), "--out", str(out)], capsys)
    assert f"{bad / 'CISI.ALL'}:6: .Q: unknown field marker" in err
    assert not out.exists()


# ------------------------------------------------------------------------------------------------ malformed


def _doc_error(tmp_path, content: bytes | str) -> str:
    p = tmp_path / "docs.all"
    p.write_bytes(content.encode() if isinstance(content, str) else content)
    with pytest.raises(InputError) as e:
        read_smart_documents(p)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(p))
    return msg[len(str(p)):]


@pytest.mark.parametrize(("content", "expected"), [
    (".I 1\n.T\ntitle\n.Z\nwhat\n", ":4: .Z: unknown field marker .Z"),
    ("stray text\n.I 1\n.W\ntext\n", ":1: record: text before the first .I"),
    ("\n\n.T\ntitle\n.I 1\n", ":3: .T: field .T before the first .I"),
    (".I 1\n.W\ntext\n.I\n.W\nmore\n", ":4: .I: missing record id"),
    (".I 1\n.W\ntext\n.I 2 3\n", ":4: .I: record id must be one token"),
    (".I 1\n.W\na\n.I 2\n.W\nb\n.I 1\n", ":7: .I: duplicate record id '1' (first on line 1)"),
    (".I 1\norphan line\n.W\ntext\n", ":2: record: text after .I 1 but before any field"),
    (".I 1\n.X\n1 5 1\n2 five 1\n", ":4: .X: cross-reference line must hold integers"),
    (b".I 1\n.W\nbad \xff byte\n", ":3: invalid UTF-8"),
    ("", ": file is empty"),
])
def test_malformed_documents(tmp_path, content, expected):
    assert _doc_error(tmp_path, content).startswith(expected)


def test_malformed_queries_and_judgments(tmp_path):
    q = tmp_path / "q.qry"
    q.write_text(".I 1\n.W\nfine\n.I 2\n.X\n1 2 3\n")  # .X is not a query field
    with pytest.raises(InputError, match=r"q\.qry:5: \.X: unknown field marker"):
        read_smart_queries(q, renumber=False)
    cases = [
        (read_cranqrel, "1 184 2\n1 29 7\n", r":2: grade: grade must be one of"),
        (read_cranqrel, "1 184 2\n1 29\n", r":2: columns: expected 3 columns"),
        (read_cranqrel, "1 184 2\n1 184 3\n", r":2: doc: query 1 doc 184 judged twice \(first on line 1\)"),
        (read_cranfield_trec_qrels, "1 0 184 3\nx 0 29 3\n", r":2: qid: expected an integer, got 'x'"),
        (read_cranfield_trec_qrels, "1 0 184 6\n", r":1: rel: grade must be one of"),
        (read_cisi_rel, "1 28 0 0.0\n1 35 0 zero\n", r":2: column 4: expected a number"),
    ]
    for reader, text, pattern in cases:
        p = tmp_path / "judgments"
        p.write_text(text)
        with pytest.raises(InputError, match=r"judgments" + pattern):
            reader(p)


def test_judgments_must_match_queries_and_corpus(tmp_path):
    for name in ("CISI.ALL", "CISI.QRY"):
        (tmp_path / name).symlink_to(CISI / name)
    (tmp_path / "CISI.REL").write_text("1 28 0 0.0\n1 9999 0 0.0\n")
    with pytest.raises(InputError, match=r"CISI\.REL: doc: query 1 judges doc 9999, which is not in the corpus"):
        _load(load_cisi, tmp_path)
    (tmp_path / "CISI.REL").write_text("113 28 0 0.0\n")
    with pytest.raises(InputError, match=r"CISI\.REL: query: judges query 113"):
        _load(load_cisi, tmp_path)


def test_renumber_keeps_ids_that_already_match_silently(tmp_path):
    q = tmp_path / "q.qry"
    q.write_text(".I 1\n.W\nfirst\n.I 2\n.W\nsecond\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HcrbenchWarning)
        queries, mapping = read_smart_queries(q, renumber=True)
    assert mapping == {"1": "1", "2": "2"} and queries.meta("2")["original_id"] == "2"
    q.write_text(".I 5\n.W\nfirst\n.I 9\n.W\nsecond\n")
    with pytest.warns(HcrbenchWarning, match="2 of them had a different .I"):
        queries, mapping = read_smart_queries(q, renumber=True)
    assert mapping == {"5": "1", "9": "2"} and queries["2"] == "second"
    queries, mapping = read_smart_queries(q, renumber=False)
    assert queries.query_ids == ["5", "9"] and mapping == {"5": "5", "9": "9"}


_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789,.-()", min_size=1, max_size=8)
_words = st.lists(_word, min_size=0, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_words, _words, st.lists(_word, max_size=3)), min_size=1, max_size=6),
       st.sampled_from(["\n", "\r\n"]))
def test_documents_round_trip_property(tmp_path_factory, docs, eol):
    """Whatever the wrapping and line endings, the reader gives back each record's fields."""
    lines: list[str] = []
    for i, (title, text, authors) in enumerate(docs, start=1):
        lines += [f".I {i}", ".T", *title.split(" ", 2), ".W"]
        words = text.split()
        lines += [" ".join(words[j:j + 3]) for j in range(0, len(words), 3)]
        for a in authors:
            lines += [".A", a]
    p = tmp_path_factory.mktemp("prop") / "docs.all"
    p.write_bytes(eol.join(lines).encode() + eol.encode())
    corpus = read_smart_documents(p)
    assert corpus.doc_ids == [str(i) for i in range(1, len(docs) + 1)]
    assert corpus.titles == [" ".join(t.split()) for t, _, _ in docs]
    assert corpus.texts == [" ".join(x.split()) for _, x, _ in docs]
    assert [m.get("authors", []) for m in corpus.metadata] == [a for _, _, a in docs]
