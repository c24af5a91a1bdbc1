"""One measure registry: the gate takes metric names, aliases and refusals from ``hcrbench.metrics``."""

from __future__ import annotations

import pytest

from hcrbench.errors import InputError
from hcrbench.gate._kernels import parse_gate_metric
from hcrbench.metrics import parse_measure


@pytest.mark.parametrize("spec", ["nDCG@10", "ndcg_cut_10", "ndcg_cut.10", "NDCG@10", "recall@5", "R@5",
                                  "recall_5", "P@5", "P_5", "MRR@10", "RR", "recip_rank", "map", "MAP", "AP@100",
                                  "map_cut_100", "nDCG", "ndcg(dcg=log2)@10"])
def test_gate_names_are_the_registry_names(spec):
    assert parse_gate_metric(spec).name == parse_measure(spec).name


@pytest.mark.parametrize("spec", ["bpref", "ERR@10", "Hits@5", "hits@5", "Success@5", "P(rel=2)@5",
                                  "nDCG(dcg=exp-log2)@10", "ndcg_burges@10", "RBP", "IPrec@0.5", "Judged@10",
                                  "alpha_nDCG@10"])
def test_valid_measures_the_kernels_lack_are_refused_by_name(spec):
    parse_measure(spec)  # valid for evaluate
    with pytest.raises(InputError, match="the gate cannot compute") as e:
        parse_gate_metric(spec)
    assert e.value.field == "--metric" and "\n" not in str(e.value)


@pytest.mark.parametrize(("spec", "problem"), [("bleu@4", "unknown measure"), ("P", "needs a cutoff"),
                                               ("nDCG@0", "positive"), ("nDCG@x", "integer")])
def test_registry_errors_name_the_gate_flag(spec, problem):
    with pytest.raises(InputError, match=problem) as e:
        parse_gate_metric(spec)
    assert e.value.field == "--metric"
