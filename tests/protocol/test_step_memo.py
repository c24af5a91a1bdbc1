"""A warm re-run reuses the context, gate and tree-metrics results kept in OUT/memo (hcrbench.experiment.memo) and
writes the same bytes; any changed input (a run line, a qrel, a routing log, the code) is recomputed, never served
from the memo; a damaged memo is named and recomputed; HCRBENCH_MEMO=0 turns reuse off."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import hcrbench.experiment.context_step as context_step_mod
import hcrbench.experiment.gate_step as gate_step_mod
import hcrbench.experiment.memo as memo
import hcrbench.metrics.tree_files as tree_files
from hcrbench.data.types import Qrels, Run
from hcrbench.errors import HcrbenchWarning
from hcrbench.experiment.config import load_config
from hcrbench.experiment.context_step import ContextRoles, context_step
from hcrbench.experiment.dataset import load_data
from hcrbench.experiment.gate_step import gate_step
from hcrbench.experiment.runner import run_experiment
from hcrbench.experiment.tree_step import system_tree_metrics

CONFIG = """
name = "memo-test"
output_dir = "out"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"
n_resamples = 200
budgets = [200, 400]

[dataset]
path = "{bench}"
split = "test"

[gate]
n_trials = 20

[[systems]]
name = "bm25"
type = "bm25"

[[systems]]
name = "hcr"
type = "hcr"
params = {{ backend = "hash", seed = 0, chunk_tokens = 64, chunk_overlap = 8 }}
"""

OUTPUTS = ("eval.json", "gate.json", "tree_metrics.json", "contexts/bm25.jsonl", "contexts/hcr.jsonl",
           "contexts/oracle.jsonl")


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """One cold run (module-scoped: the slow part); each test works on its own copy of the folder."""
    import os

    from protocol_bench import write_bench

    tmp = tmp_path_factory.mktemp("memo")
    old_home = os.environ.get("HCRBENCH_HOME")
    os.environ["HCRBENCH_HOME"] = str(tmp / "home")  # a private lock registry (never the user's)
    try:
        cfg = tmp / "exp" / "exp.toml"
        cfg.parent.mkdir()
        cfg.write_text(CONFIG.format(bench=write_bench(tmp / "bench")), encoding="utf-8")
        run_experiment(cfg, progress=False, force_test=True)
    finally:
        if old_home is None:
            os.environ.pop("HCRBENCH_HOME", None)
        else:
            os.environ["HCRBENCH_HOME"] = old_home
    return cfg.parent


@pytest.fixture
def done(first_run: Path, tmp_path: Path):
    import shutil

    shutil.copytree(first_run, tmp_path / "exp")
    return tmp_path / "exp" / "exp.toml", tmp_path / "exp" / "out"


def _spy(monkeypatch, module, name):
    """Count the calls of ``module.name`` (the computation a memo replaces)."""
    calls = []
    real = getattr(module, name)

    def wrapper(*a, **kw):
        calls.append(name)
        return real(*a, **kw)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def _inputs(cfg_path: Path, out: Path):
    cfg, text = load_config(cfg_path)
    data = load_data(cfg.dataset, cfg_path.parent, cfg_path, text)
    from hcrbench.data.trec import read_run

    runs = {s.name: read_run(out / "runs" / f"{s.name}.trec", name=s.name) for s in cfg.systems}
    return cfg, text, data, runs


def test_warm_rerun_reuses_every_memo_and_writes_the_same_bytes(done, monkeypatch):
    cfg, out = done
    before = {f: (out / f).read_bytes() for f in OUTPUTS}
    assert {p.name for p in (out / "memo").iterdir()} == {"context.json", "gate.json", "tree-hcr.json"}
    calls = _spy(monkeypatch, context_step_mod, "_context_step")
    gate_calls = _spy(monkeypatch, gate_step_mod, "_gate_doc")
    tree_calls = _spy(monkeypatch, tree_files, "tree_report_from_files")
    assert json.loads((out / "manifest.json").read_text())["memo"] == {"reused": []}  # the cold run computed
    res = run_experiment(cfg, progress=False, force_test=True)
    assert res.reused == ["bm25", "hcr"]
    assert res.manifest["memo"] == {"reused": ["context", "gate", "tree-hcr"]}
    assert calls == [] and gate_calls == [] and tree_calls == []  # nothing recomputed
    assert {f: (out / f).read_bytes() for f in OUTPUTS} == before


def _roles(cfg) -> ContextRoles:
    """The roles the runner hands the context step for this config (baseline bm25)."""
    return ContextRoles.of(cfg.protocol, "bm25")


def _swap_first_two(run: Run) -> Run:
    """The run with the scores of the first query's top two documents swapped (one run line changed)."""
    d = {q: dict(run.ranked(q)) for q in run.query_ids}
    q = run.query_ids[0]
    (a, sa), (b, sb) = run.ranked(q)[:2]
    d[q][a], d[q][b] = sb, sa
    return Run.from_dict(d, name=run.name)


