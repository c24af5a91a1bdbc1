"""The per-query table without pyarrow (CSV only) and with it (CSV + parquet): same frame back, bytes stable."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from hcrbench.data import per_query
from hcrbench.errors import InputError


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"run": ["a", "a", "b", "b"], "query_id": ["01", "2", "01", "2"],
                         "nDCG@10": [0.5, 1 / 3, float("nan"), 0.0], "category": ["1", None, "x,y", "1"]})


def test_without_pyarrow_the_csv_alone_round_trips(tmp_path, monkeypatch):
    monkeypatch.setattr(per_query, "has_pyarrow", lambda: False)
    (tmp_path / "per_query.parquet").write_text("stale")  # from an older run: must not survive
    assert per_query.write_per_query(_frame(), tmp_path) == [tmp_path / "per_query.csv"]
    assert not (tmp_path / "per_query.parquet").exists()
    first = (tmp_path / "per_query.csv").read_bytes()
    per_query.write_per_query(_frame(), tmp_path)
    assert (tmp_path / "per_query.csv").read_bytes() == first
    back = per_query.read_per_query(tmp_path, ["nDCG@10"])
    assert back["query_id"].tolist() == ["01", "2", "01", "2"]  # ids stay strings, leading zero kept
    assert back["category"].tolist()[0] == "1" and back["category"].isna().tolist() == [False, True, False, False]
    assert back["nDCG@10"].tolist()[1] == 1 / 3 and math.isnan(back["nDCG@10"].tolist()[2])
    assert back["category"].tolist()[2] == "x,y"


def test_with_pyarrow_both_files_hold_the_same_table(tmp_path):
    import pyarrow  # noqa: F401  (the test extra installs it: this checks the parquet path)

    paths = per_query.write_per_query(_frame(), tmp_path)
    assert [p.name for p in paths] == ["per_query.csv", "per_query.parquet"]
    from_parquet = per_query.read_per_query(tmp_path)
    (tmp_path / "per_query.parquet").unlink()
    from_csv = per_query.read_per_query(tmp_path, ["nDCG@10"])
    pd.testing.assert_frame_equal(from_parquet.drop(columns="category"), from_csv.drop(columns="category"))


def test_absent_and_damaged_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(per_query, "has_pyarrow", lambda: False)
    assert per_query.read_per_query(tmp_path) is None
    (tmp_path / "per_query.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match=r"per_query\.csv: run: missing column"):
        per_query.read_per_query(tmp_path)
