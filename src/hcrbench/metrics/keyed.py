"""A result dict keyed by canonical measure names that also answers to any other spelling of a measure.

``res.means["run"]["mrr@10"]``, ``["recip_rank"]`` or ``["ir_measures.RR@10"]``-style names find the ``RR@10``
entry: a key that is not stored is parsed (:func:`~hcrbench.metrics.measures.parse_measure`) and looked up by its
canonical name. Iteration, ``len``, JSON and equality see the canonical keys only.
"""

from __future__ import annotations

from typing import Any


class MeasureKeyed(dict):
    """``dict`` of canonical measure name -> value, readable by any alias of a measure."""

    def _canonical(self, key: Any) -> Any:
        from hcrbench.errors import InputError
        from hcrbench.metrics.measures import parse_measure

        if isinstance(key, str) or hasattr(key, "NAME") or hasattr(key, "kind"):
            try:
                return parse_measure(key).name
            except (InputError, ValueError):
                return None
        return None

    def __missing__(self, key: Any) -> Any:
        name = self._canonical(key)
        if name is not None and dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        shown = f"{key!r}" + (f" (= {name})" if name is not None and name != key else "")
        raise KeyError(f"{shown} was not evaluated (have: {', '.join(map(str, self))})")

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        name = self._canonical(key)
        return name is not None and dict.__contains__(self, name)

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default
