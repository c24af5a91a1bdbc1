"""Protocol controls: the degraded control replaces ~30% of the kill baseline's rankings (seeded, deterministic),
the oracle ranks every relevant document first, and a rule whose control got the wrong verdict is reported as not
decidable on this dataset instead of judging the real system."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from hcrbench.data.types import Corpus, Qrels, Queries, Run
from hcrbench.protocol import controls as ctl
from hcrbench.protocol.checkpoints import kill_baseline_margin


def _ctx(seed: int = 0) -> SimpleNamespace:
    docs = [f"d{i}" for i in range(50)]
    qids = [f"q{i}" for i in range(40)]
    qrels = Qrels.from_dict({q: {f"d{i % 50}": 2, f"d{(i + 1) % 50}": 1} for i, q in enumerate(qids)})
    base = Run.from_dict({q: {d: float(10 - j) for j, d in enumerate(docs[i % 40: i % 40 + 10])}
                          for i, q in enumerate(qids)})
    data = SimpleNamespace(corpus=Corpus(docs, ["x"] * 50, [""] * 50, [{}] * 50), qrels=qrels,
                           queries=Queries(qids, ["t"] * 40, [{}] * 40), root=Path("."))
    return SimpleNamespace(cfg=SimpleNamespace(seed=seed, k=10, rel_threshold=1), data=data,
                           p=SimpleNamespace(kill_baseline="rerank"), cache={"kill_run": base})


def test_degraded_replaces_thirty_percent_of_rankings_deterministically():
    ctx = _ctx()
    run, hit = ctl.degraded_run(ctx)
    base = ctx.cache["kill_run"]
    assert len(hit) == 12  # 30% of 40 queries
    changed = {q for q in base.query_ids if run[q] != base[q]}
    assert changed <= hit and len(changed) >= 10 and all(len(run[q]) == len(base[q]) for q in base.query_ids)
    again, hit2 = ctl.degraded_run(_ctx())
    assert hit2 == hit and all(again[q] == run[q] for q in run.query_ids)
    _, other = ctl.degraded_run(_ctx(seed=1))
    assert other != hit


def test_oracle_ranks_the_relevant_documents_first_by_grade():
    ctx = _ctx()
    run = ctl.oracle_run(ctx)
    ranked = sorted(run["q3"].items(), key=lambda x: -x[1])
    assert [d for d, _ in ranked[:2]] == ["d3", "d4"] and len(ranked) == 10


def test_a_rule_whose_control_fails_is_not_decidable_on_this_dataset():
    row = kill_baseline_margin(-0.05, -0.08, -0.03, 100)
    controls = [{"control": "clone", "rule": "vs_kill_baseline", "expected": "pass or not decidable",
                 "got": "stop and diagnose: retrieval quality", "ok": False},
                {"control": "oracle", "rule": "vs_kill_baseline", "expected": "pass", "got": "pass", "ok": True}]
    out = ctl.apply([row], controls)[0]
    assert out["status"] == "not decidable" and out["before_controls"] == row["status"]
    assert out["text"].startswith("not decidable on this dataset: control clone got stop and diagnose")
    assert ctl.undecidable_rules(controls) == ["vs_kill_baseline"]
    assert ctl.apply([row], controls[1:])[0] == row  # every control right: the rule judges the system
