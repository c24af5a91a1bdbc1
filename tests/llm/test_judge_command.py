"""``hcrbench judge --input`` through the console script against real HTTP servers on 127.0.0.1 (scripted answers):
conditional evaluation, a second judge's agreement (against scikit-learn and scipy), calibration, settings from
flags and variables, the cache key and the log, hygiene on the prompt template (not the retrieved text)."""

from __future__ import annotations

import json
import os
import socket
import subprocess

import pytest

from hcrbench.llm import LLMClient, LLMConfig
from hcrbench.llm.agreement import calibration, judge_agreement, stratified_sample
from hcrbench.llm.judge import run_sufficiency_judge

RECORDS = [
    {"id": "r1", "question": "QUESTION-1 how long are backups kept", "context": "Backups are kept 30 days.",
     "reference": "30 days", "label": True},
    {"id": "r2", "question": "QUESTION-2 who rotates keys", "context": "The dense forest.", "reference": "ops",
     "label": False},
    {"id": "r3", "question": "QUESTION-3 when are laptops refreshed", "context": "Every three years.",
     "answer": "every 3 years", "reference": "three years", "label": True},
    {"id": "r4", "question": "QUESTION-4 what failed", "context": "Nothing relevant.", "label": False},
]


def _reply(flip: set[str]):
    """Sufficient for r1, r3 (and whichever ids are in ``flip`` get the opposite); answers and correctness."""
    def reply(body):
        text = body["messages"][-1]["content"]
        if "Reply with a single digit" in text:
            return 200, "1"
        if "Answer the question using only the references" in text:
            return 200, "30 days"
        for i in range(1, 5):
            if f"QUESTION-{i}" in text:
                label = i in (1, 3)
                if f"r{i}" in flip:
                    label = not label
                return 200, f'### EVALUATION (JSON)\n{{"Sufficient Context": {int(label)}}}'
        return 200, "?"
    return reply


def _run(args, env_extra, tmp_path):
    env = {**os.environ, "HCRBENCH_PROGRESS": "0", "HCRBENCH_CACHE": str(tmp_path / "cache"), **env_extra}
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def second():
    from tests.llm.conftest import FakeOpenAI

    s = FakeOpenAI()
    yield s
    s.stop()


def test_judge_input_conditional_second_judge_and_calibration(server, second, tmp_path):
    server.replies = _reply(set())
    second.replies = _reply({"r2"})  # the second judge disagrees on one record of four
    second.models = [{"id": "judge-two", "meta": {"size": 1}}]
    inp = tmp_path / "recs.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    r = _run(["judge", "--input", str(inp), "--judge2", second.url, "--no-repeat", "--max-tokens", "40",
              "--concurrency", "3"], {"HCRBENCH_LLM_BASE_URL": server.url, "HCRBENCH_LLM_MODEL": "m1",
                                      "HCRBENCH_LLM_TIMEOUT": "7"}, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "judged 4/4" in r.stderr and "timeout 7 s, max tokens 40, retries 1, concurrency 3" in r.stderr
    doc = json.loads((tmp_path / "recs.judged.json").read_text())
    assert doc["labels"] == {"r1": True, "r2": False, "r3": True, "r4": False} and doc["rate"] == 0.5
    m = doc["judge"]
    assert m["max_tokens"] == 40 and m["timeout"] == 7.0 and m["concurrency"] == 3 and m["model"] == "m1"
    assert all(q["max_tokens"] == 40 for q in server.requests if "EVALUATION" in q["messages"][-1]["content"])
    # conditional: correctness asked only where sufficient (r1, r3; r2 has a reference but is insufficient)
    c = doc["conditional"]
    assert c["n_with_reference"] == 3 and c["sufficient"] == 2 and set(c["items"]) == {"r1", "r3"}
    assert c["items"]["r3"]["answer"] == "every 3 years" and c["items"]["r1"]["generated"]
    assert c["p_correct_given_sufficient"] == 1.0
    assert doc["calibration"]["status"] == "calibrated" and doc["calibration"]["kappa"] == 1.0
    # agreement of the two judges, against scikit-learn and scipy directly
    from scipy.stats import kendalltau
    from sklearn.metrics import cohen_kappa_score

    a, b = [1, 0, 1, 0], [1, 1, 1, 0]
    ag = doc["agreement"]
    assert ag["kappa"] == pytest.approx(cohen_kappa_score(a, b))
    assert ag["kendall_tau"] == pytest.approx(kendalltau(a, b).statistic)
    assert ag["disagreement"] == 0.25 and ag["disagreement_flagged"]
    assert doc["judge2"]["judge"]["model"] == "judge-two"  # the model its server lists
    assert "second judge judge-two" in r.stdout and "flagged" in r.stdout
    assert "calibrated" in r.stdout and r.stdout.strip().splitlines()[-1].startswith("->")
    # the log: timestamps and prompt ids
    log = [json.loads(x) for x in (tmp_path / "cache" / "llm" / "log.jsonl").read_text().splitlines()]
    assert all(x["time"].endswith("+00:00") and x["prompt_id"] for x in log)
    assert any(x["prompt_id"] == "sufficiency/r2/w0/r0" for x in log)


