"""Progress from the first second (issue #36): encoding says what it encodes, with which model, that it is done
once (cached), batch i/n and its own ETA; a new inner stage is logged at once; HCRBENCH_PROGRESS=0 prints
nothing."""

from __future__ import annotations

import io

from hcrbench.data.cache import EmbeddingCache
from hcrbench.experiment.progress import JobProgress, job_progress
from hcrbench.retrieve import progress as inner
from hcrbench.retrieve.encoders import encode_cached, encode_label
from hcrbench.retrieve.hcr.hashenc import HashingEncoder


def test_encoding_reports_what_with_which_model_and_batch_i_of_n(tmp_path):
    seen: list[tuple[str, int, int | None]] = []
    previous = inner.set_sink(lambda d, i, n: seen.append((d, i, n)))
    try:
        cache = EmbeddingCache("hash-bow:256", tmp_path)
        texts = [f"chunk number {i} about topic {i % 7}" for i in range(600)]
        encode_cached(HashingEncoder(), texts, cache=cache, desc="encoding chunks", flush_every=256)
        first = list(seen)
        encode_cached(HashingEncoder(), texts, cache=cache, desc="encoding chunks", flush_every=256)
    finally:
        inner.set_sink(previous)
    label = "encoding 600 chunks with the hashed bag of words, first run only (cached) · batch"
    assert {d for d, _, _ in first} == {label} and [(i, n) for _, i, n in first] == [(i, 3) for i in range(4)]
    assert seen == first  # the second run reads the cache: nothing to encode, nothing said


def test_the_label_names_minilm_and_keeps_other_descriptions():
    class Mini:
        model_id = "onnx-int8:sentence-transformers/all-MiniLM-L6-v2:max256"

    assert encode_label("encoding chunks", 3750, Mini(), cached=True) == \
        "encoding 3,750 chunks with MiniLM, first run only (cached) · batch"
    assert encode_label("encoding corpus", 500, Mini(), cached=False) == "encoding 500 documents with MiniLM · batch"
    assert encode_label("reranking", 5, Mini(), cached=True) == "reranking"


def test_a_logged_job_says_a_new_encoding_stage_at_once_with_its_own_eta():
    now = [0.0]
    out = io.StringIO()
    job = JobProgress(live=False, plain=True, stream=out, clock=lambda: now[0], tick=0)
    job.expect(4)
    job.begin("hcr")
    label = "encoding 3,750 chunks with MiniLM, first run only (cached) · batch"
    job.update(label, 0, 15)
    lines = out.getvalue().splitlines()
    assert lines[-1].startswith(f"[1/4 steps] hcr: {label} 0/15") and len(lines) == 2  # begin, then the stage
    now[0] = 6.0
    job.update(label, 3, 15)  # within 15 s of the last line: no new line, but the text has the stage's ETA
    assert len(out.getvalue().splitlines()) == 2 and f"{label} 3/15 (~25s left)" in job.text()
    job.close()


def test_no_progress_at_all_with_hcrbench_progress_0(monkeypatch):
    monkeypatch.setenv("HCRBENCH_PROGRESS", "0")
    out = io.StringIO()
    with job_progress(stream=out, plain=True) as job:
        job.expect(2)
        job.begin("hcr")
        inner.report("encoding 10 chunks with MiniLM · batch", 1, 2)
        job.say("quickstart: hcr against the field")
    assert out.getvalue() == ""
