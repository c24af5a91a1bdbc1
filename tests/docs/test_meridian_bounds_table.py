"""benchmarks/meridian_bounds.py's table: describe's rows read into issue 51's bounds, and a bad SIZE:SEED is one
line and exit 2."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "meridian_bounds.py"


def _bench():
    spec = importlib.util.spec_from_file_location("meridian_bounds_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def _describe(**over):
    m = {"unanswerable": {"queries": 2, "anchors missing": 3}, "ambiguous_referent": {"queries": 0},
         "asides_top": [0.01, 0.062], "skeleton": {"all": 0.08, "highest (two_hop)": 0.3}, "busiest_month": 0.12,
         "change_course": 0.25, "top3_incidents": 0.2, "top3_users": 0.18, "severity1": 0.04,
         "kinds": {"page": 400, "spec": 0}, "lexical": {}}
    m.update(over)
    mb = _bench()
    props = [{"property": name, "measured": m[k], "met": k != "kinds"} for k, name in mb.ROWS.items()]
    props += [{"property": f"world rule: {r}", "measured": i, "met": i == 0} for i, r in enumerate(mb.RULES)]
    return {"n_docs": 500, "properties": props, "missed": ["documents per kind", "independent topics per split "
                                                           "(clusters / queries, effective topics)"]}


def test_the_row_reads_describe_and_the_table_shows_each_bound():
    mb = _bench()
    r = mb.row(_describe(), "small", 9, "9.9.9")
    assert (r["unanswerable"], r["asides_top_test"], r["skeleton_highest"]) == (2, 0.062, ["two_hop", 0.3])
    assert sum(r["rule_violations"].values()) == 0 + 1 + 2 + 3 and not r["kinds_met"]
    table = mb.markdown({"rows": [r]})
    assert "Meridian generator 9.9.9" in table and "| small 9 |" in table
    assert "| queries relying on what no document writes (0) | 2 |" in table
    assert "| asides among top-grade test judgments (< 5%) | 6.2% |" in table
    assert "| violations of the four year rules (0) | 6 |" in table
    assert "| documents per kind: fewest (every kind present) | 0 (spec) ! |" in table
    assert "| targets describe reports missed | documents per kind; independent topics |" in table


def test_a_bad_size_seed_is_one_line_and_exit_2():
    r = subprocess.run([sys.executable, str(BENCH), "small"], capture_output=True, text=True, check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "expected SIZE:SEED" in r.stderr