def test_a_changed_run_line_is_recomputed_not_served(done, monkeypatch):
    cfg_path, out = done
    cfg, text, data, runs = _inputs(cfg_path, out)
    old_ctx = json.loads((out / "memo" / "context.json").read_text())["doc"]
    f = out / "contexts" / "bm25.jsonl"
    old_file = f.read_bytes()
    calls = _spy(monkeypatch, context_step_mod, "_context_step")
    same, _ = context_step(cfg, data, runs, "bm25", out, cfg_path, text, roles=_roles(cfg))
    assert calls == [] and same == old_ctx  # the control: unchanged inputs are served
    changed = {**runs, "bm25": _swap_first_two(runs["bm25"])}
    context_step(cfg, data, changed, "bm25", out, cfg_path, text, roles=_roles(cfg))
    assert calls == ["_context_step"]
    q = runs["bm25"].query_ids[0]
    rows = [json.loads(line) for line in f.read_text().splitlines()]
    first = next(r for r in rows if r["query_id"] == q and r["budget"] == 200)
    assert first["chunks"][0].split("#")[0] == runs["bm25"].ranked(q)[1][0]  # the swapped doc now leads
    assert f.read_bytes() != old_file
    again, _ = context_step(cfg, data, runs, "bm25", out, cfg_path, text, roles=_roles(cfg))  # back to the old runs: recomputed too
    assert calls == ["_context_step"] * 2 and again == old_ctx and f.read_bytes() == old_file


def test_a_changed_qrel_is_recomputed_not_served(done, monkeypatch):
    cfg_path, out = done
    cfg, _, data, runs = _inputs(cfg_path, out)
    old = json.loads((out / "gate.json").read_text())
    calls = _spy(monkeypatch, gate_step_mod, "_gate_doc")
    assert gate_step(cfg, data, runs, "bm25", out) == old and calls == []
    q = data.qrels.query_ids[0]
    qd = {x: dict(zip([data.qrels.doc_vocab[c] for c in data.qrels.doc_index[data.qrels._slice(x)].tolist()],
                      data.qrels.grades[data.qrels._slice(x)].tolist())) for x in data.qrels.query_ids}
    top = runs["bm25"].ranked(q)[0][0]
    qd[q] = {top: 0, **{d: g for d, g in qd[q].items() if d != top}} if top in qd[q] else {**qd[q], top: 2}
    data.qrels = Qrels.from_dict(qd, name=data.qrels.name)  # in memory only: the files (data.key) are unchanged
    new = gate_step(cfg, data, runs, "bm25", out)
    assert calls == ["_gate_doc"]
    assert new["systems"]["bm25"] != old["systems"]["bm25"]


def test_a_changed_routing_log_or_code_is_recomputed(done, monkeypatch):
    cfg_path, out = done
    _, _, data, _ = _inputs(cfg_path, out)
    calls = _spy(monkeypatch, tree_files, "tree_report_from_files")
    full = system_tree_metrics("hcr", data, out)
    assert calls == []
    log = out / "logs" / "hcr.routing.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-1]))  # one routed query fewer
    fewer = system_tree_metrics("hcr", data, out)
    assert calls == ["tree_report_from_files"] and fewer != full
    monkeypatch.setattr(memo, "code_fingerprint", lambda: "another hcrbench")
    assert system_tree_metrics("hcr", data, out) == fewer and len(calls) == 2


