"""``hcrbench run`` with [gate] and [protocol] through the console script: gate.json, routing logs,
tree_metrics.json, verdicts.json, one Holm family, the bottom line, and --fail-fast."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

SYSTEMS = """
[[systems]]
name = "hcr"
type = "hcr"
params = {{ backend = "hash", seed = 0, chunk_tokens = 64, chunk_overlap = 8 }}
seed_group = "hcr"

[[systems]]
name = "hcr-seed1"
type = "hcr"
params = {{ backend = "hash", seed = 1, chunk_tokens = 64, chunk_overlap = 8 }}
seed = 1
seed_group = "hcr"

[[systems]]
name = "rerank"
{rerank}

[[systems]]
name = "bm25"
type = "bm25"

[[systems]]
name = "hcr-beam"
type = "hcr"
params = {{ backend = "hash", mode = "beam", chunk_tokens = 64, chunk_overlap = 8, beam_width = 1, target_pool = 8 }}

[[systems]]
name = "hcr-no-links"
type = "hcr"
params = {{ backend = "hash", links = false, chunk_tokens = 64, chunk_overlap = 8 }}
"""

HEAD = """
name = "protocol-test"
output_dir = "out"
seed = 0
metrics = ["nDCG@10", "R@100"]
baseline = "rerank"
n_resamples = 500
family = "metric"  # declared so that run (two metrics) and the gate (one) share one family; default: "run"
budgets = [200, 400, 600]

[dataset]
path = "{bench}"
split = "test"

[gate]
n_trials = 40
controls = true

[protocol]
system = "hcr"
kill_baseline = "rerank"
flat = "bm25"
beam_only = "hcr-beam"
no_links = "hcr-no-links"
"""

FLAT_RERANK = 'type = "hcr"\nparams = { backend = "hash", flat = true, chunk_tokens = 64, chunk_overlap = 8 }'


def _config(tmp_path: Path, bench: Path, rerank: str = FLAT_RERANK, extra: str = "") -> Path:
    cfg = tmp_path / "exp.toml"
    cfg.write_text(HEAD.format(bench=bench) + extra + SYSTEMS.format(rerank=rerank), encoding="utf-8")
    return cfg


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *args], capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    """One full protocol run (module-scoped: it is the slow part)."""
    import os

    from protocol_bench import write_bench

    tmp = tmp_path_factory.mktemp("protocol")
    os.environ["HCRBENCH_HOME"] = str(tmp / "home")
    bench = write_bench(tmp / "bench")
    cfg = _config(tmp, bench)
    r = _run("run", str(cfg), "--quiet")
    return tmp, bench, cfg, r


def test_run_writes_gate_tree_metrics_and_verdicts(done):
    tmp, _, _, r = done
    assert r.returncode == 0, r.stderr[-3000:]
    out = tmp / "out"
    for f in ("gate.json", "tree_metrics.json", "verdicts.json", "eval.json", "logs/hcr.routing.jsonl",
              "logs/hcr.tree.jsonl", "logs/hcr.tree.npz"):
        assert (out / f).is_file(), f
    assert not (out / "logs" / "bm25.routing.jsonl").exists()  # only tree retrievers log routing
    tm = json.loads((out / "tree_metrics.json").read_text())
    assert set(tm) == {"hcr", "hcr-seed1", "hcr-beam", "hcr-no-links", "rerank"}  # every hcr system, flat too
    assert all(len(tm[n]["routing"]["eps_any"]) >= 1 for n in ("hcr", "hcr-seed1", "hcr-beam", "hcr-no-links"))
    assert tm["rerank"]["routing"]["eps_any"] == [] and tm["rerank"]["paths"] == {"flat": 40}  # no tree routing


def test_one_holm_family_in_eval_and_gate(done):
    """With a declared family, run and the runner's gate correct over the same family: the same Holm p."""
    tmp, _, _, _ = done
    ev = json.loads((tmp / "out" / "eval.json").read_text())
    gate = json.loads((tmp / "out" / "gate.json").read_text())
    assert ev["family"] == gate["family"] == \
        "Holm over every system compared with the baseline 'rerank', separately for each metric"
    in_eval = {c["run"]: c for c in ev["comparisons"] if c["metric"] == "nDCG@10"}
    in_gate = {c["run"]: c for c in gate["verdicts"] if c["metric"] == "nDCG@10"}
    assert set(in_eval) == set(in_gate) and len(in_eval) == 5
    for run, c in in_eval.items():
        assert c["family_size"] == in_gate[run]["family_size"] == 5
        assert c["delta"] == pytest.approx(in_gate[run]["delta"], abs=1e-12)
        assert c["p_holm"] == pytest.approx(in_gate[run]["p_holm"], abs=1e-12)


