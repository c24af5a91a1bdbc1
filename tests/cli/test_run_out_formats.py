"""Every command that writes a run (``fuse``, ``retrieve``, ``merge``) writes the format its ``--out`` suffix names:
TREC text, ranx's JSON, parquet, gzip of a text one; read back by ranx / pandas (where installed) and by hcrbench
to the same run as the TREC output. An unknown suffix is one line, exit 2, before any work."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hcrbench.data import Qrels, read_run, write_beir_qrels, write_corpus, write_queries
from hcrbench.data.run_formats import read_any_run
from hcrbench.data.types import Corpus, Queries

HCRBENCH = shutil.which("hcrbench")
CLI = [HCRBENCH] if HCRBENCH else [sys.executable, "-m", "hcrbench.cli"]

SUFFIXES = ["trec", "trec.gz", "json", "json.gz", "parquet"]


def _cli(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, check=False, cwd=cwd)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("outfmt")
    docs = {f"d{i:02d}": ("", f"word{i % 4} common text number {i} word{i % 3}") for i in range(12)}
    write_corpus(Corpus(list(docs), [x for _, x in docs.values()]), root / "data/corpus.jsonl")
    write_queries(Queries.from_dict({"q1": "word1 text", "q2": "word2 number", "q3": "common word0"}),
                  root / "data/queries.jsonl")
    write_beir_qrels(Qrels.from_dict({"q1": {"d01": 1}, "q2": {"d02": 1}, "q3": {"d04": 1}}),
                     root / "data/qrels/test.tsv")
    (root / "a.trec").write_text("".join(f"q{q} Q0 d{d:02d} {d + 1} {10 - d + q / 10} a\n"
                                         for q in (1, 2, 3) for d in range(8)))
    (root / "b.trec").write_text("".join(f"q{q} Q0 d{11 - d:02d} {d + 1} {5.5 - d / 2} b\n"
                                         for q in (1, 2, 3) for d in range(8)))
    (root / "s1.trec").write_text("".join(f"q{q} Q0 x{d} 1 {d}.5 s\n" for q in (1, 2) for d in range(4)))
    (root / "s2.trec").write_text("".join(f"q{q} Q0 y{d} 1 {d}.25 s\n" for q in (1, 2) for d in range(4)))
    return root


COMMANDS = {
    "fuse": lambda out: ("fuse", "a.trec", "b.trec", "--method", "rrf", "--out", out),
    "retrieve": lambda out: ("retrieve", "--dataset", "data", "--system", "bm25", "--k", "5", "--out", out),
    "merge": lambda out: ("merge", "s1.trec", "s2.trec", "--out", out),
}


def _read_back(path: Path, suffix: str) -> dict[str, dict[str, float]]:
    """The file read by what its users would read it with (ranx, pandas, json), as {qid: {doc: score}}."""
    if suffix == "parquet":
        pd = pytest.importorskip("pandas")
        frame = pd.read_parquet(path)
        assert list(frame.columns) == ["q_id", "doc_id", "score"]
        try:
            import ranx

            # ranx's from_parquet asserts object columns, which pandas 3 no longer reads (ranx's own files fail)
            ids = frame.astype({"q_id": object, "doc_id": object})
            assert ranx.Run.from_df(ids).to_dict() == _nested(frame)
        except ImportError:
            pass
        return _nested(frame)
    if suffix.startswith("json"):
        opener = gzip.open if suffix.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as fh:
            doc = json.load(fh)
        if suffix == "json":
            try:
                import ranx

                assert ranx.Run.from_file(str(path)).to_dict() == doc
            except ImportError:
                pass
        return doc
    if suffix.endswith(".gz"):
        assert path.read_bytes()[:2] == b"\x1f\x8b"
    else:
        lines = path.read_text().splitlines()
        assert lines and all(len(ln.split()) == 6 for ln in lines)
    return read_run(path).to_dict()


def _nested(frame) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, s in frame.itertuples(index=False):
        out.setdefault(q, {})[d] = s
    return out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_run_writer_honours_its_suffix(root, command):
    reference = None
    for suffix in SUFFIXES:
        out = root / f"{command}-out.{suffix}"
        p = _cli(*COMMANDS[command](out.name), cwd=root)
        assert p.returncode == 0, (suffix, p.stderr)
        got = _read_back(out, suffix)
        assert got, suffix
        if reference is None:
            reference = got
        assert got == reference, suffix  # the same run in every format
        assert read_any_run(out).to_dict() == reference, suffix  # and hcrbench reads each back


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("name", ["out.csv", "out.parquet.gz", "out.trec.bz2"])
def test_an_unknown_run_suffix_is_refused_before_any_work(root, command, name):
    p = _cli(*COMMANDS[command](name), cwd=root)
    assert p.returncode == 2, p.stderr
    err = p.stderr.strip()
    assert len(err.splitlines()) == 1 and "--out" in err and "Traceback" not in err, err
    assert not (root / name).exists()
    assert not list(root.glob(f".{name}*"))
