"""A rule is one object (hcrbench.protocol.ruleset): its margin and thresholds are read from it by its replay, its
power plan and its sentences alike; an undecided row says the n it was judged at and the n it needs as fields; no
code outside a rule's file branches on a rule id; the verdict words are one enum."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

import hcrbench
from hcrbench.protocol import batches
from hcrbench.protocol import checkpoints as cp
from hcrbench.protocol import field as fld
from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol import operating as opc
from hcrbench.protocol import registry as reg
from hcrbench.protocol.needs_given import n_given_queries
from hcrbench.protocol.row import Row, Undecided
from hcrbench.protocol.verdict import Verdict

PILOT = fld.Pilot("hcr", "rerank", "hcr-beam", tree=True)


@pytest.fixture
def swap(monkeypatch):
    """Put a changed copy of a registered rule in its place for the test (every reader sees it)."""
    def put(rid: str, **changes):
        new = dataclasses.replace(reg.get(rid), **changes)
        monkeypatch.setitem(reg.REGISTRY, rid, new)
        return new
    return put


def _plan(rid: str) -> dict[str, float]:
    return {e.label: e.margin for e in reg.get(rid).power_plan(PILOT)}


def _kill_state() -> tuple[list[float], dict[str, float], int | None, str, str]:
    rule = reg.get("kill")
    rng = np.random.default_rng(0)
    op = opc.operating(rule, opc.Inputs(n=60, diffs=rng.normal(0.0, 0.2, 60)), reps=200, seed=0)
    row = hy.single_kill(0.01, 0.5, -0.04, 0.06, None, n=60, full_size=True)
    return op["reported"], _plan("kill"), op["needs_n"], row["text"], rule.sentence()


def test_changing_a_rules_margin_changes_its_replay_power_plan_and_sentence_together(swap):
    truths, plan, needs, text, sentence = _kill_state()
    swap("kill", margin=0.06)
    truths2, plan2, needs2, text2, sentence2 = _kill_state()
    assert [t["truth"] for t in truths2] == [-0.12, -0.06, 0.0, 0.06, 0.12]  # the replay's known truths
    assert [t["truth"] for t in truths] == [-0.06, -0.03, 0.0, 0.03, 0.06]
    assert plan == {"kill": 0.03} and plan2 == {"kill": 0.06}  # the power plan's entry
    assert needs2 < needs  # the n the replay says it needs
    need = n_given_queries(reg.get("kill"), 0.01, 60, reg.sd_from(-0.04, 0.06, 60), 59)  # at the new margin
    assert reg.get("kill").margin == 0.06 and f"needs ~ {need:,}" in text2 and text2 != text  # the row's sentence
    assert "margin of 0.06" in sentence2 and "margin of 0.03" in sentence


def test_a_threshold_is_read_from_its_rule_by_its_row_its_criterion_and_its_old_name(swap):
    from hcrbench.protocol import rules

    before = cp.kill_baseline_margin(-0.03, -0.045, -0.025, 59)
    assert before["status"].startswith("stop") and ">= -0.02" in before["criterion"] and rules.KILL_MARGIN == 0.02
    swap("vs_kill_baseline", go=-0.05, nogo=-0.05)
    after = cp.kill_baseline_margin(-0.03, -0.045, -0.025, 59)
    assert after["status"] == "pass" and ">= -0.05" in after["criterion"] and after["threshold"] == -0.05
    assert rules.KILL_MARGIN == 0.05
    swap("H1b", margin=0.04)  # the margin alone: the single-path clause's power plan follows it
    assert reg.H1B_CLAUSES["single"].margin == 0.04 and _plan("H1b")["H1b vs single path"] == 0.04
    swap("H1b", nogo=0.05)
    assert reg.H1B_CLAUSES["single"].nogo == 0.05 and "CI wholly < +0.05: no-go" in hy.h1b(
        {"beam": {"delta": 0.01, "ci_low": -0.01, "ci_high": 0.03, "n": 50}}, None, None)["criterion"]


def test_n_needed_has_one_implementation_per_kind_of_figure():
    kill, rate, r = reg.get("kill"), reg.get("failure_rate"), reg.get("H1c")
    assert kill.n_needed(0.2) == reg.n_for_power(0.2, kill.margin)
    assert rate.n_needed() == reg.n_for_power_proportion(rate)
    assert r.n_needed() == reg.n_for_power_r(r.go, -r.margin)
    x = opc.Inputs(n=40, diffs=np.random.default_rng(1).normal(0, 0.3, 40))
    assert opc.needs_n(kill, x) == kill.n_needed(float(np.std(x.diffs, ddof=1)))


def test_an_undecided_row_carries_the_n_it_was_judged_at_and_the_n_it_needs():
    row = hy.single_kill(0.01, 0.5, -0.04, 0.06, None, n=60, full_size=True)
    need = n_given_queries(reg.get("kill"), 0.01, 60, reg.sd_from(-0.04, 0.06, 60), 59)  # given its 60 queries
    assert row["verdict"] == "not decidable" and f"(needs ~ {need:,})" in row["text"]  # the text is kept
    assert row["undecided"] == {"at_n": 60, "needs_n": need, "unit": None}
    assert Row.of(row).undecided == Undecided(60, need, None)
    decided = hy.single_kill(-0.1, 0.001, -0.15, -0.05, None, n=60, full_size=True)
    assert decided["verdict"] == "kill" and "undecided" not in decided
    r = hy.h1c([0.5, 0.6, 0.7, 0.8], [0.3, 0.5, 0.4, 0.6])
    assert r["verdict"] == "not decidable" and r["undecided"]["unit"] == "conditions"


def test_batches_read_the_field_not_the_text():
    row = {"id": "x", "name": "X", "verdict": "not decidable", "text": "not decidable at n = 10 (needs ~ 99)",
           "undecided": {"at_n": 300, "needs_n": 1200, "unit": None}}
    conditions = {"id": "y", "name": "Y", "verdict": "not decidable", "text": "not decidable at n = 300 (needs ~ 1)",
                  "undecided": {"at_n": 5, "needs_n": 81, "unit": "conditions"}}
    und = batches.undecided_for_queries({"hypotheses": [row, conditions]})
    assert und == [{"id": "x", "name": "X", "n": 300, "needs": 1200}]


def test_the_replay_rewrites_the_field_with_the_text():
    row = hy.corpus_size([{"size": "medium", "delta": 0.0, "subset": {"delta": 0.01, "p": 0.5, "ci_low": -0.03,
                                                                      "ci_high": 0.05, "n": 40}}])
    assert row["verdict"] == "not decidable"
    x = opc.Inputs(n=40, diffs=np.random.default_rng(2).normal(0.01, 0.3, 40))
    ops = opc.operating_all({"corpus_size": x}, reps=200, seed=0)
    gated = opc.gate_rows([row], ops)[0]
    need = ops["corpus_size"]["needs_n"]
    assert f"needs ~ {need:,}" in gated["text"] and gated["undecided"]["needs_n"] == need


def _rule_id_branches(ids: set[str]) -> list[str]:
    """Comparisons (==, !=, in, not in) and match cases against a rule id literal, outside the rules' files."""
    root = Path(hcrbench.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if "ruleset" in path.relative_to(root).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            values: list[ast.AST] = []
            if isinstance(node, ast.Compare):
                for c in (node.left, *node.comparators):
                    values += list(c.elts) if isinstance(c, (ast.Tuple, ast.List, ast.Set)) else [c]
            elif isinstance(node, ast.match_case):
                values = list(ast.walk(node.pattern))
            for v in values:
                val = getattr(v, "value", None)
                if isinstance(v, ast.Constant | ast.MatchValue) and (val in ids or getattr(val, "value", None) in ids):
                    found.append(f"{path.relative_to(root)}:{node.lineno if hasattr(node, 'lineno') else '?'}")
    return found


def test_no_code_outside_a_rules_file_branches_on_a_rule_id():
    assert _rule_id_branches(set(reg.REGISTRY)) == []


def test_the_check_finds_a_branch_on_a_rule_id(tmp_path, monkeypatch):
    """The check above can fail: a comparison with a rule id in a module is found."""
    src = tmp_path / "hcrbench"
    src.mkdir()
    (src / "__init__.py").write_text("")
    (src / "bad.py").write_text('def f(r):\n    return 1 if r["id"] == "H1a" else 0\n')
    monkeypatch.setattr(hcrbench, "__file__", str(src / "__init__.py"))
    assert _rule_id_branches(set(reg.REGISTRY)) == ["bad.py:2"]


def test_the_judge_walks_the_registry_in_order():
    order = [r.order for r in reg.rules()]
    assert order == sorted(order) and list(reg.REGISTRY) == [r.id for r in reg.rules()]
    assert [r.id for r in reg.rules("checkpoint")] == ["tree_sanity", "easy_routing", "vs_kill_baseline",
                                                        "token_efficiency"]
    assert reg.with_role("architecture").id == "kill" and reg.with_role("growth").id == "corpus_size"


def test_every_verdict_word_is_one_enum_with_its_severity_and_console_word():
    from hcrbench.protocol import rules
    from hcrbench.report.verdict_block import word

    assert [Verdict(w) for w in rules.HYPOTHESIS_ORDER] == [Verdict.NOGO, Verdict.SOFT, Verdict.INCONCLUSIVE,
                                                             Verdict.GO]
    assert Verdict.parse("stop and diagnose: routing") is Verdict.DIAGNOSE and Verdict.KILL.severity > 0
    assert f"{Verdict.GO}" == "go" and word("pass") == "go" and Verdict.INVALIDATED.style == "bold red"


def test_fail_fast_walks_the_checkpoints_in_order_and_stops_at_the_first_that_says_stop(monkeypatch):
    from types import SimpleNamespace

    from hcrbench.protocol.verdicts import FailFast

    class Toy(reg.Rule):
        def fail_fast(self, watch, runs):
            return "toy", {"status": "stop and diagnose: toy part", "text": "it broke"}

    toy = Toy("toy_stop", "Toy", "checkpoint", "x", "mean", go=0.0, nogo=0.0, margin=0.1, order=0.5)
    monkeypatch.setitem(reg.REGISTRY, toy.id, toy)
    cfg = SimpleNamespace(protocol=SimpleNamespace(system="s", kill_baseline="k", confidence=0.95), systems=[])
    watch = FailFast(cfg, None, Path("."))
    assert watch.check({}) == "checkpoint 1 (toy): stop and diagnose: toy part: it broke"
    assert watch.check({}) is None  # judged once
