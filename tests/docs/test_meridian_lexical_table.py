"""benchmarks/meridian_lexical.py's table: which Meridian columns fall outside the real collections' range, and a
missing datasets folder is one line and exit 2."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "meridian_lexical.py"


def _bench():
    spec = importlib.util.spec_from_file_location("meridian_lexical_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def _row(name, kind, rarest, repeat, **kw):
    base = {"name": name, "kind": kind, "queries": 10, "rarest_exclusive": rarest, "p10": 0.2, "p25": 0.5,
            "p50": 0.7, "p75": 0.9, "p90": 1.0, "no_shared_term": 0.05, "names_identifier": 0.1,
            "identifier_exclusive": 0.0, "repeat_share": repeat, "degenerate_ranges": 0, "pasted_parameters": 0}
    return {**base, **kw}


def test_a_meridian_column_outside_the_real_min_max_is_named_with_the_range():
    m = _bench()
    doc = {"rows": [_row("A", "real", 0.05, 0.0), _row("B", "real", 0.15, 0.02),
                    _row("M1", "meridian", 0.30, 0.6, generator="x", by_category={}, no_shared_not_vocabulary=2),
                    _row("M2", "meridian", 0.15, 0.02, generator="x", by_category={}, no_shared_not_vocabulary=0)]}
    notes = m.outside(doc)
    assert notes[0] == ("- M1: rarest word only in relevant 0.30 (real 0.05-0.15); "
                        "repeats a skeleton 0.60 (real 0.00-0.02)")
    assert notes[1] == "- M2: inside the real range on every column"  # the bounds themselves are inside
    table = m.markdown(doc)
    assert "| M1 | 10 | 0.30 |" in table and "(the design's one place without overlap): M1: 2; M2: 0." in table


def test_a_missing_datasets_folder_is_one_line_and_exit_2(tmp_path):
    r = subprocess.run([sys.executable, str(BENCH), "--datasets", str(tmp_path / "nope")], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "datasets folder not found" in r.stderr
