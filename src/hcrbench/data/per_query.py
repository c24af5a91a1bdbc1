"""An experiment's per-query table on disk: ``per_query.csv`` always, ``per_query.parquet`` too when pyarrow is
installed (pyarrow is optional: the values are also in ``eval.json``).

Columns: ``run, query_id``, one per metric, then the query strata (e.g. ``category``). Both files are written
atomically and byte-identically for the same table. :func:`read_per_query` reads the parquet file when it exists
and pyarrow can read it, else the CSV; ids and strata come back as strings, metrics as floats.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_open
from hcrbench.errors import InputError

CSV = "per_query.csv"
PARQUET = "per_query.parquet"
FILES = (CSV, PARQUET)


def has_pyarrow() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def write_per_query(frame: Any, folder: str | Path) -> list[Path]:
    """Write ``frame`` as ``per_query.csv`` (and ``per_query.parquet`` with pyarrow); returns the paths."""
    folder = Path(folder)
    out = [folder / CSV]
    with atomic_open(folder / CSV, "w") as fh:
        frame.to_csv(fh, index=False, lineterminator="\n")
    if has_pyarrow():
        with atomic_open(folder / PARQUET, "wb") as fh:
            frame.to_parquet(fh, index=False)
        out.append(folder / PARQUET)
    else:
        (folder / PARQUET).unlink(missing_ok=True)  # an older one would disagree with the CSV
    return out


def per_query_path(folder: str | Path) -> Path | None:
    """The file :func:`read_per_query` would read, or None when the folder holds neither."""
    folder = Path(folder)
    if (folder / PARQUET).is_file() and has_pyarrow():
        return folder / PARQUET
    return folder / CSV if (folder / CSV).is_file() else None


def read_per_query(folder: str | Path, metrics: list[str] | None = None) -> Any:
    """The per-query DataFrame of an experiment folder (None when absent). ``metrics`` names the float columns
    of a CSV (default: every column but ``run``, ``query_id`` and those holding a non-number)."""
    import pandas as pd

    path = per_query_path(folder)
    if path is None:
        return None
    try:
        if path.suffix == ".parquet":
            df = pd.read_parquet(path)
        else:
            df = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
            for col in df.columns:
                if col in ("run", "query_id"):
                    continue
                if metrics is not None and col not in metrics:
                    continue
                converted = pd.to_numeric(df[col], errors="coerce")
                if metrics is not None or converted.notna().sum() == df[col].notna().sum():
                    df[col] = converted.astype(float)
    except Exception as e:  # pyarrow and the CSV parser raise several kinds for a damaged file
        raise InputError(f"not a readable per-query table ({type(e).__name__})", path=path) from None
    for col in ("run", "query_id"):
        if col not in df.columns:
            raise InputError("missing column", path=path, field=col)
    return df
