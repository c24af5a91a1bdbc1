"""Measures hcrbench does not compute itself, handed to ir_measures: parsing (``ir_measures:X``) and values.

A valid ir_measures measure that the registry (:mod:`hcrbench.metrics.measures`, which imports this module) does
not know becomes ``Measure(FOREIGN, params=(("measure", ir_measures_name(spec)),))``, shown as ``ir_measures:X`` so
nobody takes it for hcrbench's own; :func:`foreign_values` computes it with ``ir_measures.iter_calc`` on the same
run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hcrbench.data.interop import as_run
from hcrbench.errors import InputError

#: The kind of a measure hcrbench hands to ir_measures (its ``params`` hold ir_measures' name for it).
FOREIGN = "ir_measures"


def ir_measures_name(spec: str, explain: bool = True) -> str | None:
    """ir_measures' own name for ``spec`` when ir_measures is installed and knows it, else None (with
    ``explain``, a name it knows with parameters it refuses is an InputError saying so)."""
    text = spec.strip()
    if text.startswith(f"{FOREIGN}:"):
        text = text[len(FOREIGN) + 1:].strip()
    try:
        import ir_measures
    except ImportError:
        return None
    try:
        theirs = ir_measures.parse_measure(text)
    except Exception:  # ir_measures raises NameError, SyntaxError... for a name it does not know
        return None
    try:
        theirs.validate_params()  # unknown or missing parameters (SDCG needs max_rel)
        name = str(theirs)
    except Exception as e:
        if not explain:
            return None
        raise InputError(f"ir_measures knows {text!r} but not these parameters: {e or type(e).__name__}",
                         field="metrics") from None
    return name


def foreign_values(measures: list[Any], qrels: Any, run: Any, qids: list[str], max_docs: int | None,
                   judged_only: bool) -> dict[str, np.ndarray]:
    """Per-query values of measures hcrbench hands to ir_measures (``ir_measures:X``), on the same run after
    ``max_docs`` (trec_eval order) and ``judged_only``; a query ir_measures leaves out scores 0."""
    import ir_measures

    run = as_run(run)
    if max_docs is not None:
        run = run.top_k(int(max_docs))
    judged = qrels.to_dict()
    docs = run.to_dict()
    if judged_only:
        docs = {q: {d: s for d, s in ds.items() if d in judged.get(q, {})} for q, ds in docs.items()}
    theirs = [ir_measures.parse_measure(m.params[0][1]) for m in measures]
    values = {str(t): {} for t in theirs}
    try:
        for r in ir_measures.iter_calc(theirs, judged, docs):
            values[str(r.measure)][r.query_id] = float(r.value)
    except Exception as e:  # ir_measures checks parameters only when it computes
        raise InputError(f"ir_measures could not compute {', '.join(map(str, theirs))}: {e}",
                         field="metrics") from None
    return {m.name: np.array([values[str(t)].get(q, 0.0) for q in qids], dtype=np.float64)
            for m, t in zip(measures, theirs)}
