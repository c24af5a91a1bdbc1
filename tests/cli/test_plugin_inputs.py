"""What a plugin is handed and what it may do with it, through the console script with the plugin installed in the
test (a dist-info with its ``hcrbench.retrievers`` entry point on PYTHONPATH): a plugin that edits the corpus or the
queries it is handed is refused in one line naming it and the method, and no system scored after it sees the edit;
``sys.exit`` inside a plugin is one line, not an exit of hcrbench; a document twice in one query's ranking and a
parameter that is not a finite number are refused before anything is written."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

PLUGIN = '''
import sys

from hcrbench.data import Costs, Run, RunResult


class _Base:
    name = "base"

    @property
    def params(self):
        return {}

    def index(self, corpus):
        self.doc_ids = list(corpus.doc_ids)

    def search(self, queries, k=100):
        return RunResult(Run.from_ranked({q: [(self.doc_ids[0], 1.0)] for q in queries.query_ids}), Costs())


class Blanker(_Base):
    def index(self, corpus):
        super().index(corpus)
        for i in range(len(corpus.texts)):
            corpus.texts[i] = ""


class MetaEditor(_Base):
    def index(self, corpus):
        super().index(corpus)
        corpus.metadata[1]["tags"].append("mine")


class Popper(_Base):
    def search(self, queries, k=100):
        queries.query_ids.pop()
        queries.texts.pop()
        return super().search(queries, k)


class Exits(_Base):
    def search(self, queries, k=100):
        sys.exit(0)


class ExitsInIndex(_Base):
    def index(self, corpus):
        sys.exit("giving up")


class Twice(_Base):
    def search(self, queries, k=100):
        return RunResult(Run.from_ranked({q: [("d1", 2.0), ("d2", 1.5), ("d1", 1.0)] for q in queries.query_ids}),
                         Costs())


class TwiceRaw(_Base):
    def search(self, queries, k=100):
        import numpy as np

        qids = list(queries.query_ids)
        n = len(qids)
        return RunResult(Run(qids, np.arange(0, 2 * n + 1, 2), np.zeros(2 * n, dtype=np.int64),
                             np.tile([2.0, 1.0], n), ["d1"]), Costs())


class NanParams(_Base):
    @property
    def params(self):
        return {"alpha": float("nan")}
'''

ENTRY = {"blanker": "Blanker", "metaeditor": "MetaEditor", "popper": "Popper", "exits": "Exits",
         "exitsinindex": "ExitsInIndex", "twice": "Twice", "twiceraw": "TwiceRaw", "nanparams": "NanParams"}
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("pluginputs")
    plugins = root / "plugins"
    plugins.mkdir()
    (plugins / "inputs_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = plugins / "inputs_plugin-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: inputs_plugin\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[hcrbench.retrievers]\n" + "".join(f"{n} = inputs_plugin:{c}\n" for n, c in ENTRY.items()),
        encoding="utf-8")
    bench = root / "data"
    (bench / "qrels").mkdir(parents=True)
    (bench / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": f"d{i}", "text": f"{WORDS[i % 8]} doc {i}", "metadata": {"tags": ["x"]}}) + "\n"
                for i in range(16)), encoding="utf-8")
    (bench / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": f"q{i}", "text": WORDS[i], "metadata": {"category": "ab"[i % 2]}}) + "\n"
                for i in range(8)), encoding="utf-8")
    (bench / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(8)), encoding="utf-8")
    env = dict(os.environ, HCRBENCH_HOME=str(root / "home"), HCRBENCH_PROGRESS="0")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugins), env.get("PYTHONPATH", "")) if p)
    return root, bench, env


def _hcrbench(setup, *args: str) -> subprocess.CompletedProcess:
    root, _, env = setup
    return subprocess.run(["hcrbench", *args], cwd=root, capture_output=True, text=True, env=env, check=False,
                          timeout=300)


def _config(root: Path, name: str, systems: list[str]) -> Path:
    text = (f'name = "{name}"\noutput_dir = "out-{name}"\nmetrics = ["nDCG@10"]\nn_resamples = 200\n'
            'strata = []\n[dataset]\npath = "data"\n')
    for s in systems:
        text += f'[[systems]]\nname = "{s}"\ntype = "{s}"\n'
    path = root / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("plugin", "method", "expect"), [
    ("blanker", "index", "edited the corpus it was handed (changed the texts of 16 of 16 entries, e.g. 'd0')"),
    ("metaeditor", "index", "edited the corpus it was handed (changed the metadata of 1 of 16 entries, e.g. 'd1')"),
    ("popper", "search", "edited the queries it was handed (7 query_ids where it was handed 8, e.g. 'q7' removed)"),
])
def test_a_plugin_that_edits_its_inputs_is_refused_and_no_later_system_sees_the_edit(setup, plugin, method, expect):
    root = setup[0]
    r = _hcrbench(setup, "run", str(_config(root, plugin, [plugin, "bm25"])), "--quiet")
    assert r.returncode == 2, r.stderr
    line, = r.stderr.strip().splitlines()
    assert f"{plugin}.{method}: {expect}" in line and "Traceback" not in r.stderr, line
    assert not (root / f"out-{plugin}" / "eval.json").exists()


def test_a_popped_query_is_missing_from_the_answer_checked_against_the_queries_asked(setup):
    root = setup[0]
    r = _hcrbench(setup, "retrieve", "--dataset", str(setup[1]), "--system", "popper", "--k", "3", "--out",
                  str(root / "popper.trec"))
    assert r.returncode == 2 and "popper.search: edited the queries" in r.stderr, r.stderr
    assert not (root / "popper.trec").exists()


def _retrieve(setup, system: str, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    root = setup[0]
    out = root / f"{system}.trec"
    return _hcrbench(setup, "retrieve", "--dataset", str(setup[1]), "--system", system, "--k", "3", "--out",
                     str(out), *extra), out


@pytest.mark.parametrize(("system", "method", "code"), [("exits", "search", "0"), ("exitsinindex", "index",
                                                                                    "'giving up'")])
def test_sys_exit_in_a_plugin_is_one_line_naming_it_and_no_run_is_written(setup, system, method, code):
    r, out = _retrieve(setup, system)
    assert r.returncode == 2, r.stderr
    line, = r.stderr.strip().splitlines()
    assert "inputs_plugin.py:" in line and f"{system}.{method}: called sys.exit({code})" in line, line
    assert not out.exists()


def test_sys_exit_in_a_plugin_stops_a_run_before_anything_is_scored(setup):
    root = setup[0]
    r = _hcrbench(setup, "run", str(_config(root, "exits", ["bm25", "exits"])), "--quiet")
    assert r.returncode == 2 and "exits.search: called sys.exit(0)" in r.stderr, r.stderr
    assert not (root / "out-exits" / "eval.json").exists()


@pytest.mark.parametrize(("system", "expect"), [
    ("twice", "twice.search: ValueError: Run.from_ranked: doc 'd1' appears twice for query 'q0'"),
    ("twiceraw", "twiceraw.search: doc 'd1' appears twice for query 'q0'"),
])
def test_a_document_twice_for_a_query_is_refused_before_the_run_is_written(setup, system, expect):
    r, out = _retrieve(setup, system)
    assert r.returncode == 2, r.stderr
    line, = r.stderr.strip().splitlines()
    assert expect in line, line
    assert not out.exists()


def test_run_from_ranked_refuses_a_document_twice_naming_query_and_doc():
    from hcrbench.data import Run

    with pytest.raises(ValueError, match=r"doc 'b' appears twice for query 'q2'"):
        Run.from_ranked({"q1": [("a", 1.0), ("b", 0.5)], "q2": [("b", 2.0), ("a", 1.0), ("b", 0.1)]})
    assert Run.from_ranked({"q1": [("a", 1.0), ("b", 0.5)]}).ranked("q1") == [("a", 1.0), ("b", 0.5)]


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", '{"w": [1, NaN]}'])
def test_a_non_finite_param_is_one_line_and_nothing_is_written(setup, value):
    root = setup[0]
    costs = root / "costs.json"
    r, out = _retrieve(setup, "bm25", "--param", f"k1={value}", "--costs-json", str(costs))
    assert r.returncode == 2, r.stderr
    line, = r.stderr.strip().splitlines()
    assert "--param" in line and "k1" in line and ("not a finite number" in line or "not valid JSON" in line), line
    assert not out.exists() and not costs.exists()


def test_a_plugins_non_finite_params_are_refused_so_costs_json_and_the_manifest_stay_json(setup):
    root = setup[0]
    costs = root / "nan-costs.json"
    r, out = _retrieve(setup, "nanparams", "--costs-json", str(costs))
    assert r.returncode == 2 and "nanparams.params: alpha = nan is not a finite number" in r.stderr, r.stderr
    assert not out.exists() and not costs.exists()
    r = _hcrbench(setup, "run", str(_config(root, "nanparams", ["nanparams"])), "--quiet")
    assert r.returncode == 2 and "nanparams.params: alpha = nan is not a finite number" in r.stderr, r.stderr
    manifest = root / "out-nanparams" / "manifest.json"
    if manifest.exists():
        json.loads(manifest.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the manifest"))

