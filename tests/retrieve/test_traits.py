"""Retriever traits: declared on the class, read through ``hcrbench.retrieve.traits``, safe defaults for a type that
declares nothing, and the readings the upper stages make of them (flat first stage, simple, tree switched flat,
code versions in the fingerprint)."""

from __future__ import annotations

from typing import ClassVar

import pytest

from hcrbench.errors import InputError
from hcrbench.retrieve import Traits, available_retrievers, register_retriever, traits
from hcrbench.retrieve import base as base_mod


@pytest.fixture
def registered(monkeypatch):
    """Register classes for one test through the public decorator, removed afterwards."""
    monkeypatch.setattr(base_mod, "_REGISTRY", dict(base_mod._REGISTRY))

    def add(name, cls):
        register_retriever(name)(cls)
        return name

    return add


def test_every_built_in_declares_its_traits():
    builtins = [n for n in available_retrievers()  # the shipped modules' (tests register fakes beside them)
                if base_mod.is_builtin(n) and base_mod.load_factory(n).__module__ in base_mod._BUILTIN_MODULES]
    assert builtins and all(traits(n) is base_mod.load_factory(n).traits for n in builtins)
    assert {n for n in builtins if traits(n).tree} == {"hcr", "raptor"}
    assert [n for n in builtins if traits(n).is_flat_first_stage()] == ["bm25", "dense", "hybrid"]
    assert {n: traits(n).encoder_param for n in builtins if traits(n).encoder_param} == {
        "dense": "backend", "hcr": "backend", "raptor": "backend", "hybrid": "dense_backend"}
    assert traits("runfile").stage == "replay" and not traits("runfile").is_simple()


def test_a_type_that_declares_nothing_gets_the_safe_default(registered):
    class Bare:
        pass

    name = registered("bare-toy", Bare)
    t = traits(name)
    assert t == Traits() and not t.tree and not t.is_simple() and not t.is_flat_first_stage()
    assert traits("no-such-system") == Traits() and traits(None) == Traits()


def test_a_mapping_declares_traits_and_a_bad_one_is_named(registered):
    class AsMapping:
        traits: ClassVar = {"tree": True, "unit": "node", "ablation_roles": ["beam_only"]}

    class Unknown:
        traits: ClassVar = {"tree": True, "treee": False}

    class BadStage:
        traits: ClassVar = {"stage": "second"}

    assert traits(registered("map-toy", AsMapping)) == Traits(tree=True, unit="node", ablation_roles=("beam_only",))
    with pytest.raises(InputError, match="'unknown-toy' declares unknown traits treee"):
        traits(registered("unknown-toy", Unknown))
    with pytest.raises(InputError, match="'stage-toy': stage must be one of first, rerank, replay"):
        traits(registered("stage-toy", BadStage))


def test_a_tree_switched_flat_is_simple_but_not_a_flat_first_stage():
    hcr = traits("hcr")
    assert hcr.runs_tree({}) and not hcr.is_simple({})
    assert not hcr.runs_tree({"flat": True}) and hcr.is_simple({"flat": True})
    assert not hcr.is_flat_first_stage()  # its flat cascade reranks: not a first stage without a reranker
    assert traits("raptor").runs_tree({"flat": True})  # RAPTOR declares no such switch


def test_code_versions_above_one_enter_the_fingerprint():
    assert Traits(code_version={"summarizer_version": 1}).fingerprint() == {}
    assert Traits(code_version={"b": 3, "a": 1}).fingerprint() == {"b": 3}
    from hcrbench.retrieve.summarize import ExtractiveSummarizer

    v = ExtractiveSummarizer.version
    assert traits("hcr").fingerprint() == ({"summarizer_version": v} if v != 1 else {})
    assert Traits(code_version={"summarizer_version": ExtractiveSummarizer}).fingerprint() == \
        traits("hcr").fingerprint()
