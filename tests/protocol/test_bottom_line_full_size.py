"""The bottom line at the full size (a dataset taken whole, e.g. SciFact) does not send the user to --sizes for a
kill criterion that was judged and is not decidable at its n; a smaller size still does."""

from __future__ import annotations

from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol.verdicts import bottom_line


def _v(full: bool) -> dict:
    kill = hy.single_kill(0.01, 0.4, -0.02, 0.04, 0.05, n=300, size="as given" if full else "small", full_size=full)
    return {"overall": "inconclusive", "hypotheses": [kill], "checkpoints": [], "full_size": full}


def test_a_full_size_undecided_kill_says_so_without_the_sizes_command():
    line = bottom_line(_v(True))
    assert "kill criterion: not decidable" in line and "--sizes" not in line


def test_a_smaller_size_points_to_the_sizes_command():
    line = bottom_line(_v(False))
    assert "cannot decide the kill criterion" in line and "--sizes small,medium,full" in line