@pytest.mark.slow
def test_gate_json_matches_the_gate_command(done, tmp_path):
    """The runner's gate step writes what `hcrbench gate --controls --baseline --json` writes for the same runs."""
    tmp, bench, _, _ = done
    out = tmp / "out"
    cli = tmp_path / "gate.json"
    runs = [str(p) for p in sorted((out / "runs").glob("*.trec"))]
    r = _run("gate", *runs, "--dataset", str(bench), "--controls", "--baseline", "rerank", "--n-trials", "40",
             "--n-resamples", "500", "--family", "metric", "--json", str(cli))  # as the config declares
    assert r.returncode in (0, 1), r.stderr[-2000:]
    mine, theirs = json.loads((out / "gate.json").read_text()), json.loads(cli.read_text())
    for key in ("metric", "strict", "baseline", "family", "family_kind"):
        assert mine[key] == theirs[key], key
    assert {n: s["graded"]["real_mean"] for n, s in mine["systems"].items()} == \
        {n: s["graded"]["real_mean"] for n, s in theirs["systems"].items()}
    pick = {(c["run"], c["metric"]): c["p_holm"] for c in theirs["verdicts"]}
    assert {(c["run"], c["metric"]): c["p_holm"] for c in mine["verdicts"]} == pytest.approx(pick)
    assert mine["controls"]["trusted"] == theirs["controls"]["trusted"]


def test_tree_metrics_match_the_tree_metrics_command(done, tmp_path):
    tmp, bench, _, _ = done
    cli = tmp_path / "tm.json"
    r = _run("tree-metrics", str(tmp / "out" / "logs" / "hcr.routing.jsonl"), "--dataset", str(bench),
             "--json", str(cli))
    assert r.returncode == 0, r.stderr[-2000:]
    mine = json.loads((tmp / "out" / "tree_metrics.json").read_text())["hcr"]
    theirs = json.loads(cli.read_text())["routing"]
    assert _leaves(mine["routing"]).keys() == _leaves(theirs).keys()
    assert _leaves(mine["routing"]) == pytest.approx(_leaves(theirs))  # pytest >= 9 refuses nested dicts in approx


def _leaves(doc, prefix=""):
    """A nested JSON document as {"a/b/c": leaf}: what pytest.approx can compare."""
    if isinstance(doc, dict):
        return {k: v for key, sub in doc.items() for k, v in _leaves(sub, f"{prefix}{key}/").items()}
    if isinstance(doc, list):
        return {k: v for i, sub in enumerate(doc) for k, v in _leaves(sub, f"{prefix}{i}/").items()}
    return {prefix: doc}


