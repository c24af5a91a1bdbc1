"""LLMClient against a real local HTTP server: cache, retries, outage, rate limit; the judge's bookkeeping."""

from __future__ import annotations

import socket
import time
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.errors import InputError
from hcrbench.llm import LLMClient, LLMConfig
from hcrbench.llm.judge import (
    check_no_system_ids,
    cohens_kappa,
    conditional_decomposition,
    judge_sufficiency,
    pairwise_preference,
    parse_label,
    run_sufficiency_judge,
    sufficiency_prompt,
)


def _client(url: str, tmp_path, **kw) -> LLMClient:
    return LLMClient(LLMConfig(base_url=url, model="m", cache_dir=str(tmp_path / "cache"), backoff=0.01,
                               **kw))


def test_answer_is_cached_and_returned_without_a_call(server, tmp_path):
    server.replies = lambda body: (200, f"answer to {body['messages'][-1]['content']}")
    c = _client(server.url, tmp_path, api_key="k")
    r = c.complete("hello")
    assert r.ok and r.text == "answer to hello" and not r.cached and r.model_reported == "fake-model-v1"
    assert len(server.requests) == 1
    req = server.requests[0]
    assert req["_path"] == "/v1/chat/completions" and req["temperature"] == 0 and req["model"] == "m"
    assert req["_auth"] == "Bearer k"
    server.stop()  # no server at all now: the stored answer must come from disk
    c2 = _client(server.url, tmp_path)
    r2 = c2.complete("hello")
    assert r2.ok and r2.cached and r2.text == "answer to hello" and c2.calls == 0
    # another model, another prompt or another repeat index is another key: not served from the cache
    assert not c2.complete("hello", variant=1).ok
    log = (tmp_path / "cache" / "log.jsonl").read_text().splitlines()
    assert len(log) == 3 and '"cached"' in log[1] and '"failed"' in log[2]


def test_outage_is_a_recorded_failure_after_retries_never_cached(tmp_path):
    with socket.socket() as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = _client(f"http://127.0.0.1:{port}/v1", tmp_path, max_retries=2)
    r = c.complete("q")
    assert not r.ok and r.text is None and "Error" in r.error and r.attempts == 3 and c.calls == 3
    assert c.cached([{"role": "user", "content": "q"}]) is None


def test_transient_errors_are_retried_and_client_errors_are_not(server, tmp_path):
    n = {"k": 0}

    def flaky(body):
        n["k"] += 1
        return (503, "busy") if n["k"] < 3 else (200, "fine")

    server.replies = flaky
    c = _client(server.url, tmp_path, max_retries=4)
    r = c.complete("x")
    assert r.ok and r.text == "fine" and r.attempts == 3
    server.replies = lambda body: (400, "bad request")
    r = c.complete("y")
    assert not r.ok and r.error.startswith("HTTP 400") and r.attempts == 1


def test_rate_limit_spaces_calls(server, tmp_path):
    c = _client(server.url, tmp_path, requests_per_second=20.0)
    t0 = time.monotonic()
    for i in range(4):
        assert c.complete(f"p{i}").ok
    assert time.monotonic() - t0 >= 3 * 0.05 * 0.9  # 4 calls at <= 20/s need >= 3 gaps of 50 ms


