"""Bounds on numeric knobs shared by every stage (seeds, resample and trial counts), checked as user input.

numpy seeds a generator from any non-negative integer, but a seed is recorded in manifests and compared across
tools that take 32-bit seeds, so hcrbench accepts 0..2**32-1. Resample / trial counts above ten million would
only exhaust memory or time, so they are refused up front with a one-line :class:`InputError`.
"""

from __future__ import annotations

import numbers
from typing import Any

from hcrbench.errors import InputError

MAX_SEED = 2**32 - 1
MAX_DRAWS = 10**7


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_seed(value: Any, field: str = "seed") -> int:
    """``value`` as an int in 0..2**32-1, else InputError naming ``field``."""
    if not _is_int(value) or not 0 <= int(value) <= MAX_SEED:
        raise InputError(f"must be an integer in 0..{MAX_SEED}, got {value!r}", field=field)
    return int(value)


def check_draws(value: Any, field: str) -> int:
    """A resample / trial count as an int in 1..10**7, else InputError naming ``field``."""
    if not _is_int(value) or not 1 <= int(value) <= MAX_DRAWS:
        raise InputError(f"must be an integer in 1..{MAX_DRAWS}, got {value!r}", field=field)
    return int(value)
