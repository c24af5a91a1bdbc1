"""Input checks and seeding shared by the statistics functions.

Every user mistake (empty input, unequal lengths, NaN, a bad option) becomes one-line
:class:`~hcrbench.errors.InputError` naming the offending argument, never a numpy traceback.
"""

from __future__ import annotations

import hashlib

import numpy as np

from hcrbench.errors import InputError
from hcrbench.limits import check_draws


def as_vector(x: object, field: str) -> np.ndarray:
    """``x`` as a finite, non-empty, 1-D float64 array (raises :class:`InputError` otherwise)."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InputError(f"not a numeric array ({e})", field=field) from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise InputError(f"expected a 1-D array, got shape {arr.shape}", field=field)
    if arr.size == 0:
        raise InputError("empty: need at least one value", field=field)
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise InputError(f"value at position {bad} is not finite ({arr[bad]})", field=field)
    return arr


def paired_differences(a: object, b: object | None) -> np.ndarray:
    """``a - b`` for paired per-query scores (or ``a`` itself when ``b`` is None)."""
    va = as_vector(a, "a")
    if b is None:
        return va
    vb = as_vector(b, "b")
    if va.shape != vb.shape:
        raise InputError(f"paired arrays differ in length: a has {va.size}, b has {vb.size}", field="b")
    return va - vb


def check_resamples(n_resamples: int) -> int:
    """An int in 1..10**7 (more would only exhaust memory or time), else InputError."""
    return check_draws(n_resamples, "n_resamples")


def check_probability(value: float, field: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"must be a number in (0, 1), got {value!r}", field=field) from None
    if not 0.0 < v < 1.0:
        raise InputError(f"must be in (0, 1), got {value!r}", field=field)
    return v


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"must be a non-negative integer, got {seed!r}", field="seed")
    return int(seed)


def derive_seed(seed: int, *parts: str) -> int:
    """A stable 63-bit seed from ``seed`` and labels (sha256, not Python's salted ``hash()``).

    The same (seed, labels) gives the same number on every machine and Python version, so each comparison
    of :func:`~hcrbench.stats.compare` draws its own resamples independently of the order of the others.
    """
    h = hashlib.sha256(str(int(seed)).encode())
    for p in parts:
        h.update(b"\x00")
        h.update(str(p).encode("utf-8"))
    return int.from_bytes(h.digest()[:8], "big") >> 1


def to_json_float(x: object) -> float | None:
    """A plain Python float for JSON, or None for NaN/inf (JSON has neither)."""
    if x is None:
        return None
    v = float(x)
    return v if np.isfinite(v) else None
