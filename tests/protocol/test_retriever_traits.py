"""A retriever's declared traits decide how the protocol treats it, with nothing but the retriever's own file: toy
retrievers defined in this file and registered the way plugins are (a dist-info with an ``hcrbench.retrievers``
entry point on PYTHONPATH) run through ``hcrbench run``. A toy that declares a tree gets the tree checkpoints (it is
run for a routing log, and the rows say it wrote none) and a chunk-level cost; a toy that declares a flat first
stage joins the protocol's flat field; a toy that declares nothing is neither (the safe default)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from protocol_bench import write_bench

PLUGIN = '''
from hcrbench.retrieve import Traits, make_retriever


class _Wrapped:
    def __init__(self, **params):
        self.inner, self.name = make_retriever("bm25", **params), type(self).__name__.lower()

    def index(self, corpus):
        self.inner.index(corpus)

    def search(self, queries, k=100):
        return self.inner.search(queries, k=k)

    @property
    def params(self):
        return self.inner.params


class ToyTree(_Wrapped):
    traits = {"tree": True, "stage": "first", "unit": "chunk"}  # a mapping: a plugin need not import Traits


class ToyFlat(_Wrapped):
    traits = Traits(stage="first")


class Plain(_Wrapped):
    pass
'''

CONFIG = """
name = "toy"
output_dir = "out-{subject}"
seed = 0
metrics = ["nDCG@10"]
n_resamples = 200

[dataset]
path = "{bench}"
split = "test"

[protocol]
system = "{subject}"
kill_baseline = "bm25"

[[systems]]
name = "bm25"
type = "bm25"

[[systems]]
name = "toytree"
type = "toytree"

[[systems]]
name = "toyflat"
type = "toyflat"
params = {{ k1 = 1.2 }}

[[systems]]
name = "plain"
type = "plain"
params = {{ k1 = 1.5 }}
"""


@pytest.fixture(scope="module")
def toys(tmp_path_factory):
    root = tmp_path_factory.mktemp("toys")
    plugins = root / "plugins"
    info = plugins / "toy_traits-0.1.dist-info"
    info.mkdir(parents=True)
    (plugins / "toy_traits.py").write_text(PLUGIN, encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy_traits\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[hcrbench.retrievers]\ntoytree = toy_traits:ToyTree\n"
                                           "toyflat = toy_traits:ToyFlat\nplain = toy_traits:Plain\n",
                                           encoding="utf-8")
    bench = write_bench(root / "bench")
    env = dict(os.environ, HCRBENCH_HOME=str(root / "home"), HCRBENCH_PROGRESS="0")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugins), env.get("PYTHONPATH", "")) if p)
    return root, bench, env


def _run(toys, subject: str) -> dict:
    root, bench, env = toys
    cfg = root / f"{subject}.toml"
    cfg.write_text(CONFIG.format(subject=subject, bench=bench), encoding="utf-8")
    r = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], cwd=root, capture_output=True, text=True, env=env,
                       check=False, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads((root / f"out-{subject}" / "verdicts.json").read_text(encoding="utf-8"))


def _rows(v: dict) -> dict[str, dict]:
    return {x["id"]: x for x in [*v["checkpoints"], *v["hypotheses"]]}


def test_a_toy_tree_retriever_gets_the_tree_checkpoints_and_the_flat_field_its_declared_stage(toys):
    v = _run(toys, "toytree")
    rows = _rows(v)
    # declared a tree: run for a routing log on the checkpoint split, which it did not write
    assert rows["easy_routing"]["text"] == "not run: toytree wrote no routing log"
    assert not any("writes no routing log" in x["text"] for x in rows.values())
    # flat field: the declared flat first stages, in config order; neither the tree nor the undeclared plugin
    assert v["field"]["candidates"] == ["bm25", "toyflat"]
    assert "toytree vs bm25: 40 chunks scored vs 40 documents" in v["cost_line"]


def test_a_toy_retriever_that_declares_nothing_is_treated_as_no_tree(toys):
    v = _run(toys, "plain")
    rows = _rows(v)
    for rid in ("tree_sanity", "easy_routing"):
        assert rows[rid]["text"] == "not run: plain writes no routing log"
    assert v["field"]["candidates"] == ["bm25", "toyflat"]
    assert "plain vs bm25: 40 documents scored vs 40 documents" in v["cost_line"]

