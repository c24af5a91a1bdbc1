"""hcrbench's evaluation where ``pt.Experiment`` goes: PyTerrier systems or result frames in, PyTerrier's table out.

``experiment([bm25, tuned], topics, qrels, ["nDCG@10", "map"], names=[...], baseline=0, correction="holm")``
takes what ``pyterrier.Experiment`` takes (transformers, run on ``topics``, or result frames with ``qid, docno,
score``; a qrels frame with ``qid, docno, label``; measures as trec_eval names, hcrbench / ir_measures strings or
ir_measures objects) and returns the same shape of DataFrame: a ``name`` column and one column per measure (the
mean), and with ``baseline`` the columns ``<m> +``, ``<m> -`` (queries better / worse than the baseline),
``<m> p-value`` and, with ``correction``, ``<m> reject`` and ``<m> p-value corrected``; ``perquery=True`` gives
PyTerrier's long ``name, qid, measure, value`` frame. The numbers are hcrbench's: trec_eval-exact measures
(:func:`hcrbench.metrics.evaluate`; qrels queries a system did not answer count 0, trec_eval ``-c``, unless
``missing="skip"``), and :func:`hcrbench.stats.compare`'s paired tests (``test``: ``t`` as PyTerrier, also
``wilcoxon``, ``permutation``; ranx's spellings) and corrections by statsmodels' names over each measure's
comparisons (the family PyTerrier corrects over). As in PyTerrier, ``topics`` restricts the qrels and the results
to its queries (``filter_by_topics``).

Needs pandas (a core dependency); PyTerrier only to run transformers (``pip install 'hcrbench[pyterrier]'``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hcrbench.data import interop
from hcrbench.errors import InputError
from hcrbench.metrics import evaluate
from hcrbench.stats.compare import compare


def _label(measure: Any) -> str:
    return measure if isinstance(measure, str) else str(measure)


def _results(system: Any, topics: Any) -> Any:
    """A system's result frame: the frame itself, or a transformer's answer to ``topics``."""
    if hasattr(system, "columns"):
        return system
    if hasattr(system, "transform"):
        if topics is None:
            raise InputError("a transformer needs topics to run on", field="topics")
        return system.transform(topics)
    raise InputError(f"a system must be a PyTerrier transformer or a result frame; got {type(system).__name__}",
                     field="retr_systems")


def _p(c: Any) -> float:
    """The p of the comparison's own test (``compare``'s ``test``)."""
    return {"t": c.t_p, "wilcoxon": c.p_wilcoxon}.get(c.test, c.p)


def experiment(retr_systems: Sequence[Any] | Mapping[str, Any], topics: Any, qrels: Any,
               eval_metrics: Sequence[Any], names: Sequence[str] | None = None, *, perquery: bool = False,
               baseline: int | str | None = None, test: str = "t", correction: str | None = None,
               correction_alpha: float = 0.05, round: int | None = None, filter_by_topics: bool = True,
               missing: str = "zero", n_resamples: int = 10_000, seed: int = 0):
    """``pt.Experiment``'s table computed by hcrbench (see the module docstring)."""
    import pandas as pd

    if isinstance(retr_systems, Mapping):
        names = list(retr_systems) if names is None else list(names)
        systems = list(retr_systems.values())
    else:
        systems = list(retr_systems)
        names = [str(s) if hasattr(s, "transform") and not hasattr(s, "columns") else f"run{i + 1}"
                 for i, s in enumerate(systems)] if names is None else list(names)
    if len(names) != len(systems) or len(set(names)) != len(names):
        raise InputError(f"names must be one distinct name per system ({len(systems)}); got {names!r}",
                         field="names")
    if not systems:
        raise InputError("no system to evaluate", field="retr_systems")
    labels = [_label(m) for m in eval_metrics]
    if not labels:
        raise InputError("no measure given", field="eval_metrics")
    keep = None
    if filter_by_topics and topics is not None:
        keep = set(topics["qid"].astype(str))
        qrels = qrels[qrels["qid"].astype(str).isin(keep)]
    runs = {}
    for name, system in zip(names, systems):
        frame = _results(system, topics)
        if keep is not None:
            frame = frame[frame["qid"].astype(str).isin(keep)]
        runs[name] = interop.as_run(frame, name=name)
    res = evaluate(interop.as_qrels(qrels), runs, labels, missing=missing)
    if perquery:
        rows = [(name, q, label, float(v)) for name in names for label in labels
                for q, v in zip(res.runs[name].query_ids, res.runs[name].values[label].tolist())]
        return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])
    table: dict[str, list[Any]] = {"name": list(names)}
    for label in labels:
        table[label] = [float(res.runs[n].means[label]) for n in names]
    if baseline is not None:
        base = names[baseline] if isinstance(baseline, int) and not isinstance(baseline, bool) else baseline
        if base not in names:
            raise InputError(f"no system {baseline!r} (names: {', '.join(names)})", field="baseline")
        comps = compare(res, baseline=base, metrics=labels, test=test, correction=correction or "none",
                        family="metric", alpha=correction_alpha, n_resamples=n_resamples, seed=seed,
                        simultaneous=False)
        by = {(c.run, c.metric): c for c in comps}
        for label, metric in zip(labels, res.metrics):
            b = res.runs[base].values[label]
            better, worse, p, reject, p_corr = [], [], [], [], []
            for n in names:
                if n == base:
                    better.append(math.nan), worse.append(math.nan), p.append(math.nan), p_corr.append(math.nan)
                    reject.append(False)
                    continue
                a = res.runs[n].values[label]
                c = by[(n, metric)]
                better.append(float(np.count_nonzero(a > b)))
                worse.append(float(np.count_nonzero(a < b)))
                p.append(float(_p(c)))
                p_corr.append(float(c.p_adj))
                reject.append(bool(c.p_adj < correction_alpha))
            table[f"{label} +"], table[f"{label} -"], table[f"{label} p-value"] = better, worse, p
            if correction is not None:
                table[f"{label} reject"], table[f"{label} p-value corrected"] = reject, p_corr
    out = pd.DataFrame(table)
    if round is not None:
        out[labels] = out[labels].round(round)
    return out
