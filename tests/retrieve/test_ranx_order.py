"""ranx's order of tied scores: the quicksort port against numba's own argsort, and what it changes in fusion."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.data import Run
from hcrbench.retrieve.fusion_methods import fuse
from hcrbench.retrieve.ranx_order import ranx_argsort, ranx_positions

numba = pytest.importorskip("numba", reason="numba (ranx's dependency) gives the reference argsort")


@numba.njit(cache=False)
def _numba_argsort(a):  # what ranx.data_structures.common.typed_list_argosrt calls
    return np.argsort(a)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=0, max_size=120))
def test_argsort_equals_numba_on_ties(values):
    a = np.array(values, dtype=np.float64)
    ours = ranx_argsort(a)
    assert ours.tolist() == _numba_argsort(a).tolist()
    assert np.all(np.diff(a[ours]) >= 0)


def test_ties_follow_ranx_not_doc_id():
    # 20 tied documents: numba's quicksort partitions them; trec_eval would list them by doc id descending
    d = {"q": {f"d{i:02d}": (1.0 if i % 3 else 2.0) for i in range(20)}}
    run = Run.from_dict(d)
    pos = ranx_positions(run)
    ref = np.empty(20, dtype=np.int64)
    ref[_numba_argsort(-run.scores)] = np.arange(1, 21)
    assert pos.tolist() == ref.tolist()
    ranx_rrf = fuse([run, run], "rrf", None)
    trec_rrf = fuse([run, run], "rrf", None, ties="trec")
    assert ranx_rrf.to_dict() != trec_rrf.to_dict()  # the two orders differ on this tie, and the mode decides
    from hcrbench.retrieve import fuse as exported
    from hcrbench.retrieve import rrf

    assert rrf([run, run], ties="ranx").to_dict() == ranx_rrf.to_dict() and exported is fuse
    assert rrf([run, run]).to_dict() == trec_rrf.to_dict()  # the hybrid system's default: trec_eval's order
    untied = Run.from_dict({"q": {f"d{i:02d}": float(i) for i in range(20)}})
    assert fuse([untied, untied], "rrf", ties="ranx").to_dict() == fuse([untied, untied], "rrf", ties="trec").to_dict()


@pytest.mark.slow  # imports ranx and JIT-compiles its sort (about 10 s on a quiet machine)
@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 4)), min_size=1, max_size=60, unique_by=lambda t: t[0]))
def test_positions_equal_ranx_runs_own_sorted_order(docs):
    import ranx

    d = {"q": {f"d{i}": float(s) for i, s in docs}}
    theirs = list(ranx.Run.from_dict(d).to_dict()["q"])  # ranx's sorted run: its order of the tied documents
    run = Run.from_dict(d)
    pos = ranx_positions(run)
    ours = [run.doc_vocab[run.doc_index[i]] for i in np.argsort(pos)]
    assert ours == theirs
