"""The quickstart generates the test queries its power plan asks for (protocol/query_plan.py): the suite size
from the plan and the test share, capped by --max-queries, the largest suite the generator fills when it refuses
the asked one, the config key ``[dataset] generate_queries`` and the hook's record."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from hcrbench.errors import InputError
from hcrbench.experiment.config import parse_config
from hcrbench.protocol import query_plan as qp
from hcrbench.protocol.quickstart import render_config


def test_the_rendered_config_asks_the_generator_for_the_planned_suite(tmp_path):
    text = render_config(size="small", seed=5, encoder="hash", seeds=1, queries=450, data="data/meridian-small-s5-q450")
    assert "generate_queries = 450\n" in text
    cfg = parse_config(text, tmp_path / "quickstart.toml")
    assert cfg.dataset.generate_queries == 450 and cfg.dataset.path == "data/meridian-small-s5-q450"
    assert "generate_queries" not in render_config(size="small", seed=5, encoder="hash", seeds=1)
    with pytest.raises(InputError):
        parse_config(text.replace("generate_queries = 450", "generate_queries = 0"), tmp_path / "q.toml")


def _fake(monkeypatch, tmp_path: Path, wanted: int, limit: int, n_test: int = 59):
    root = tmp_path / "data" / "meridian-small-s3"
    root.mkdir(parents=True)
    (root / "manifest.json").write_text(json.dumps({"n_queries": 300}))
    tried: list[int] = []

    def generate(out, size, seed, n_queries=300, grow=False):
        man = Path(out) / "manifest.json"
        if man.is_file() and json.loads(man.read_text())["n_queries"] == n_queries:
            return "kept"  # as ensure_meridian: this generator's folder for the same suite is reused
        tried.append(n_queries)
        Path(out).mkdir(parents=True, exist_ok=True)  # as the real generator: the folder first, then the refusal
        if n_queries > limit:
            raise InputError("cannot hold that many queries", field="queries")
        man.write_text(json.dumps({"n_queries": n_queries}))
        return "generated"

    cfg = SimpleNamespace(dataset=SimpleNamespace(grow=False), protocol=object())
    monkeypatch.setattr("hcrbench.experiment.config.load_config", lambda p: (cfg, ""))
    monkeypatch.setattr("hcrbench.experiment.dataset.load_data",
                        lambda *a: SimpleNamespace(queries=list(range(n_test)), root=root))
    monkeypatch.setattr("hcrbench.protocol.field.power_plan", lambda *a: {
        "status": "planned", "queries_wanted": wanted, "pilot": {"tune": 120, "dev": 60}, "text": "plan"})
    monkeypatch.setattr("hcrbench.synth.generate.ensure_meridian", generate)
    return tried


def test_the_suite_is_the_wanted_test_queries_over_the_test_share_capped(monkeypatch, tmp_path):
    _fake(monkeypatch, tmp_path, wanted=100, limit=10_000)
    hook = qp.plan(tmp_path / "quickstart.toml", tmp_path / "data", "small", 3, 600)
    # 100 test queries at a test share of 59 / 300: a suite of ceil(100 / 0.1967) = 509
    assert hook["status"] == "generated" and hook["queries"] == 509 and hook["data"] == "meridian-small-s3-q509"
    assert (tmp_path / "data" / "meridian-small-s3-q509" / "manifest.json").is_file()
    assert "asks for ~100 test queries" in hook["text"]


def test_max_queries_caps_the_suite(monkeypatch, tmp_path):
    _fake(monkeypatch, tmp_path, wanted=400, limit=10_000)
    hook = qp.plan(tmp_path / "quickstart.toml", tmp_path / "data", "small", 3, 600)
    assert hook["queries"] == 600 and "capped by --max-queries" in hook["text"]


def test_a_suite_the_generator_refuses_falls_back_to_the_largest_that_works(monkeypatch, tmp_path):
    tried = _fake(monkeypatch, tmp_path, wanted=400, limit=470)
    hook = qp.plan(tmp_path / "quickstart.toml", tmp_path / "data", "small", 3, 600)
    assert tried[0] == 600 and 440 <= hook["queries"] <= 470
    assert "could not fill 600 queries" in hook["text"] and hook["status"] == "generated"
    # the search leaves no refused (empty) folder and no other suite behind: the design's and the chosen one
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == sorted(
        ["meridian-small-s3", hook["data"], "pilot", "queries_search.json"])


def test_enough_queries_generate_nothing(monkeypatch, tmp_path):
    tried = _fake(monkeypatch, tmp_path, wanted=40, limit=10_000)
    hook = qp.plan(tmp_path / "quickstart.toml", tmp_path / "data", "small", 3, 600)
    assert hook["status"] == "enough" and hook["queries"] is None and not tried


def test_a_warm_rerun_reuses_the_searchs_answer_without_refused_draws(monkeypatch, tmp_path):
    tried = _fake(monkeypatch, tmp_path, wanted=400, limit=470)
    first = qp.plan(tmp_path / "quickstart.toml", tmp_path / "data", "small", 3, 600)
    tried.clear()
    again = qp.plan(tmp_path / "quickstart.toml", tmp_path / "data", "small", 3, 600)
    assert again == first and tried == []  # the suite is there: nothing generated, nothing refused again
    # the suite gone (a cleaned folder): it is generated again at the size the search found
    import shutil
    shutil.rmtree(tmp_path / "data" / first["data"])
    assert qp.plan(tmp_path / "quickstart.toml", tmp_path / "data", "small", 3, 600) == first
    assert tried == [first["queries"]]
