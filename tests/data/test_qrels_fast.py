"""read_qrels' block reader (data.qrels_fast) against its line loop: on generated qrels files, valid and malformed,
the same Qrels or the same one-line error (message, line, field)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import hcrbench.data.trec as trec
import hcrbench.data.trec_fast as trec_fast
from hcrbench.data.qrels_fast import grades_of, read_qrels_columns
from hcrbench.errors import InputError

SAFE_IDS = st.text(st.sampled_from([*"abqd019_-.:/#", "é", "\u00a0", "中"]), min_size=1, max_size=12)
ODD_IDS = st.text(st.sampled_from([*"abd01", "\x00", "\x01", "\x7f", "\x85"]), min_size=1, max_size=12)
IDS = st.one_of(SAFE_IDS, SAFE_IDS, SAFE_IDS.map(lambda s: s * 3), ODD_IDS)
GRADES = st.one_of(
    st.integers(-5, 5).map(str), st.integers(-2**31 + 1, 2**31 - 1).map(str),
    st.sampled_from(["+1", "-0", "007", "999999999", "-999999999", "1000000000", "2147483647", "2147483648",
                     "-2147483648", "9" * 25, "1.0", "x", "+", "-", "1_0", "١", "0x1", "1e3", "+-1"]),
)
SEPS = st.sampled_from([" ", "\t", "  ", " \t "])
ENDS = st.sampled_from(["\n", "\r\n", " \n", "\n\n"])


@st.composite
def qrels_line(draw) -> str:
    cols = [draw(IDS), draw(st.sampled_from(["0", "Q0", "1"])), draw(IDS), draw(GRADES)]
    kind = draw(st.sampled_from(["ok"] * 4 + ["short", "long", "comment", "blank"]))
    if kind == "short":
        cols = cols[: draw(st.integers(1, 3))]
    elif kind == "long":
        cols = [*cols, "x"]
    elif kind == "comment":
        cols = ["#", *cols]
    line = "" if kind == "blank" else draw(SEPS).join(cols)
    return draw(st.sampled_from(["", " "])) + line + draw(ENDS)


@st.composite
def qrels_file(draw) -> bytes:
    """Well-formed lines (odd spacing, any ids without control characters, grades of up to 9 digits), then often
    one to three lines of any kind (odd ids and grades, wrong field counts, comments, blanks); sometimes a BEIR
    file, a BOM, an invalid byte, no final newline."""
    n = draw(st.integers(0, 25))
    good = st.integers(-10**9 + 1, 10**9 - 1).map(str) | st.integers(-3, 3).map(str)
    lines = [f"{draw(SAFE_IDS)}{draw(SEPS)}0{draw(SEPS)}{draw(SAFE_IDS)}{draw(SEPS)}{draw(good)}{draw(ENDS)}"
             for _ in range(n)]
    if draw(st.booleans()):
        lines += draw(st.lists(qrels_line(), min_size=1, max_size=3))
        lines = draw(st.permutations(lines))
    if draw(st.integers(0, 4)) == 0:  # a BEIR file: header and 3 columns
        lines = ["query-id\tcorpus-id\tscore\n"] + [f"{draw(IDS)}\t{draw(IDS)}\t{draw(GRADES)}\n" for _ in range(n)]
    data = "".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 9)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff" + data[at:]
    if data.endswith(b"\n") and draw(st.booleans()):
        data = data[:-1]
    return data


def _outcome(path, fast: bool, block: int | None = None):
    saved, saved_block = trec.read_qrels_columns, trec_fast.BLOCK
    if not fast:
        trec.read_qrels_columns = lambda p: None
    if block is not None:
        trec_fast.BLOCK = block
    try:
        try:
            q = trec.read_qrels(path)
        except InputError as e:
            return ("error", str(e), e.line, e.field)
        return ("qrels", q.query_ids, list(q.doc_vocab), q.offsets.tolist(), q.doc_index.tolist(),
                q.grades.tolist(), str(q.grades.dtype))
    finally:
        trec.read_qrels_columns, trec_fast.BLOCK = saved, saved_block


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=qrels_file(), block=st.sampled_from([None, 16, 64]))
@example(data=b"q1 0 d1 1\nq1 0 d1 2\n", block=None)  # a duplicate judgment
@example(data=b"q1 0 d\x011 1\n", block=None)  # a control character in an id
@example(data=b"q1 0 d1 2147483648\n", block=None)  # out of range
@example(data=b"q1 0 d1 +\n", block=None)  # a sign alone
def test_block_reader_and_line_loop_agree(tmp_path_factory, data, block):
    path = tmp_path_factory.mktemp("q") / "qrels.txt"
    path.write_bytes(data)
    assert _outcome(path, True, block) == _outcome(path, False)


def test_usual_files_take_the_block_reader_and_odd_ones_the_loop(tmp_path):
    ok = tmp_path / "ok.txt"
    ok.write_bytes(b"\xef\xbb\xbfq1 0 d1 1\r\nq1\t0 d2 -2 \n\n# c\nq2 0 d1 +3\nq2 0 msmarco_doc_00_0123456789_1 0")
    cols = read_qrels_columns(ok)
    assert cols is not None
    qn, dn, qa, da, g = cols
    assert qn == ["q1", "q2"] and dn == ["d1", "d2", "msmarco_doc_00_0123456789_1"]
    assert qa.tolist() == [0, 0, 1, 1] and da.tolist() == [0, 1, 0, 2] and g.tolist() == [1, -2, 3, 0]
    for body in (b"query-id\tcorpus-id\tscore\nq1\td1\t1\n", b"q1 0 d1 1.0\n", b"q1 0 d1 1234567890\n",
                 b"q1 0 d1 1 x\n"):
        odd = tmp_path / "odd.txt"
        odd.write_bytes(body)
        assert read_qrels_columns(odd) is None


@pytest.mark.parametrize(("text", "want"), [
    (b"0 1 -1 +7 007 -0 999999999 -999999999", [0, 1, -1, 7, 7, 0, 999999999, -999999999]),
    (b"1 2 1000000000", None), (b"1 - 2", None), (b"1 1.5", None), (b"1 a", None), (b"1 +-1", None)])
def test_grades_of_reads_signed_decimals_of_up_to_nine_digits(text, want):
    arr = np.frombuffer(text + b" ", dtype=np.uint8)
    sep = np.flatnonzero(arr == 32)
    starts = np.concatenate([[0], sep[:-1] + 1])
    got = grades_of(arr, starts, sep)
    assert (got.tolist() if got is not None else None) == want


def test_the_generated_files_reach_both_readers(tmp_path):
    """The property has teeth: many generated files are read by the block reader, others are left to the loop."""
    taken: list[bool] = []

    @settings(max_examples=30, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(data=qrels_file())
    def sample(data):
        path = tmp_path / "g.txt"
        path.write_bytes(data)
        if data.count(b"\n") >= 3:
            taken.append(read_qrels_columns(path) is not None)

    sample()
    assert sum(taken) >= 5 and len(taken) - sum(taken) >= 3, taken