def test_a_damaged_memo_is_named_and_recomputed(done, monkeypatch):
    cfg_path, out = done
    cfg, _, data, runs = _inputs(cfg_path, out)
    want = json.loads((out / "gate.json").read_text())
    p = out / "memo" / "gate.json"
    entry = json.loads(p.read_text())
    entry["doc"]["passed"] = not entry["doc"]["passed"]  # a tampered result, its hash left as it was
    p.write_text(json.dumps(entry))
    calls = _spy(monkeypatch, gate_step_mod, "_gate_doc")
    with pytest.warns(HcrbenchWarning, match=r"memo: .*gate\.json is damaged"):
        got = gate_step(cfg, data, runs, "bm25", out)
    assert calls == ["_gate_doc"] and got == want
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gate_step(cfg, data, runs, "bm25", out) == want and len(calls) == 1  # rewritten, reused


def test_a_missing_context_file_is_recomputed_and_memo_off_recomputes(done, monkeypatch):
    cfg_path, out = done
    cfg, text, data, runs = _inputs(cfg_path, out)
    f = out / "contexts" / "hcr.jsonl"
    before = f.read_bytes()
    f.unlink()
    calls = _spy(monkeypatch, context_step_mod, "_context_step")
    context_step(cfg, data, runs, "bm25", out, cfg_path, text, roles=_roles(cfg))
    assert calls == ["_context_step"] and f.read_bytes() == before
    monkeypatch.setenv("HCRBENCH_MEMO", "0")
    context_step(cfg, data, runs, "bm25", out, cfg_path, text, roles=_roles(cfg))
    assert len(calls) == 2 and f.read_bytes() == before


def test_the_context_step_judges_with_the_roles_it_is_handed(done, monkeypatch):
    """The config has no [protocol] table: the roles come from the caller alone. Handed a system under test and a
    flat system, the step highlights them, compares them (the design's token efficiency) and delivers the oracle
    in the system's unit set; the memo of the run without roles is not served for them."""
    cfg_path, out = done
    cfg, text, data, runs = _inputs(cfg_path, out)
    assert cfg.protocol is None
    calls = _spy(monkeypatch, context_step_mod, "_context_step")
    plain, _ = context_step(cfg, data, runs, "bm25", out, cfg_path, text, roles=_roles(cfg))
    assert calls == [] and "token_efficiency_design" not in plain
    roles = ContextRoles(system="hcr", kill_baseline="bm25", flat="bm25")
    doc, _ = context_step(cfg, data, runs, "bm25", out, cfg_path, text, roles=roles)
    assert calls == ["_context_step"]
    assert doc["highlight"] == {"system": "hcr", "kill_baseline": "bm25", "flat": "bm25"}
    assert doc["token_efficiency_design"]["system"] == "hcr" and doc["token_efficiency_design"]["flat"] == "bm25"
    assert doc["budget_feasible"]["unit_set"] == doc["systems"]["hcr"]["unit_set"]


def test_systems_searching_one_tree_share_its_own_measures(done, monkeypatch):
    """Two systems with the same tree files (HCR's search ablations): the tree's own measures are computed once
    and each report equals the one computed alone."""
    import shutil

    import hcrbench.metrics.tree as tree_mod
    from hcrbench.experiment.tree_step import tree_step
    from hcrbench.metrics.tree_files import tree_report_from_files

    cfg_path, out = done
    _, _, data, _ = _inputs(cfg_path, out)
    logs = out / "logs"
    for suffix in (".tree.jsonl", ".tree.npz"):
        if (logs / f"hcr{suffix}").is_file():
            shutil.copy(logs / f"hcr{suffix}", logs / f"twin{suffix}")
    lines = (logs / "hcr.routing.jsonl").read_text().splitlines(keepends=True)
    (logs / "twin.routing.jsonl").write_text("".join(lines[:-1]))  # another search: one routed query fewer
    shutil.rmtree(out / "memo")
    alone = {n: tree_report_from_files(logs / f"{n}.routing.jsonl", None, data.corpus, data.queries, data.qrels,
                                       world_path=Path(data.root) / "world.json")
             for n in ("hcr", "twin")}
    calls = _spy(monkeypatch, tree_mod, "tree_measures")
    docs = tree_step(["hcr", "twin"], data, out)
    assert calls == ["tree_measures"]
    assert docs == json.loads(json.dumps(alone)) and docs["hcr"] != docs["twin"]