def test_verdicts_follow_the_contract_and_the_terminal_ends_with_the_bottom_line(done):
    tmp, _, _, r = done
    v = json.loads((tmp / "out" / "verdicts.json").read_text())
    assert v["schema"] == "hcrbench.verdicts/1" and v["system"] == "hcr" and v["kill_baseline"] == "rerank"
    assert v["overall"] in ("go", "soft no-go", "no-go", "invalidated", "stop and diagnose", "inconclusive")
    assert [c["id"] for c in v["checkpoints"]] == ["tree_sanity", "easy_routing", "vs_kill_baseline",
                                                    "token_efficiency"]
    assert [h["id"] for h in v["hypotheses"]] == ["H1a", "H1b", "H1c", "failure_rate", "corpus_size", "kill"]
    for c in v["checkpoints"]:
        assert c["status"] in ("pass", "not decidable", "not run") or c["status"].startswith("stop and diagnose: ")
        assert set(c) >= {"criterion", "value", "threshold", "text", "n", "interval"}
    for h in v["hypotheses"]:
        assert h["verdict"] in ("go", "soft no-go", "no-go", "kill", "inconclusive", "not decidable", "not run")
        assert "n" in h and "interval" in h
        # the constructed benchmark is taken whole (its full size); its kill baseline (A1) trails BM25 on the tune
        # split, so it is no value barrier and the kill criterion is judged against BM25 (protocol/field.py)
        assert h["verdict"] != "kill" or "kill baseline weaker than bm25: not a value barrier" in h["text"]
    # the sufficiency rules are gated by the passage-level control, never by the perfect document ranking
    for h in v["hypotheses"]:
        if h["id"] in ("H1a", "failure_rate") and h["verdict"] != "not run":
            assert "on this harness" not in h["text"] and "passage_failure@400" in h["evidence"], h["text"]
    # the easy-routing checkpoint read the tune split (never test): the system ran once more on it
    er = next(c for c in v["checkpoints"] if c["id"] == "easy_routing")
    cp_n = next(c for c in v["checkpoints"] if c["id"] == "vs_kill_baseline")["n"]
    assert er["status"] != "not run" and "of tune" in er["text"] and er["n"] == 40
    assert (tmp / "out" / "logs" / "checkpoint" / "hcr.routing.jsonl").is_file()
    # the protocol controls: every row judged and shaped as the contract says
    ctl = v["controls"]
    assert {c["control"] for c in ctl} == {"oracle", "clone", "degraded", "twin", "plus_margin", "minus_margin"}
    assert all(set(c) >= {"control", "rule", "expected", "got", "ok"} for c in ctl)
    got = {(c["control"], c["rule"]): c["got"] for c in ctl}
    assert got[("oracle", "kill")] == "go" and got[("degraded", "kill")] == "kill"
    assert got[("clone", "kill")] == "not decidable"  # issue #33: undecided at n is "not decidable", not a verdict
    # every judged rule carries its operating characteristics, measured on this run's own per-query data
    ops = v["operating"]
    assert {"kill", "vs_kill_baseline", "overall"} <= set(ops)
    for rid in ("kill", "vs_kill_baseline"):
        for row in ops[rid]["constructions"]["re-centred"]:
            assert row["p_go"] + row["p_nogo"] + row["p_soft"] + row["p_undecidable"] == pytest.approx(1.0)
        assert ops[rid]["reps"] >= 1000 and ops[rid]["n"] == cp_n
    assert all(sum(v for k, v in t.items() if k != "truth") == pytest.approx(1.0) for t in ops["overall"]["truths"])
    # the kill test: its own family, the one cluster-robust path (no clusters here: each query its own), the two
    # tree seeds as a variance component on Welch-Satterthwaite df
    kill = next(h for h in v["hypotheses"] if h["id"] == "kill")
    assert kill["interval_kind"].startswith("cluster-robust CR2 t 95% (no clusters known")
    assert "tree-seed variance component" in kill["interval_kind"]
    seeds = kill["evidence"]["tree_seeds"]
    assert seeds["k"] == 2 and seeds["half"] >= 0 and seeds["var"] >= 0 and seeds["df"] >= 1
    # checkpoint 3 decides on the betting interval (valid at every n, wide at this fixture's n): the degraded
    # control is stopped or, as the registry allows, not decidable; never passed
    assert got[("degraded", "vs_kill_baseline")].startswith(("stop and diagnose", "not decidable"))
    cp3 = next(c for c in v["checkpoints"] if c["id"] == "vs_kill_baseline")
    assert cp3["interval_kind"].startswith("betting 95%")
    assert v["undecidable_rules"] == sorted({c["rule"] for c in ctl if not c["ok"]})
    assert isinstance(v["tuning"], dict) and "status" in v["tuning"]
    # cost beside quality for every system, flat ones too: bm25 scores every document of the 40-document corpus
    cost = json.loads((tmp / "out" / "eval.json").read_text())["cost"]
    assert set(cost) == {"hcr", "hcr-seed1", "rerank", "bm25", "hcr-beam", "hcr-no-links"}
    assert cost["bm25"]["chunks_scored"] == 40 and cost["bm25"]["nodes_scored"] == 0
    assert cost["bm25"]["reranker_calls"] == 0 and cost["bm25"]["depth"] <= 40
    assert cost["hcr"]["nodes_scored"] > 0 and cost["hcr-beam"]["chunks_scored"] < cost["bm25"]["chunks_scored"]
    assert v["cost"]["system"]["chunks_scored"] == (cost["hcr"]["chunks_scored"] + cost["hcr-seed1"]["chunks_scored"]) / 2
    assert v["cost_line"] in v["bottom_line"]
    hyp = {h["id"]: h for h in v["hypotheses"]}
    assert hyp["corpus_size"]["verdict"] == "not run"  # one size: never a made-up number
    assert v["seeds"] == [0, 1] and v["seed_aggregate"]["n_seeds"] == 2
    # the numbers behind the checkpoints are the experiment's own
    ev = json.loads((tmp / "out" / "eval.json").read_text())
    means = {n: ev["runs"][n]["means"]["nDCG@10"] for n in ("hcr", "hcr-seed1", "rerank")}
    cp = {c["id"]: c for c in v["checkpoints"]}  # HCR's figures are means over its two seeds
    assert cp["vs_kill_baseline"]["value"] == pytest.approx((means["hcr"] + means["hcr-seed1"]) / 2
                                                            - means["rerank"])
    assert ev["seed_aggregates"]["hcr"]["nDCG@10"]["mean"] == pytest.approx((means["hcr"] + means["hcr-seed1"]) / 2)
    tm = json.loads((tmp / "out" / "tree_metrics.json").read_text())
    assert cp["tree_sanity"]["value"] == pytest.approx(tm["hcr"]["tree"]["sibling_distinctiveness"]["mean"])
    suff = ev["sufficiency"]["systems"]
    kind = ev["sufficiency"]["headline"]
    rate = {n: suff[n]["rates"]["400"][kind]["rate"] for n in ("hcr", "hcr-seed1", "bm25")}
    assert cp["token_efficiency"]["value"] == pytest.approx((rate["hcr"] + rate["hcr-seed1"]) / 2 - rate["bm25"])
    assert "bottom line:" in r.stdout and v["bottom_line"].split(";")[0][:30] in " ".join(r.stdout.split())
    assert "report:" in r.stdout and (tmp / "out" / "report.html").is_file()
    assert "gate: " in r.stdout


