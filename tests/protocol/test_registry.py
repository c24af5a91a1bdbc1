"""The rule registry (protocol/registry.py): one object per rule, every control able to fail, thresholds the rule
functions use, the controls module reading its expectations from it."""

from __future__ import annotations

import pytest

from hcrbench.protocol import controls as ctl
from hcrbench.protocol import registry as reg
from hcrbench.protocol.rules import INCONCLUSIVE, UNDECIDABLE


def _reachable(rule: reg.Rule) -> set[str]:
    words = {rule.positive, rule.negative, UNDECIDABLE}
    if rule.soft:
        words.add(rule.soft)
    if rule.id == "H1a":
        words.add(INCONCLUSIVE)
    return words


@pytest.mark.parametrize("rid", sorted(reg.REGISTRY))
def test_every_control_of_every_rule_can_fail(rid):
    """A control whose expected verdicts cover every verdict the rule can give certifies nothing (issue #33)."""
    rule = reg.get(rid)
    for control, expected in rule.controls.items():
        def ok(word, exp=expected):
            return any(word == e or word.startswith(e) for e in exp)
        wrong = {w for w in _reachable(rule) if not ok(w)}
        assert wrong, f"{rid}: control {control} can never fail"


def test_the_registry_holds_every_rule_once_with_its_thresholds():
    assert set(reg.REGISTRY) == {"tree_sanity", "easy_routing", "vs_kill_baseline", "token_efficiency", "H1a", "H1b",
                                 "H1c", "failure_rate", "corpus_size", "kill"}
    assert reg.needs_routing_log() == {"tree_sanity", "easy_routing", "H1b", "H1c"}
    with pytest.raises(ValueError):
        reg.register(reg.get("kill"))
    assert reg.get("kill").interval == "cluster-robust" and reg.get("kill").negative == "kill"
    for r in reg.REGISTRY.values():
        assert r.margin > 0 and len(r.truths()) == 5 and r.figure and r.name


def test_the_controls_module_reads_each_rules_expectations_from_the_registry():
    for rid, per in ctl.EXPECTED.items():
        for control, verdicts in per.items():
            assert reg.get(rid).controls[control] == verdicts and control in ctl.CONTROLS


def test_decide_handles_both_orientations_and_both_band_shapes():
    fr = reg.get("failure_rate")  # lower is better; go < 20%, no-go > 30%, soft wholly between
    assert reg.decide_one(fr, 0.05, 0.15) == reg.POS and reg.decide_one(fr, 0.35, 0.5) == reg.NEG
    assert reg.decide_one(fr, 0.21, 0.29) == reg.MID and reg.decide_one(fr, 0.15, 0.25) == reg.UND
    h1b = reg.H1B_CLAUSES["single"]  # go: > 0; no-go: < +0.03; both: soft (real but small)
    assert reg.decide_one(h1b, 0.01, 0.02) == reg.MID and reg.decide_one(h1b, 0.01, 0.08) == reg.POS
    assert reg.decide_one(h1b, -0.02, 0.02) == reg.NEG and reg.decide_one(h1b, -0.02, 0.05) == reg.UND
    assert reg.decide_one(reg.get("kill"), None, 0.1) == reg.UND


def test_each_rule_simulates_itself():
    from hcrbench.protocol.operating import Inputs

    got = reg.get("failure_rate").simulate(Inputs(n=100), reps=200)
    assert got["rule"] == "failure_rate" and got["n"] == 100 and "binomial" in got["constructions"]


def test_tree_only_rules_are_not_run_for_a_system_without_a_routing_log():
    from types import SimpleNamespace

    from hcrbench.protocol import checkpoints as cp
    from hcrbench.protocol import hypotheses as hy
    from hcrbench.protocol.gating import tree_only

    rows = [cp.tree_sanity(0.3, 0.05, 400), cp.easy_routing([0.0], [60], 60), cp.kill_baseline_margin(0.0, -0.1, 0.1, 59),
            hy.h1c([0.1, 0.5, 0.9, 0.3], [0.2, 0.4, 0.6, 0.3]), hy.single_kill(0.0, 0.5, -0.1, 0.1, 0.0, n=59)]
    cfg = SimpleNamespace(protocol=SimpleNamespace(system="bm25x"), systems=[SimpleNamespace(name="bm25x", type="bm25")])
    out = {r["id"]: r for r in tree_only(cfg, rows)}
    for rid in ("tree_sanity", "easy_routing", "H1c"):
        key = "status" if "status" in out[rid] else "verdict"
        assert out[rid][key] == "not run" and out[rid]["text"] == "not run: bm25x writes no routing log"
    assert out["vs_kill_baseline"]["status"] == "not decidable" and out["kill"]["verdict"] == "not decidable"
    hcr = SimpleNamespace(protocol=SimpleNamespace(system="h"), systems=[SimpleNamespace(name="h", type="hcr")])
    assert tree_only(hcr, rows) == rows
