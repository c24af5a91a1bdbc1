"""Property test: on generated run files, valid and malformed, read_run (block reader first) and the line loop
alone give the same Run, or the same one-line error (message, file, line, field) and the same warnings."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import hcrbench.data.trec as trec
import hcrbench.data.trec_fast as trec_fast
from hcrbench.errors import InputError

SAFE_IDS = st.text(st.sampled_from([*"abqd019_-.:/#", "é", "\u00a0", "ß", "中"]), min_size=1, max_size=12)
ODD_IDS = st.text(st.sampled_from([*"abd01", "\x00", "\x01", "\x1f", "\x7f", "\x85"]), min_size=1, max_size=12)
IDS = st.one_of(SAFE_IDS, SAFE_IDS, ODD_IDS)
SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.integers(-10**25, 10**25).map(str),
    st.sampled_from(["nan", "inf", "-inf", "1e999", "-1e400", "1_000", "1.5e3", "+2", ".5", "5.", "-0", "x",
                     "1.2.3", "", "0x10", "١", "9" * 40, "1e-400", "00000000000000000012", "1,5"]),
)
RANKS = st.one_of(st.integers(0, 10**6).map(str), st.sampled_from(["x", "-1", "1.5", "", "9" * 30]))
SEPS = st.sampled_from([" ", "\t", "  ", " \t "])
ENDS = st.sampled_from(["\n", "\r\n", " \n", "\t\n", "\r\n\n", "\n\n"])


@st.composite
def run_line(draw) -> str:
    cols = [draw(IDS), draw(st.sampled_from(["Q0", "0", "q0"])), draw(IDS), draw(RANKS), draw(SCORES),
            draw(st.sampled_from(["tag", "r_1", "é"]))]
    kind = draw(st.sampled_from(["ok"] * 6 + ["short", "long", "comment", "blank", "cr"]))
    if kind == "short":
        cols = cols[: draw(st.integers(1, 5))]
    elif kind == "long":
        cols = cols + ["extra"] * draw(st.integers(1, 2))
    elif kind == "comment":
        cols = ["#", *cols]
    elif kind == "blank":
        cols = []
    sep = draw(SEPS)
    line = sep.join(c for c in cols if c != "") if kind != "blank" else draw(st.sampled_from(["", " ", "\t"]))
    if kind == "cr":  # a lone CR inside a line (whitespace to both readers)
        line = "# note\r" + line
    return draw(st.sampled_from(["", " "])) + line + draw(ENDS)


@st.composite
def run_file(draw) -> bytes:
    """Well-formed lines (safe ids, finite scores, odd spacing, blank and comment lines), then often one or a few
    lines drawn from every malformed class; sometimes a BOM, a stray invalid byte, no final newline."""
    n = draw(st.integers(0, 25))
    good = st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr) | st.integers(-10**6, 10**6).map(str)
    lines = [f"{draw(SAFE_IDS)}{draw(SEPS)}Q0{draw(SEPS)}{draw(SAFE_IDS)}{draw(SEPS)}{i + 1}{draw(SEPS)}"
             f"{draw(good)}{draw(SEPS)}t{draw(ENDS)}" for i in range(n)]
    if draw(st.booleans()):
        lines += draw(st.lists(run_line(), min_size=1, max_size=3))
        lines = draw(st.permutations(lines))
    data = "".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 9)) == 0:  # bad UTF-8 somewhere
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff" + data[at:]
    if data.endswith(b"\n") and draw(st.booleans()):
        data = data[:-1]  # no final newline
    return data


def _outcome(path, fast: bool, block: int | None = None):
    saved, saved_block = trec.read_run_columns, trec_fast.BLOCK
    if not fast:
        trec.read_run_columns = lambda p: None
    if block is not None:  # small blocks: many per file, so ids and keys cross block boundaries
        trec_fast.BLOCK = block
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = trec.read_run(path, dedupe=False)
            except InputError as e:
                return ("error", str(e), e.line, e.field), [str(x.message) for x in w]
        return ("run", r.query_ids, r.doc_vocab, r.offsets.tolist(), r.doc_index.tolist(),
                np.asarray(r.scores).tobytes()), [str(x.message) for x in w]
    finally:
        trec.read_run_columns, trec_fast.BLOCK = saved, saved_block


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=run_file(), block=st.sampled_from([None, 16, 64, 200]))
@example(data=b"q1 Q0 d\x001 1 1.0 t\nq1 Q0 d1 2 0.5 t\n", block=None)  # a NUL inside an id
@example(data=b"q1 Q0 d1 1 1.0 t\xff\n", block=None)  # bad UTF-8 in the tag
@example(data=b"# c\rq1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 0.5 t\n", block=None)  # a lone CR after a comment marker
@example(data=b"q1 Q0 d1 1 1.0 t\nq1 Q0 d1 2 0.5 t\n", block=None)  # a duplicate doc
@example(data=b"\xef\xbb\xbfq1 Q0 d1 1 1_0 t\r\n", block=None)
# the same ids in a block whose longest id is over 8 bytes and in one whose ids are all short (two keys, once)
@example(data=b"0 Q0 a 1 0.0 t\n000000000 Q0 b 2 0.0 t\n0 Q0 a 3 0.0 t", block=None)
@example(data=b"q Q0 d 1 2.0 t\nq Q0 dddddddddd 2 1.0 t\nq Q0 d 3 0.5 t", block=None)
@example(data=b"q Q0 " + b"d" * 5000 + b" 1 1.0 t\nq Q0 e 2 0.5 t\n", block=None)  # a field over MAX_FIELD
def test_block_reader_and_line_loop_agree(tmp_path_factory, data, block):
    path = tmp_path_factory.mktemp("p") / "r.trec"
    path.write_bytes(data)
    assert _outcome(path, True, block) == _outcome(path, False)


def test_the_generated_files_reach_the_fast_path_and_both_outcomes(tmp_path):
    """The property has teeth: valid files take the block reader, and malformed ones are refused."""
    from hcrbench.data.trec_fast import read_run_columns

    huge = tmp_path / "huge.trec"
    huge.write_bytes(b"q Q0 " + b"d" * 5000 + b" 1 1.0 t\n")
    assert read_run_columns(huge) is None  # a field over MAX_FIELD goes to the loop, not into a huge matrix
    ok = tmp_path / "ok.trec"
    ok.write_bytes(b"\xef\xbb\xbfq1 Q0 d1 1 1.5 t\r\nq1\tQ0 d2 2 0.25 t \n\n#c\nq2 Q0 d1 1 -3 t")
    assert read_run_columns(ok) is not None and _outcome(ok, True)[0][0] == "run"
    bad = tmp_path / "bad.trec"
    bad.write_bytes(b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 nan t\n")
    out = _outcome(bad, True)[0]
    assert out[0] == "error" and out[2] == 2 and out[3] == "score"
