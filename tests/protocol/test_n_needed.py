""""n needed" has one implementation (protocol/registry.n_for_power on hcrbench.stats.power.required_n): the power
plan, the rows' "(needs ~ M)" and the operating report give the same n for the same sd and margin, each rule at its
own margin from the registry, and no module of the protocol computes it through statsmodels."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import hcrbench
from hcrbench.protocol import checkpoints as cp
from hcrbench.protocol import field as fld
from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol import operating as op
from hcrbench.protocol import registry as reg
from hcrbench.stats.power import required_n

DIFFERENCE_RULES = [r for r in reg.REGISTRY.values() if r.kind == "difference"]


@settings(max_examples=60, deadline=None)
@given(st.floats(0.02, 0.6), st.sampled_from(DIFFERENCE_RULES), st.integers(0, 2**31))
def test_every_route_to_n_needed_gives_the_same_n_at_the_rules_margin(sd, rule, seed):
    want = required_n(rule.margin, sd)
    assert reg.n_for_power(sd, rule.margin) == want
    assert fld.n_needed(sd, rule.margin) == want
    z = np.random.default_rng(seed).standard_normal(50)
    d = (z - z.mean()) / z.std(ddof=1) * sd  # per-query differences whose sd is exactly sd
    assert op.needs_n(rule, op.Inputs(n=50, diffs=d)) == want


def test_an_undecided_rows_needs_n_and_the_operating_reports_are_one_figure():
    """The kill criterion and checkpoint 3: the row's own text, from the sd its interval implies, names the n the
    registry gives on that sd: the kill row's given the queries it holds (:mod:`hcrbench.protocol.needs_given`, on
    the paired t's n - 1 df), no fewer than a fresh sample's (the operating report's), and checkpoint 3's without its
    per-query differences the fresh sample's on the half-width / z."""
    from hcrbench.protocol.needs_given import n_given_queries

    n, lo, hi = 59, -0.02, 0.05
    sd = reg.sd_from(lo, hi, n)
    need = n_given_queries(reg.get("kill"), 0.015, n, sd, n - 1)
    assert need > reg.n_for_power(sd, reg.get("kill").margin)
    row = hy.single_kill(0.015, 0.4, lo, hi, None, n=n, full_size=True)
    assert row["verdict"] == "not decidable" and f"needs ~ {need:,}" in row["text"]
    row = cp.kill_baseline_margin(0.0, -0.05, 0.05, n)
    need = reg.n_for_power(reg.sd_from(-0.05, 0.05, n), reg.get("vs_kill_baseline").margin)
    assert f"needs ~ {need:,}" in row["text"]


def test_the_power_plan_reads_each_rules_margin_from_its_rule():
    pilot = fld.Pilot("hcr", "rerank", "hcr-beam", tree=True)
    got = {e.label: e.margin for r in reg.rules() for e in r.power_plan(pilot)}
    assert got["vs_kill_baseline"] == reg.get("vs_kill_baseline").margin
    assert got["kill"] == reg.get("kill").margin
    assert got["H1b vs single path"] == reg.get("H1b").margin
    src = Path(fld.__file__).read_text()
    plan = next(f for f in ast.parse(src).body if isinstance(f, ast.FunctionDef) and f.name == "power_plan")
    text = ast.get_source_segment(src, plan) or ""
    assert "KILL_MARGIN" not in text and "0.03" not in text


def test_no_protocol_or_stats_module_imports_statsmodels():
    root = Path(hcrbench.__file__).parent
    for folder in ("protocol", "stats"):
        for path in (root / folder).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                assert not any(n.split(".")[0] == "statsmodels" for n in names), path


def test_an_undecided_row_never_says_it_needs_an_n_it_already_has():
    from hcrbench.protocol.registry import text_undecidable

    assert text_undecidable(111, 460) == "not decidable at n = 111 (needs ~ 460)"
    reached = text_undecidable(111, 67)
    assert "needs ~" not in reached and "power 0.8 at the margin is reached at n ~ 67" in reached
    assert text_undecidable(5, 81, "conditions").endswith("(needs ~ 81 conditions)")
