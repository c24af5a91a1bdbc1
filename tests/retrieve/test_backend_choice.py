"""Which encoder backend a dense system uses (hcrbench.retrieve.encoders.resolve_backend): ``auto`` takes the
installed one (ONNX in the main install, which has no torch), and a missing one names a command that works."""

from __future__ import annotations

import importlib.util

import pytest

from hcrbench.errors import InputError
from hcrbench.retrieve import encoders


def _installed(monkeypatch, *present: str) -> None:
    real = importlib.util.find_spec
    watched = {"sentence_transformers", "onnxruntime"}
    monkeypatch.setattr(encoders.importlib.util, "find_spec",
                        lambda name, *a: (real("json") if name in present else None) if name in watched
                        else real(name, *a))


@pytest.mark.parametrize("present,want", [(("onnxruntime",), "onnx"), (("sentence_transformers",), "torch"),
                                          (("onnxruntime", "sentence_transformers"), "torch")])
def test_auto_takes_the_installed_backend(monkeypatch, present, want):
    _installed(monkeypatch, *present)
    assert encoders.resolve_backend("auto", "dense") == want


def test_torch_asked_in_the_main_install_names_the_onnx_backend_and_the_cpu_build(monkeypatch):
    _installed(monkeypatch, "onnxruntime")
    with pytest.raises(InputError) as e:
        encoders.resolve_backend("torch", "dense")
    msg = str(e.value)
    assert "backend=onnx" in msg and "--index-url https://download.pytorch.org/whl/cpu" in msg
    assert "pip install 'hcrbench[dense]'" in msg


def test_nothing_installed_names_the_main_install(monkeypatch):
    _installed(monkeypatch)
    with pytest.raises(InputError, match=r"hcrbench\[onnx\]"):
        encoders.resolve_backend("auto", "dense")


def test_an_unknown_backend_is_refused():
    with pytest.raises(InputError, match="unknown backend 'cuda'"):
        encoders.resolve_backend("cuda", "dense")


def test_the_dense_system_records_the_backend_it_resolved(monkeypatch):
    pytest.importorskip("faiss")
    pytest.importorskip("onnxruntime")
    _installed(monkeypatch, "onnxruntime")
    from hcrbench.retrieve.base import make_retriever

    r = make_retriever("dense")
    assert r.backend == "onnx"
