"""Measure-string parsing: ir_measures syntax, trec_eval names, per-measure thresholds, clear errors."""

from __future__ import annotations

import pytest

from hcrbench.errors import InputError
from hcrbench.metrics import Measure, parse_measure, parse_measures, trec_eval_name


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("nDCG@10", "nDCG@10"), ("ndcg@10", "nDCG@10"), ("NDCG", "nDCG"), ("nDCG", "nDCG"),
        ("R@100", "R@100"), ("Recall@100", "R@100"), ("RR", "RR"), ("MRR@10", "RR@10"), ("P@5", "P@5"),
        ("AP", "AP"), ("MAP", "AP"), ("AP@10", "AP@10"), ("Success@3", "Success@3"), ("R-Prec", "Rprec"),
        ("Rprec", "Rprec"), ("Judged@10", "Judged@10"), ("Judged", "Judged"), ("P(rel=2)@5", "P(rel=2)@5"),
        ("AP(rel=2)", "AP(rel=2)"), ("RR(rel=3)@10", "RR(rel=3)@10"), ("NumRel", "NumRel"),
        # trec_eval names
        ("ndcg_cut_10", "nDCG@10"), ("ndcg_cut.10", "nDCG@10"), ("P_5", "P@5"), ("map", "AP"),
        ("map_cut_100", "AP@100"), ("recip_rank", "RR"), ("recall_1000", "R@1000"), ("success_1", "Success@1"),
        ("unj_10", "Unjudged@10"), ("ndcg", "nDCG"), ("num_rel_ret", "NumRelRet"), ("num_ret", "NumRet"),
    ],
)
def test_parses_known_spellings(spec, name):
    assert parse_measure(spec).name == name


def test_comma_list_keeps_order_drops_duplicates_and_respects_parentheses():
    ms = parse_measures("nDCG@10, R@100,RR,P(rel=2)@5,ndcg_cut_10")
    assert [m.name for m in ms] == ["nDCG@10", "R@100", "RR", "P(rel=2)@5"]
    assert parse_measures(["AP", "P@5,P@10"]) == [Measure("AP"), Measure("P", 5), Measure("P", 10)]


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("nDCG@ten", "cutoff must be an integer"), ("P", "needs a cutoff"), ("foo@3", "unknown measure"),
        ("Rprec@5", "takes no cutoff"), ("nDCG(rel=2)@10", "raw grades"), ("P(gain=2)@5", "unknown parameter"),
        ("P@0", "positive"), ("", "no measures"), ("ndcg_cut", "unknown measure"), ("@@", "cannot parse"),
    ],
)
def test_bad_measures_are_one_line_input_errors(spec, problem):
    with pytest.raises(InputError, match=problem) as e:
        parse_measures(spec)
    assert e.value.field == "metrics" and "\n" not in str(e.value)


def test_trec_eval_names_round_trip():
    for name in ["map", "map_cut_10", "recip_rank", "P_5", "recall_100", "ndcg", "ndcg_cut_10", "Rprec",
                 "success_5", "unj_20", "num_rel", "num_ret", "num_rel_ret"]:
        assert trec_eval_name(parse_measure(name)) == name
    assert trec_eval_name(parse_measure("Judged@10")) is None
    assert trec_eval_name(parse_measure("P(rel=2)@5")) is None


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("hits@5", "Hits@5"), ("Hits", "Hits"), ("NumRet(rel=2)", "NumRet(rel=2)"), ("bpref", "Bpref"),
        ("infAP", "infAP"), ("gm_map", "GMAP"), ("iprec_at_recall_0.10", "IPrec@0.1"), ("IPrec@0.1", "IPrec@0.1"),
        ("11pt_avg", "11pt_avg"), ("set_P", "SetP"), ("set_recall", "SetR"), ("set_F", "SetF"),
        ("SetF(beta=0.5)", "SetF(beta=0.5)"), ("ERR@10", "ERR@10"), ("nERR@5", "nERR@5"), ("RBP", "RBP"),
        ("RBP(p=0.8)", "RBP"), ("rbp", "RBP(p=0.9)"), ("RBP(rel=2,p=0.9)", "RBP(rel=2,p=0.9)"),
        ("nDCG(dcg=exp-log2)@10", "nDCG(dcg=exp-log2)@10"), ("nDCG(dcg='exp-log2')@10", "nDCG(dcg=exp-log2)@10"),
        ("ndcg_burges@10", "nDCG(dcg=exp-log2)@10"), ("nDCG(dcg=log2)@10", "nDCG@10"),
        ("alpha_nDCG(alpha=0.3)@10", "alpha_nDCG(alpha=0.3)@10"), ("hit_rate@3", "Success@3"),
    ],
)
def test_parses_new_measure_spellings(spec, name):
    assert parse_measure(spec).name == name
    assert parse_measure(parse_measure(spec).name) == parse_measure(spec)  # the canonical name round-trips


def test_ir_measures_names_of_the_new_measures_parse_to_the_same_measure():
    import ir_measures as irm

    for m in [irm.nDCG(dcg="exp-log2") @ 10, irm.RBP(rel=2, p=0.9), irm.SetF(beta=0.5), irm.IPrec @ 0.1,
              irm.ERR @ 10, irm.NumRet(rel=2), irm.alpha_nDCG(alpha=0.3) @ 10, irm.Bpref, irm.infAP, irm.SetP]:
        assert parse_measure(str(m)).name == str(m).replace("'", "")


def test_trec_eval_multi_cutoff_syntax():
    assert [m.name for m in parse_measures("ndcg_cut.5,10,P.5,20,map")] == ["nDCG@5", "nDCG@10", "P@5", "P@20", "AP"]
    assert [m.name for m in parse_measures("iprec_at_recall.0.1,0.5")] == ["IPrec@0.1", "IPrec@0.5"]
    with pytest.raises(InputError, match=r"cannot parse|unknown"):
        parse_measures("map,10")  # a bare number after a measure without cutoffs is not a cutoff


@pytest.mark.parametrize(("spec", "problem"), [("RBP(p=1.5)", "p must be"), ("IPrec@1.5", "recall level"),
                                               ("IPrec", "recall level"), ("nDCG(dcg=cubic)@10", "dcg must be"),
                                               ("ERR", "needs a cutoff"), ("ERR(rel=2)@5", "raw grades"),
                                               ("bpref@10", "takes no cutoff"), ("SetF(beta=-1)", "positive")])
def test_bad_new_measures_are_one_line_input_errors(spec, problem):
    with pytest.raises(InputError, match=problem) as e:
        parse_measures(spec)
    assert "\n" not in str(e.value)


def test_new_trec_eval_names_round_trip():
    for name in ["bpref", "infAP", "gm_map", "iprec_at_recall_0.10", "11pt_avg", "set_P", "set_recall", "set_F"]:
        assert trec_eval_name(parse_measure(name)) == name
