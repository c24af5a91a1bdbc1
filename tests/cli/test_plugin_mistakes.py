"""A newcomer's plugin mistakes, through the console script with the plugin installed in the test (a dist-info with
its ``hcrbench.retrievers`` entry point on PYTHONPATH): each is one line naming the plugin's file and line or the
field ``NAME.search``, exit 2, no traceback; more than ``k`` documents is a warning and the run is cut to ``k``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PLUGIN = '''
from hcrbench.data import Costs, Run, RunResult


class _Base:
    name = "base"

    @property
    def params(self):
        return {}

    def index(self, corpus):
        self.doc_ids = list(corpus.doc_ids)

    def out(self, ranked):
        return RunResult(Run.from_ranked(ranked, name=self.name), Costs())


class Raises(_Base):
    def search(self, queries, k=100):
        raise ValueError("my bug in search")


class IndexRaises(_Base):
    def index(self, corpus):
        return corpus.metadata[0]["no-such-key"]

    def search(self, queries, k=100):
        return None


class UnknownIds(_Base):
    def search(self, queries, k=100):
        return self.out({q: [("nope%d" % i, 1.0 / (i + 1)) for i in range(k)] for q in queries.query_ids})


class SomeUnknown(_Base):
    def search(self, queries, k=100):
        return self.out({q: [("d1", 2.0), ("zz", 1.0)] for q in queries.query_ids})


class Missing(_Base):
    def search(self, queries, k=100):
        return self.out({queries.query_ids[0]: [("d1", 1.0)]})


class Dict(_Base):
    def search(self, queries, k=100):
        return {q: {"d1": 1.0} for q in queries.query_ids}


class NoParams:
    def index(self, corpus):
        pass

    def search(self, queries, k=100):
        return None


class TooMany(_Base):
    def search(self, queries, k=100):
        return self.out({q: [(d, 1.0 / (i + 1)) for i, d in enumerate(self.doc_ids)] for q in queries.query_ids})
'''

ENTRY = {"raises": "Raises", "indexraises": "IndexRaises", "unknownids": "UnknownIds", "someunknown": "SomeUnknown",
         "missing": "Missing", "returnsdict": "Dict", "noparams": "NoParams", "toomany": "TooMany"}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("plugmistakes")
    plugins = root / "plugins"
    plugins.mkdir()
    (plugins / "mistakes_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = plugins / "mistakes_plugin-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mistakes_plugin\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[hcrbench.retrievers]\n" + "".join(f"{n} = mistakes_plugin:{c}\n" for n, c in ENTRY.items()),
        encoding="utf-8")
    bench = root / "bench"
    (bench / "qrels").mkdir(parents=True)
    (bench / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": f"d{i}", "title": "", "text": f"document {i} words"}) + "\n" for i in range(5)),
        encoding="utf-8")
    (bench / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": f"q{i}", "text": f"words {i}"}) + "\n" for i in range(3)), encoding="utf-8")
    (bench / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\td0\t1\nq1\td1\t1\nq2\td2\t1\n",
                                              encoding="utf-8")
    env = dict(os.environ, HCRBENCH_HOME=str(root / "home"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugins), env.get("PYTHONPATH", "")) if p)
    return root, plugins, bench, env


def _retrieve(setup, system: str, k: int = 3) -> subprocess.CompletedProcess:
    root, _, bench, env = setup
    return subprocess.run(["hcrbench", "retrieve", "--dataset", str(bench), "--system", system, "--k", str(k),
                           "--out", str(root / f"{system}.trec")], capture_output=True, text=True, env=env,
                          check=False, timeout=120)


@pytest.mark.parametrize(("system", "expect"), [
    ("raises", ["mistakes_plugin.py:", "raises.search: ValueError: my bug in search"]),
    ("indexraises", ["mistakes_plugin.py:", "indexraises.index: KeyError"]),
    ("unknownids", ["unknownids.search: none of its 3 document ids is an id of the corpus", "'nope0'"]),
    ("someunknown", ["someunknown.search: 1 of its 2 document ids are not ids of the corpus", "'zz'"]),
    ("missing", ["missing.search: returned no ranking for 2 of 3 queries"]),
    ("returnsdict", ["returnsdict.search: returned a dict; search must return RunResult"]),
    ("noparams", ["system noparams:", "no params"]),
])
def test_a_plugin_mistake_is_one_line_naming_where_and_exit_2(setup, system, expect):
    r = _retrieve(setup, system)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for e in expect:
        assert e in lines[0], lines[0]


def test_a_raising_plugin_is_named_by_its_own_file_and_line(setup):
    _, plugins, _, _ = setup
    r = _retrieve(setup, "raises")
    line = next(i for i, t in enumerate(PLUGIN.splitlines(), 1) if 'raise ValueError("my bug' in t)
    assert f"{plugins / 'mistakes_plugin.py'}:{line}: " in r.stderr


def test_more_than_k_documents_is_a_warning_and_the_run_keeps_k(setup):
    root = setup[0]
    r = _retrieve(setup, "toomany", k=2)
    assert r.returncode == 0, r.stderr
    assert "toomany.search: returned up to 5 documents for a query, more than k = 2; kept the top 2" in r.stderr
    lines = (root / "toomany.trec").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 * 2


def test_the_checks_do_not_wrap_built_in_systems():
    from hcrbench.retrieve.checked import plugin_value

    assert plugin_value("bm25") is None and plugin_value("hcr") is None
    assert sys.modules.get("mistakes_plugin") is None  # nothing of the test's plugin leaked into this process


def test_an_entry_point_in_a_misspelt_group_or_a_typo_is_named(setup, tmp_path):
    """``[project.entry-points."hcrbench.retriever"]`` (singular) or ``--system raise`` for ``raises``: the error
    says where the entry point is, or the close name."""
    root, _, bench, env = setup
    other = tmp_path / "other"
    info = other / "singular_plugin-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: singular_plugin\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[hcrbench.retriever]\nmine = mistakes_plugin:Raises\n", encoding="utf-8")
    env = dict(env, PYTHONPATH=os.pathsep.join((str(other), env["PYTHONPATH"])))
    for system, expect in (("mine", "in group 'hcrbench.retriever'; the group is 'hcrbench.retrievers'"),
                           ("raise", "(did you mean 'raises'?)")):
        r = subprocess.run(["hcrbench", "retrieve", "--dataset", str(bench), "--system", system, "--out",
                            str(root / "x.trec")], capture_output=True, text=True, env=env, check=False, timeout=120)
        assert r.returncode == 2 and expect in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_plugins_mistake_on_the_pilot_splits_stops_the_power_plan(tmp_path, monkeypatch):
    """The power plan runs the subject on tune + dev before the field runs on test: a plugin's error there is
    raised (one line), not left out as "no pilot" to surface minutes later; a run file of the test split only is
    still left out with its reason."""
    from types import SimpleNamespace

    import hcrbench.experiment.cell as cell
    import hcrbench.experiment.reads as reads
    import hcrbench.experiment.runner as runner
    import hcrbench.retrieve.checked as checked
    from hcrbench.errors import InputError
    from hcrbench.protocol.devselect import split_runs

    def boom(system, *a, **k):
        raise InputError("ValueError: my bug", path="p.py", line=3, field=f"{system.name}.search")

    monkeypatch.setattr(cell, "run_system", boom)
    monkeypatch.setattr(runner, "system_fingerprint", lambda *a, **k: "fp")
    monkeypatch.setattr(reads, "reads_of", lambda *a, **k: None)
    monkeypatch.setattr(reads, "fingerprint_with_reads", lambda *a, **k: "fp")
    plugin = SimpleNamespace(name="mine", type="mine", params={}, seed=None)
    runfile = SimpleNamespace(name="rf", type="runfile", params={}, seed=None)
    cfg = SimpleNamespace(systems=[plugin, runfile], k=10, seed=0)
    sdata = SimpleNamespace(key="k", split="tune")
    monkeypatch.setattr(checked, "plugin_value", lambda name: "pkg:Mine" if name == "mine" else None)
    failed: dict[str, str] = {}
    assert split_runs(cfg, sdata, tmp_path, ["rf"], failed) == {} and "rf" in failed
    with pytest.raises(InputError, match=r"mine\.search: ValueError: my bug"):
        split_runs(cfg, sdata, tmp_path, ["mine"], {})
