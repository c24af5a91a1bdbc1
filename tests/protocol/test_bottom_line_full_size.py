"""The kill criterion decides on its interval at every size; only a kill at the full size (a dataset taken whole,
e.g. SciFact, or Meridian full) invalidates the architecture. The bottom line at the full size does not send the
user to --sizes for a kill criterion that was judged and is not decidable at its n; a smaller size still does."""

from __future__ import annotations

from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol.rules import GO, INCONCLUSIVE, INVALIDATED, KILL, NOGO, UNDECIDABLE
from hcrbench.protocol.verdicts import bottom_line, overall


def _kill(full: bool, delta: float = 0.01, lo: float = -0.02, hi: float = 0.04, p: float = 0.4) -> dict:
    return hy.single_kill(delta, p, lo, hi, 0.05, n=300, size="as given" if full else "small", full_size=full)


def _v(full: bool, **kw) -> dict:
    kill = _kill(full, **kw)
    return {"overall": overall([], [kill]), "hypotheses": [kill], "checkpoints": [], "full_size": full}


def test_a_full_size_undecided_kill_says_so_without_the_sizes_command():
    line = bottom_line(_v(True))
    assert "kill criterion: not decidable" in line and "--sizes" not in line


def test_a_smaller_size_points_to_the_sizes_command():
    line = bottom_line(_v(False))
    assert "kill criterion at size small: not decidable" in line and "--sizes small,medium,full" in line


def test_a_smaller_size_decides_on_its_interval_and_never_invalidates():
    lost = _kill(False, delta=-0.06, lo=-0.09, hi=-0.03, p=0.001)
    assert lost["verdict"] == KILL and lost["evidence"]["scope"] == "size small"
    assert "kill at size small" in lost["text"] and "--sizes" in lost["text"]
    assert lost["evidence"]["at_full_size_this_would_be"] == "kill"  # the field users read before stays
    assert overall([], [lost]) == NOGO  # not "invalidated": that needs the full size
    v = _v(False, delta=-0.06, lo=-0.09, hi=-0.03, p=0.001)
    line = bottom_line(v)
    assert line.startswith("no-go on ") and "kill criterion at size small: kill" in line and "--sizes" in line
    won = _kill(False, delta=0.06, lo=0.03, hi=0.09, p=0.001)
    assert won["verdict"] == GO and overall([], [won]) == GO


def test_a_kill_at_the_full_size_invalidates():
    lost = _kill(True, delta=-0.06, lo=-0.09, hi=-0.03, p=0.001)
    assert lost["verdict"] == KILL and "scope" not in lost["evidence"]
    assert overall([], [lost]) == INVALIDATED


def test_an_undecided_smaller_size_row_carries_what_would_decide_it():
    row = _kill(False)
    assert row["verdict"] == UNDECIDABLE and row["text"].startswith("not decidable at n = 300")
    assert overall([], [row]) == INCONCLUSIVE


def test_the_console_sends_an_undecided_smaller_size_kill_to_more_worlds_not_to_sizes_first():
    from hcrbench.report.verdict_block import _command

    row = _kill(False)
    assert _command(row["text"], "hcr") is None and "--sizes small,medium,full" in row["text"]