@pytest.mark.slow
def test_rerun_reuses_every_system_and_gives_the_same_verdicts(done):
    tmp, _, cfg, _ = done
    before = (tmp / "out" / "verdicts.json").read_bytes()
    r = _run("run", str(cfg), "--quiet")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "computed 0, reused 6" in r.stderr
    assert (tmp / "out" / "verdicts.json").read_bytes() == before


def test_fail_fast_does_not_stop_on_a_checkpoint_its_n_cannot_decide(bench, tmp_path):
    """A perfect kill baseline: the system trails by far more than 0.02 (its whole CI), but at 40 queries the
    margin checkpoint has power far below 0.8 at the design's margin (issue #33): it says "not decidable at n = 40;
    needs n ~ M" instead of stop, and --fail-fast lets the run go on (it stops only where the verdict would)."""
    qrels = (bench / "qrels" / "test.tsv").read_text().splitlines()[1:]
    perfect = tmp_path / "perfect.trec"
    perfect.write_text("".join(f"{q} Q0 {d} 1 {g}.0 perfect\n" for q, d, g in (ln.split("\t") for ln in qrels)))
    cfg = _config(tmp_path, bench, rerank=f'type = "runfile"\nparams = {{ path = "{perfect}" }}')
    cfg.write_text(cfg.read_text().replace("[gate]\nn_trials = 40\ncontrols = true\n", ""))  # no gate: faster
    r = _run("run", str(cfg), "--quiet", "--fail-fast")
    assert r.returncode == 0, r.stderr[-2000:]
    v = json.loads((tmp_path / "out" / "verdicts.json").read_text())
    assert v["stopped"] is None and v["overall"] != "stop and diagnose"
    c3 = next(c for c in v["checkpoints"] if c["id"] == "vs_kill_baseline")
    # the checkpoint's betting interval reaches -0.02 at n = 40 (or, if it did not, the operating gate would say
    # "not decidable at n = 40; needs n ~ M"): not decidable either way, never stop
    assert c3["status"] == "not decidable"
    assert c3.get("before_operating") in (None, "stop and diagnose: retrieval quality")
    assert "not decidable at n = 40" in c3["text"] and c3["interval_kind"].startswith("betting 95%")
    op = v["operating"]["vs_kill_baseline"]
    assert not op["decidable"] and op["power_nogo"] < 0.8 and op["needs_n"] > 40
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert {"hcr", "hcr-seed1", "rerank", "bm25"} <= set(m["systems"])  # nothing was skipped


