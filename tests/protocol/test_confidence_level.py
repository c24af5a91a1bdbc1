"""``[protocol] confidence``: every rule's decision interval is computed at the level in force (z, t, Wilson,
Fisher, CR2, betting and the power figures), and the default level leaves every figure as it was."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from hcrbench.experiment.protocol_config import ProtocolConfig
from hcrbench.protocol import checkpoints as cp
from hcrbench.protocol import hypotheses as hy
from hcrbench.protocol import operating as opc
from hcrbench.protocol import registry as reg
from hcrbench.protocol import rules
from hcrbench.protocol.subject import margin_interval
from hcrbench.stats.cluster import cluster_ci


def _width(iv) -> float:
    return float(iv[1] - iv[0])


def _rows(diffs: np.ndarray) -> dict[str, list[float]]:
    """The interval of every kind of rule on the same data, at the level in force."""
    base = np.clip(0.5 + 0.1 * np.sin(np.arange(diffs.size)), 0, 1)
    a = np.clip(base + diffs, 0, 1)
    run = lambda v: SimpleNamespace(query_ids=[f"q{i}" for i in range(v.size)], values={"nDCG@10": v})  # noqa: E731
    lo, hi, _ = margin_interval(run(a), run(base), "nDCG@10", None)
    m = rules.mean_ci(a - base)
    clusters = [i % 7 for i in range(diffs.size)]
    cl = cluster_ci(a - base, None, clusters, confidence=rules.confidence())
    return {
        "tree_sanity": cp.tree_sanity(0.2, 0.1, 40)["interval"],
        "easy_routing": cp.easy_routing([0.08, 0.05], [60, 60], 60)["interval"],
        "vs_kill_baseline (betting)": [lo, hi],
        "token_efficiency / H1a (normal)": [m[1], m[2]],
        "H1a unpaired": list(hy._unpaired(0.6, 0.55, 80)),
        "H1c (Fisher)": hy.h1c([0.5, 0.6, 0.7, 0.8, 0.9], [0.3, 0.42, 0.41, 0.55, 0.6])["interval"],
        "failure_rate (Wilson)": hy.failure_rate(0.22, 90)["interval"],
        "kill (CR2)": [cl.low, cl.high],
    }


def test_every_rule_is_wider_at_99_than_at_95_on_the_same_data():
    rng = np.random.default_rng(7)
    diffs = rng.normal(0.01, 0.15, 70)
    at95 = _rows(diffs)
    with rules.at_confidence(0.99):
        at99 = _rows(diffs)
        power99 = reg.n_for_power(0.2, 0.03), reg.n_for_power_proportion(reg.get("failure_rate"))
    assert rules.confidence() == 0.95  # restored on exit
    for name in at95:
        assert _width(at99[name]) > _width(at95[name]) * 1.05, name
    assert power99[0] > reg.n_for_power(0.2, 0.03) and power99[1] > reg.n_for_power_proportion(reg.get("failure_rate"))


def test_the_replays_decide_less_often_at_a_higher_level():
    rule = reg.get("kill")
    x = np.random.default_rng(1).normal(0.03, 0.2, 300)
    got = {}
    for level in (0.95, 0.99):
        with rules.at_confidence(level):
            codes = opc.replay_signflip(rule, x, 120, 0.04, 2000, np.random.default_rng(5))
            got[level] = float(np.mean(codes != reg.UND))
    assert got[0.99] < got[0.95]


def test_the_default_level_leaves_every_figure_as_it_was():
    assert rules.z_level() == rules.Z95 and rules.pct() == "95%" and rules.alpha_level() == rules.ALPHA
    assert reg.nominal_one_sided() == reg.NOMINAL_ONE_SIDED
    z = 1.959963984540054  # the figures before the level was a setting
    p, n = 0.3, 50
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    assert rules.wilson(15, 50) == (centre - half, centre + half)
    assert "95% (mean ± 1.96 sd" in cp.tree_sanity(0.2, 0.1, 40)["interval_kind"]
    assert reg.n_for_power(0.2, 0.03) == reg.n_for_power(0.2, 0.03, alpha=1 - 0.95)
    assert "confidence" not in ProtocolConfig(system="s").model_dump(mode="json")
    assert ProtocolConfig(system="s", confidence=0.99).model_dump()["confidence"] == 0.99
    with rules.at_confidence(0.99):
        assert rules.pct() == "99%" and "99% (mean" in cp.tree_sanity(0.2, 0.1, 40)["interval_kind"]


def test_a_level_outside_its_range_is_refused():
    for bad in (1.0, 0.2, float("nan")):
        with pytest.raises(ValueError), rules.at_confidence(bad):
            pass


CONFIG = """
name = "conf"
output_dir = "out{tag}"
seed = 0
metrics = ["nDCG@10"]
baseline = "rerank"
n_resamples = 300

[dataset]
path = "{bench}"
split = "test"

[protocol]
system = "hcr"
kill_baseline = "rerank"
flat = "bm25"
{extra}

[[systems]]
name = "hcr"
type = "hcr"
params = {{ backend = "hash", seed = 0, chunk_tokens = 64, chunk_overlap = 8 }}

[[systems]]
name = "rerank"
type = "hcr"
params = {{ backend = "hash", flat = true, chunk_tokens = 64, chunk_overlap = 8 }}

[[systems]]
name = "bm25"
type = "bm25"
"""


def _interval_rows(v: dict) -> dict[str, list[float]]:
    return {r["id"]: r["interval"] for r in (*v["checkpoints"], *v["hypotheses"]) if r.get("interval")}


@pytest.mark.slow
def test_a_run_at_99_widens_every_decided_interval_of_the_same_run_at_95(bench: Path, tmp_path: Path):
    docs = {}
    for tag, extra in (("95", ""), ("99", "confidence = 0.99")):
        cfg = tmp_path / f"exp{tag}.toml"
        cfg.write_text(CONFIG.format(tag=tag, bench=bench, extra=extra), encoding="utf-8")
        r = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], capture_output=True, text=True, check=False)
        assert r.returncode == 0, r.stderr[-2000:]
        docs[tag] = json.loads((tmp_path / f"out{tag}" / "verdicts.json").read_text(encoding="utf-8"))
    a, b = _interval_rows(docs["95"]), _interval_rows(docs["99"])
    assert {"vs_kill_baseline", "kill"} <= set(a) and set(a) == set(b)
    for rid in a:
        assert _width(b[rid]) > _width(a[rid]), rid
    assert "confidence" not in docs["95"] and docs["99"]["confidence"] == 0.99
    assert all("99%" in r["interval_kind"] for r in (*docs["99"]["checkpoints"], *docs["99"]["hypotheses"])
               if r.get("interval") and r.get("interval_kind"))