def test_bad_endpoint_and_bad_records_are_one_line_errors(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inp = tmp_path / "recs.jsonl"
    inp.write_text(json.dumps(RECORDS[0]) + "\n")
    env = {"HCRBENCH_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1", "HCRBENCH_LLM_MODEL": "m"}
    r = _run(["judge", "--input", str(inp), "--retries", "0"], env, tmp_path)
    assert r.returncode == 2 and "no judgement came back" in r.stderr and "Traceback" not in r.stderr
    assert not list((tmp_path / "cache" / "llm").glob("*/*.json"))  # nothing cached
    inp.write_text(json.dumps({"id": "x", "question": "q"}) + "\n")
    r = _run(["judge", "--input", str(inp)], env, tmp_path)
    assert r.returncode == 2 and f"{inp}:1" in r.stderr and "context" in r.stderr
    r = _run(["judge", "--input", str(inp)], {**env, "HCRBENCH_LLM_CONCURRENCY": "0"}, tmp_path)
    assert r.returncode == 2 and "HCRBENCH_LLM_CONCURRENCY" in r.stderr


def test_timeouts_and_unparseable_answers_are_failures_never_cached(server, tmp_path):
    import time

    def slow(body):
        time.sleep(1.0)
        return 200, '{"Sufficient Context": 1}'

    server.replies = slow
    c = LLMClient(LLMConfig(base_url=server.url, model="m", cache_dir=str(tmp_path / "c"), timeout=0.2,
                            max_retries=0))
    rep = run_sufficiency_judge(c, [("q1", "Q", "ctx")], repeat=False, sensitivity_queries=0)
    assert rep.n_failed == 1 and "timed out" in rep.failures["q1"].lower()
    server.replies = lambda body: (200, "I cannot tell")
    rep = run_sufficiency_judge(c, [("q2", "Q2", "ctx")], repeat=False, sensitivity_queries=0)
    assert rep.failures == {"q2": "no label in the answer"} and rep.flags().startswith("not checked")
    # the answer itself is stored (a call that worked) but the unreadable label is not scored; a timeout stores none
    assert len(list((tmp_path / "c").glob("*/*.json"))) == 1


def test_cache_key_holds_endpoint_and_served_identity(server, tmp_path):
    server.replies = lambda body: (200, "answer")
    server.models = [{"id": "gemma@aaaa", "meta": {"size": 1}}]
    cfg = LLMConfig(base_url=server.url, model="gemma@aaaa", cache_dir=str(tmp_path / "c"))
    c1 = LLMClient(cfg)
    assert c1.complete("hi").ok and c1.calls == 1
    assert LLMClient(cfg).complete("hi").cached  # same endpoint, same model: from the cache
    server.models = [{"id": "gemma@aaaa", "meta": {"size": 2}}]  # another file behind the same name
    c3 = LLMClient(cfg)
    r = c3.complete("hi")
    assert not r.cached and c3.calls == 1
    other = LLMConfig(base_url=server.url + "/", model="gemma@aaaa", cache_dir=str(tmp_path / "c"))
    assert LLMClient(other).complete("hi").cached  # a trailing slash is the same endpoint
    f = tmp_path / "model.gguf"
    f.write_bytes(b"weights")
    c4 = LLMClient(LLMConfig(base_url=server.url, model="gemma@aaaa", cache_dir=str(tmp_path / "c"),
                             model_file=str(f)))
    assert not c4.complete("hi").cached  # the local file's hash is part of the key


def test_hygiene_checks_the_prompt_template_not_the_retrieved_text(server, tmp_path):
    server.replies = lambda body: (200, '{"Sufficient Context": 1}')
    c = LLMClient(LLMConfig(base_url=server.url, model="m", cache_dir=str(tmp_path / "c")))
    rep = run_sufficiency_judge(c, [("q1", "what is dense retrieval", "dense vectors and bm25 scores")],
                                system_names=["dense", "bm25"], repeat=False, sensitivity_queries=0)
    assert rep.n_failed == 0 and rep.labels == {"q1": True}


def test_settings_from_variables_and_flags(monkeypatch):
    monkeypatch.setenv("HCRBENCH_LLM_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("HCRBENCH_LLM_MODEL", "m")
    monkeypatch.setenv("HCRBENCH_LLM_MAX_TOKENS", "99")
    monkeypatch.setenv("HCRBENCH_LLM_RETRIES", "3")
    cfg = LLMConfig.from_env(max_tokens=None, max_retries=0)
    assert cfg.max_tokens == 99 and cfg.max_retries == 0 and cfg.timeout == 120.0 and cfg.concurrency == 2


def test_calibration_and_stratified_sample():
    exact = {f"q{i}": i % 2 == 0 for i in range(10)}
    assert calibration(exact, exact)["status"] == "calibrated"
    noisy = {q: (not v if q in ("q0", "q1", "q2", "q3") else v) for q, v in exact.items()}
    cal = calibration(noisy, exact)
    from sklearn.metrics import cohen_kappa_score

    qs = sorted(exact)
    assert cal["kappa"] == pytest.approx(cohen_kappa_score([noisy[q] for q in qs], [exact[q] for q in qs]))
    assert cal["status"] == "uncalibrated"
    assert calibration({q: True for q in exact}, {q: True for q in exact})["status"] == "undecidable"
    ids = [f"q{i}" for i in range(20)]
    strata = {q: ("a" if i < 16 else "b", i % 2) for i, q in enumerate(ids)}
    got = stratified_sample(ids, strata, 8, seed=1)
    assert len(got) == 8 and got == stratified_sample(ids, strata, 8, seed=1)
    assert {strata[q] for q in got} == {("a", 0), ("a", 1), ("b", 0), ("b", 1)}  # every stratum drawn
    assert judge_agreement({"a": True}, {"a": True})["kappa"] is None