def test_config_from_env(monkeypatch):
    for k in ("HCRBENCH_LLM_BASE_URL", "OPENAI_BASE_URL", "HCRBENCH_LLM_MODEL"):
        monkeypatch.delenv(k, raising=False)
    with pytest.raises(InputError, match="HCRBENCH_LLM_BASE_URL"):
        LLMConfig.from_env()
    monkeypatch.setenv("HCRBENCH_LLM_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("HCRBENCH_LLM_MODEL", "gemma")
    monkeypatch.setenv("HCRBENCH_LLM_API_KEY", "secret")
    cfg = LLMConfig.from_env()
    assert cfg.model == "gemma" and cfg.api_key == "secret" and "secret" not in str(cfg.manifest())


# ------------------------------------------------------------------------------------------------ judge


def test_parse_label_takes_the_answer_not_the_example():
    prompt = sufficiency_prompt("Q?", "ctx")
    assert parse_label(prompt) is True  # the one-shot example's label
    assert parse_label('reasoning...\n### EVALUATION (JSON)\n{"Sufficient Context": 0}') is False
    assert parse_label("I think it is sufficient") is None


def test_no_system_ids_in_prompts():
    check_no_system_ids(sufficiency_prompt("who runs bm25s?", "text"), ["bm25"])  # a word containing it is fine
    with pytest.raises(InputError, match="system"):
        check_no_system_ids(sufficiency_prompt("q", "context from bm25"), ["bm25"])


def test_judge_outage_is_reported_not_scored(server, tmp_path):
    # q1, q2 answered; q3's calls fail (500 on every attempt): q3 is a failure, and the rate is over q1, q2 only.
    def reply(body):
        text = body["messages"][-1]["content"]
        if "QUESTION-3" in text:
            return 500, "down"
        return 200, '{"Sufficient Context": 1}' if "QUESTION-1" in text else '{"Sufficient Context": 0}'

    server.replies = reply
    c = _client(server.url, tmp_path, max_retries=1)
    items = [(f"q{i}", f"QUESTION-{i}", f"context {i}") for i in (1, 2, 3)]
    rep = run_sufficiency_judge(c, items, rule={"q1": True, "q2": False, "q3": True}, system_names=["bm25"])
    assert rep.n_items == 3 and rep.n_failed == 1 and "HTTP 500" in rep.failures["q3"]
    assert rep.labels == {"q1": True, "q2": False, "q3": None}
    assert rep.rate == 0.5  # 1 of the 2 judged, not 1 of 3
    assert rep.kappa_vs_rule == 1.0 and rep.model_reported == "fake-model-v1"
    assert rep.repeat_disagreement == 0.0 and not rep.repeat_flagged
    assert rep.prompt_variation == 0.0 and not rep.prompt_fragile
    d = rep.to_dict()
    assert d["n_judged"] == 2 and d["n_failed"] == 1
    # an unreadable answer is a failure too
    server.replies = lambda body: (200, "no idea")
    j = judge_sufficiency(c, "q9", "QUESTION-9", "ctx")
    assert j.label is None and j.error == "no label in the answer"


def test_repeat_disagreement_and_prompt_fragility_are_flagged(server, tmp_path):
    def reply(body):
        # the repeat (same prompt asked again) flips for every query; a different wording answers 0
        text = body["messages"][-1]["content"]
        first = text.startswith("You are an expert")
        seen = sum(1 for r in server.requests if r["messages"] == body["messages"])
        label = 1 if first and seen == 1 else 0
        return 200, f'{{"Sufficient Context": {label}}}'

    server.replies = reply
    c = _client(server.url, tmp_path)
    rep = run_sufficiency_judge(c, [(f"q{i}", f"question {i}", f"ctx {i}") for i in range(5)])
    assert rep.repeat_disagreement == 1.0 and rep.repeat_flagged
    assert rep.prompt_variation == 1.0 and rep.prompt_fragile


def test_pairwise_is_asked_in_both_orders(server, tmp_path):
    server.replies = lambda body: (200, "1")  # always prefers the first position: pure position bias
    c = _client(server.url, tmp_path)
    assert pairwise_preference(c, "q", "A text", "B text") == "tie"
    assert len(server.requests) == 2
    server.replies = lambda body: (200, "1" if body["messages"][-1]["content"].index("A text") <
                                   body["messages"][-1]["content"].index("B text") else "2")
    assert pairwise_preference(c, "q2", "A text", "B text") == "a"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=2, max_size=50))
def test_kappa_matches_scikit_learn(pairs):
    from sklearn.metrics import cohen_kappa_score

    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    k = cohens_kappa(a, b)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        ref = cohen_kappa_score(a, b)
    if k is None:
        assert np.isnan(ref) or len(set(a) | set(b)) == 1
    else:
        assert k == pytest.approx(ref, abs=1e-12)


def test_conditional_decomposition():
    d = conditional_decomposition([True, True, False, False, None], [True, False, True, False, True])
    assert d == {"n": 4, "sufficiency_rate": 0.5, "accuracy": 0.5, "accuracy_given_sufficient": 0.5,
                 "accuracy_given_insufficient": 0.5}
