"""The context step judges a (query, units) context once: a system whose contexts repeat another's (or its own
at another budget) reads the earlier judgements, and every file and figure is what judging anew gives."""

from __future__ import annotations

from types import SimpleNamespace

import hcrbench.experiment.context_judge as cj
from hcrbench.context.candidates import Candidate
from hcrbench.data.evidence import EvidenceSpan, QueryEvidence

TEXT = "The key rotates every quarter. Backups last thirty days. Nothing else matters here at all."


def _cands(order: list[int]) -> list[Candidate]:
    sents = ["The key rotates every quarter.", "Backups last thirty days.", "Nothing else matters here at all."]
    out = []
    for r, i in enumerate(order):
        a = TEXT.index(sents[i])
        out.append(Candidate(f"d1#{i}", "d1", a, a + len(sents[i]), sents[i], 6, float(10 - r), r))
    return out


def _judge(tmp_path, name: str, order: list[int], memo):
    ev = {"q": QueryEvidence("q", ["F1"], [EvidenceSpan("d1", 0, 30, "The key rotates every quarter.", "F1")], [],
                             answer="thirty days")}
    cfg = SimpleNamespace(context=SimpleNamespace(selection_signals="tfidf", stop_at_overflow=False, mmr_lambda=0.5))
    cands = _cands(order)
    return cj.judge_system(name, lambda q, b: cands, "greedy", [6, 12, 18, None], ["q"], SimpleNamespace(), cfg,
                           None, {}, ev, {"q": ["d1"]}, {"d1": TEXT}, "whitespace", 12, tmp_path, memo)


def test_a_repeated_context_is_judged_once_and_judged_the_same(tmp_path, monkeypatch):
    (tmp_path / "contexts").mkdir()
    calls = []
    real = cj.judge
    monkeypatch.setattr(cj, "judge", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    alone = [_judge(tmp_path, n, o, None) for n, o in (("a", [0, 1, 2]), ("b", [0, 1, 2]), ("c", [1, 0, 2]))]
    texts = {n: (tmp_path / "contexts" / f"{n}.jsonl").read_bytes() for n in "abc"}
    n_alone, calls[:] = len(calls), []
    memo: dict = {}
    shared = [_judge(tmp_path, n, o, memo) for n, o in (("a", [0, 1, 2]), ("b", [0, 1, 2]), ("c", [1, 0, 2]))]
    assert [s[0] for s in shared] == [a[0] for a in alone]
    assert all(s[1]["mean_tokens"] == a[1]["mean_tokens"] for s, a in zip(shared, alone))
    assert {n: (tmp_path / "contexts" / f"{n}.jsonl").read_bytes() for n in "abc"} == texts
    # b repeats a's contexts, c's differ in order (another reading order: judged anew); budgets 18 and
    # unconstrained select the same three units
    assert n_alone == 12 and len(calls) == 6
    assert alone[0][0]["6"]["evidence_coverage"] == [True] and alone[2][0]["6"]["evidence_coverage"] == [False]