def test_protocol_names_must_be_systems(bench, tmp_path):
    cfg = _config(tmp_path, bench)
    cfg.write_text(cfg.read_text().replace('beam_only = "hcr-beam"', 'beam_only = "hcr-bean"'))
    r = _run("run", str(cfg))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "protocol.beam_only" in r.stderr and "did you mean 'hcr-beam'" in r.stderr
    line = next(i for i, ln in enumerate(cfg.read_text().splitlines(), 1) if ln.startswith("beam_only"))
    assert f":{line}" in r.stderr
    cfg.write_text(cfg.read_text().replace("n_trials = 40", "n_trails = 40"))
    r = _run("run", str(cfg))
    assert r.returncode == 2 and "unknown key" in r.stderr and "n_trials" in r.stderr


def test_a_perfect_runfile_retriever_as_the_system_gets_no_no_go_or_kill(bench, tmp_path):
    """Issue #33's first finding, through `hcrbench run`: a runfile that ranks every relevant document first by
    grade, named as the protocol's system. No rule may act against it; the tree-only rules say it writes no
    routing log; every row names it, never "HCR"."""
    qrels = (bench / "qrels" / "test.tsv").read_text().splitlines()[1:]
    perfect = tmp_path / "perfect.trec"
    perfect.write_text("".join(f"{q} Q0 {d} 1 {g}.0 perfect\n" for q, d, g in (ln.split("\t") for ln in qrels)))
    extra = f'\n[[systems]]\nname = "perfect"\ntype = "runfile"\nparams = {{ path = "{perfect}" }}\n'
    cfg = _config(tmp_path, bench)
    text = cfg.read_text().replace('system = "hcr"\n', 'system = "perfect"\n', 1)
    text = text.replace("[gate]\nn_trials = 40\ncontrols = true\n", "")
    cfg.write_text(text + extra)
    r = _run("run", str(cfg), "--quiet")
    assert r.returncode == 0, r.stderr[-2000:]
    v = json.loads((tmp_path / "out" / "verdicts.json").read_text())
    rows = [*v["checkpoints"], *v["hypotheses"]]
    said = {x["id"]: x.get("status", x.get("verdict")) for x in rows}
    assert not any(s in ("no-go", "kill") or s.startswith("stop and diagnose") for s in said.values()), said
    assert v["overall"] not in ("no-go", "invalidated", "stop and diagnose")
    for rid in ("tree_sanity", "easy_routing", "H1b", "H1c"):
        assert said[rid] == "not run"
        assert next(x for x in rows if x["id"] == rid)["text"] == "not run: perfect writes no routing log"
    assert all("HCR" not in x["text"] + x["criterion"] for x in rows), [x["text"] for x in rows if "HCR" in x["text"]]
