"""Reader edge cases found in review: BOM, ASCII-only splitting, CRLF, grade syntax, corrupt gzip, atomic targets."""

from __future__ import annotations

import gzip
import os

import pytest

from hcrbench.data import iter_jsonl, read_qrels, read_run
from hcrbench.data.atomic import atomic_open, atomic_write_text
from hcrbench.errors import InputError

BOM = b"\xef\xbb\xbf"


def _err(fn, *args, **kwargs) -> str:
    with pytest.raises(InputError) as ei:
        fn(*args, **kwargs)
    msg = str(ei.value)
    assert "\n" not in msg
    return msg


def test_bom_is_stripped_from_qrels_run_and_jsonl(tmp_path):
    q = tmp_path / "bom.qrels"
    q.write_bytes(BOM + b"q1 0 d1 1\nq1 0 d2 0\n")
    assert read_qrels(q).to_dict() == {"q1": {"d1": 1, "d2": 0}}
    r = tmp_path / "bom.run"
    r.write_bytes(BOM + b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    assert read_run(r).query_ids == ["q1"]
    j = tmp_path / "bom.jsonl"
    j.write_bytes(BOM + b'{"_id": "d1", "text": "x"}\n')
    assert [row for _, row in iter_jsonl(j)] == [{"_id": "d1", "text": "x"}]


def test_bom_only_stripped_at_start_of_file(tmp_path):
    r = tmp_path / "mid.run"
    r.write_bytes(b"q1 Q0 d1 1 2.0 t\n" + BOM + b"q1 Q0 d2 2 1.0 t\n")
    assert read_run(r).query_ids == ["q1", "\ufeffq1"]


def test_split_on_ascii_whitespace_only(tmp_path):
    r = tmp_path / "nbsp.run"
    r.write_bytes("q1 Q0 d\u00a0x 1 2.0 t\nq1\tQ0\x0bd2\x0c2 1.0 t\n".encode())
    run = read_run(r)
    assert run.to_dict() == {"q1": {"d\u00a0x": 2.0, "d2": 1.0}}
    q = tmp_path / "ideo.qrels"
    q.write_bytes("q\u3000a 0 d1 1\n".encode())  # ideographic space is not a separator
    assert read_qrels(q).query_ids == ["q\u3000a"]


def test_crlf_files_read(tmp_path):
    q = tmp_path / "crlf.qrels"
    q.write_bytes(b"q1 0 d1 1\r\nq1 0 d2 0\r\n")
    assert read_qrels(q).to_dict() == {"q1": {"d1": 1, "d2": 0}}
    r = tmp_path / "crlf.run"
    r.write_bytes(b"q1 Q0 d1 1 2.0 t\r\nq1 Q0 d2 2 1.0 t\r\n")
    assert read_run(r).to_dict() == {"q1": {"d1": 2.0, "d2": 1.0}}


@pytest.mark.parametrize("rel", ["1_0", "\u0661", "2147483648", "-2147483648", "99999999999999999999", "+", "0x1"])
def test_bad_qrels_grades(tmp_path, rel):
    p = tmp_path / "g.qrels"
    p.write_text(f"q1 0 d0 1\nq1 0 d1 {rel}\n", encoding="utf-8")
    assert ":2: rel: relevance" in _err(read_qrels, p)


def test_extreme_but_valid_grades(tmp_path):
    p = tmp_path / "g.qrels"
    p.write_text("q1 0 d1 2147483647\nq1 0 d2 -2147483647\nq1 0 d3 +3\nq1 0 d4 007\n")
    assert read_qrels(p).to_dict() == {"q1": {"d1": 2147483647, "d2": -2147483647, "d3": 3, "d4": 7}}


def test_duplicate_line_number_skips_blank_lines_and_header(tmp_path):
    p = tmp_path / "qrels.tsv"
    p.write_text("query-id\tcorpus-id\tscore\n\nq1\td1\t1\n\n\nq2\td1\t1\nq1\td1\t0\n")
    assert ":7: docid: duplicate judgment" in _err(read_qrels, p)
    r = tmp_path / "dup.run"
    r.write_text("\nq1 Q0 d1 1 1 t\n\nq1 Q0 d2 2 1 t\nq2 Q0 d1 1 1 t\nq1 Q0 d2 3 0.5 t\n")
    assert ":6: docid: doc 'd2' appears twice" in _err(read_run, r)


def test_corrupt_gzip_stream_is_one_line_error(tmp_path):
    data = "".join(f"q{i % 7} 0 doc{i * 7919 % 1000} {i % 3}\n" for i in range(3000)).encode()
    gz = bytearray(gzip.compress(data, mtime=0))
    gz[20] = 0xFF  # breaks the deflate stream itself (zlib.error, not OSError)
    p = tmp_path / "corrupt.qrels.gz"
    p.write_bytes(bytes(gz))
    assert "corrupt gzip file" in _err(read_qrels, p)
    assert "corrupt gzip file" in _err(read_run, p)


def test_atomic_open_refuses_a_directory_target(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    msg = _err(atomic_write_text, d, "x")
    assert "is a directory" in msg and str(d) in msg
    assert list(d.iterdir()) == []


def test_atomic_open_fsyncs_gzip_output(tmp_path, monkeypatch):
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    for mode in ("w", "wb"):
        with atomic_open(tmp_path / f"x{mode}.gz", mode) as fh:
            fh.write("hello" if mode == "w" else b"hello")
    assert len(calls) == 2
    assert gzip.decompress((tmp_path / "xw.gz").read_bytes()) == b"hello"
