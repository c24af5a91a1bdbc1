"""The routing checkpoint's query set and eps on a hand-made tree and routing log: it passes when the beam keeps
each target's branch and kills when it drops it on more than 10% of the easy single-target queries."""

from __future__ import annotations

from pathlib import Path

from hcrbench.data.tree import LevelLog, RoutingRecord, Tree, TreeNode, write_routing_log, write_tree
from hcrbench.data.types import Corpus, Qrels, Queries
from hcrbench.experiment.dataset import ExperimentData
from hcrbench.protocol.rules import easy_routing
from hcrbench.protocol.verdicts import easy_single_branch, single_target_queries

# root 0 -> branches 1 (docs a*, chunks 0-1) and 2 (docs b*, chunks 2-3); one routing level below the root
TREE = Tree([TreeNode(0, 0, None, [1, 2]), TreeNode(1, 1, 0, chunks=[0, 1]), TreeNode(2, 1, 0, chunks=[2, 3])],
            ["c0", "c1", "c2", "c3"], ["a1", "a2", "b1", "b2"])


def _data(n_easy: int) -> ExperimentData:
    qids = [f"q{i}" for i in range(n_easy + 3)]
    meta = [{"difficulty": "easy"}] * n_easy + [{"difficulty": "hard"}] * 2 + [{"difficulty": "easy"}]
    qrels = {q: {"a1" if i % 2 == 0 else "b1": 2, "a2": 1} for i, q in enumerate(qids)}
    qrels[qids[-1]] = {"a1": 2, "b1": 2}  # two top-graded targets: not single-target
    corpus = Corpus(["a1", "a2", "b1", "b2"], ["x"] * 4, [""] * 4, [{}] * 4)
    return ExperimentData(corpus, Queries(qids, ["t"] * len(qids), meta), Qrels.from_dict(qrels), "test",
                          Path("."), {})


def _log(out: Path, data: ExperimentData, wrong: set[str]) -> None:
    recs = []
    for q in data.queries.query_ids:
        target = max(data.qrels[q], key=lambda d: data.qrels[q][d])
        good = 1 if target.startswith("a") else 2
        beam = [3 - good] if q in wrong else [good]
        recs.append(RoutingRecord(q, [LevelLog(1, [[1, 0.5], [2, 0.4]], beam)]))
    (out / "logs").mkdir(parents=True, exist_ok=True)
    write_routing_log(recs, out / "logs" / "hcr.routing.jsonl")
    write_tree(TREE, out / "logs" / "hcr.tree.jsonl")


def test_single_target_queries_prefer_easy_and_judge_the_target_only():
    data = _data(6)
    chosen, tiers = single_target_queries(data)
    assert tiers == "easy" and sorted(chosen) == [f"q{i}" for i in range(6)]  # not the hard ones, not q8
    assert chosen["q0"] == {"a1": 2} and chosen["q1"] == {"b1": 2}
    few, tiers = single_target_queries(_data(3))  # fewer than 5 easy: widened to medium (none here)
    assert tiers == "easy+medium" and len(few) == 3


def test_routing_checkpoint_passes_and_kills_on_the_logged_beam(tmp_path):
    data = _data(10)
    _log(tmp_path, data, wrong=set())
    eps, n, _ = easy_single_branch(tmp_path, "hcr", data)
    assert (eps, n) == ([0.0], 10) and easy_routing(eps, n)["status"] == "pass"
    _log(tmp_path, data, wrong={"q0"})  # 1 of 10 easy queries loses its branch: eps 0.10, still a pass
    eps, n, _ = easy_single_branch(tmp_path, "hcr", data)
    assert eps == [0.1] and easy_routing(eps, n)["status"] == "pass"
    _log(tmp_path, data, wrong={"q0", "q3", "q11"})  # q11 is hard: not counted; 2 of 10 -> eps 0.2: kill
    eps, n, _ = easy_single_branch(tmp_path, "hcr", data)
    assert eps == [0.2] and easy_routing(eps, n)["status"] == "kill"


def test_routing_checkpoint_is_not_run_without_a_log_or_enough_queries(tmp_path):
    eps, n, why = easy_single_branch(tmp_path, "hcr", _data(10))
    assert eps is None and "no routing log" in why
    data = _data(3)
    _log(tmp_path, data, wrong=set())
    eps, n, why = easy_single_branch(tmp_path, "hcr", data)
    assert eps is None and n == 3 and "needs >= 5" in why
    assert easy_routing(eps, n, why)["status"] == "not run"
