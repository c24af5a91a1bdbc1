"""benchmarks/known_truth_quickstart.py: the subjects it hands the quickstart have the per-world truths it claims
(their run files score what the construction says under the toolkit's own nDCG@10), and its bookkeeping calls a
decision wrong exactly when it contradicts the sign of the effect."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).parents[2] / "benchmarks" / "known_truth_quickstart.py"


@pytest.fixture(scope="module")
def kt():
    spec = importlib.util.spec_from_file_location("known_truth_quickstart", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["known_truth_quickstart"] = mod
    spec.loader.exec_module(mod)
    return mod


def _world(rng, n_worlds=2, n=80):
    """A baseline ranking over 30 documents per query, 1-4 graded relevant documents, in worlds w02, w03..."""
    ranking, qrels = {}, {}
    for w in range(2, 2 + n_worlds):
        for i in range(n):
            q = f"w{w:02d}-Q{i:03d}"
            docs = [f"w{w:02d}-D{j:03d}" for j in rng.permutation(300)[:30]]
            rel = {d: int(rng.integers(1, 3)) for d in rng.choice(docs, size=int(rng.integers(1, 5)), replace=False)}
            ranking[q], qrels[q] = docs, rel
    return ranking, qrels


def _ndcg(qrels, ranking):
    """The toolkit's own nDCG@10 per query (trec_eval semantics), not a re-derivation."""
    from hcrbench.metrics import evaluate

    run = {q: {d: float(len(docs) - r) for r, d in enumerate(docs)} for q, docs in ranking.items()}
    df = evaluate(qrels, run, "nDCG@10").per_query
    return {str(q): float(v) for q, v in zip(df["query_id"], df["nDCG@10"])}


@pytest.mark.parametrize("effect", [0.06, -0.06, 0.0])
def test_each_world_gets_the_effect_it_claims_under_the_toolkit_s_ndcg(kt, effect):
    from hcrbench.synth.worlds import world_of

    rng = np.random.default_rng(1)
    ranking, qrels = _world(rng)
    base = _ndcg(qrels, ranking)
    subj, realised = kt.build_subject(base, ranking, qrels, effect, np.random.default_rng(2), world_of)
    got = _ndcg(qrels, subj)
    for w, info in realised.items():
        qs = [q for q in base if world_of(q) == w]
        measured = float(np.mean([got[q] - base[q] for q in qs]))
        assert measured == pytest.approx(info["delta"], abs=1e-12)
        assert abs(measured - effect) < 0.01, (w, measured)
        if effect == 0:
            assert info["up"] > 0 and info["down"] > 0  # a null with real per-query spread, not a clone
    assert sum(got[q] != base[q] for q in base) < len(base)  # most queries keep the baseline's ranking


def test_the_run_file_round_trips(kt, tmp_path):
    rng = np.random.default_rng(3)
    ranking, _ = _world(rng, n_worlds=1, n=5)
    kt.write_trec_run(ranking, tmp_path / "r.trec", "t")
    back = kt.read_trec_run(tmp_path / "r.trec")
    assert back == {q: v[:100] for q, v in ranking.items()}


def test_a_subject_s_folder_is_the_pilot_s_owned_by_the_subject_s_config(kt, tmp_path):
    import json

    pilot = tmp_path / "pilot"
    (pilot / "runs").mkdir(parents=True)
    (pilot / "runs" / "rerank.trec").write_text("q Q0 d 1 1 t\n")
    (pilot / "verdicts.json").write_text("{}")
    (pilot / ".hcrbench-busy").write_text("{}")
    (pilot / ".hcrbench-folder.json").write_text(json.dumps({"owner": "hcrbench", "name": "x",
                                                             "config_path": str(pilot / "quickstart.toml")}))
    out = tmp_path / "run"
    kt.adopt(pilot, out)
    assert (out / "runs" / "rerank.trec").is_file()
    assert not (out / "verdicts.json").exists() and not (out / ".hcrbench-busy").exists()
    marker = json.loads((out / ".hcrbench-folder.json").read_text())
    assert marker["config_path"] == str((out / "quickstart.toml").resolve()) and marker["name"] == "x"


def test_the_table_counts_each_effect_s_verdicts_and_the_worlds_undecided_rows_print(kt):
    def row(seed, eff, dec, more=None):
        und = {"at_n": 570, "needs_n": 900, "unit": None, "more_worlds": more} if more is not None else None
        return {"seed": seed, "effect": eff, "truth": eff, "decision": dec, "checkpoint3": "pass",
                "wrong": (eff > 0 and dec == "kill") or (eff < 0 and dec == "go") or (eff == 0 and dec in ("go", "kill")),
                "decided": dec in ("go", "kill"), "undecided": und}

    doc = {"config": {"seeds": [1, 2, 3], "effects": [0.06, 0.0], "worlds": 4, "encoder": "hash"},
           "rows": [row(1, 0.06, "go"), row(2, 0.06, "go"), row(3, 0.06, "not decidable", 3),
                    row(1, 0.0, "not decidable", 1), row(2, 0.0, "kill"), row(3, 0.0, "not decidable", 5)]}
    lines = kt.markdown(doc).splitlines()
    plus = next(ln for ln in lines if ln.startswith("| +0.06 |"))
    zero = next(ln for ln in lines if ln.startswith("| +0.00 |"))
    assert plus.split(" | ")[3:9] == ["2", "0", "1", "0", "2", "3"]   # go, kill, undecided, wrong, decided, worlds
    assert zero.split(" | ")[3:9] == ["0", "1", "2", "1", "1", "3"]


def test_a_world_spread_draws_each_world_s_target_around_the_effect_and_none_keeps_every_world_at_it(kt):
    from hcrbench.synth.worlds import world_of

    rng = np.random.default_rng(4)
    ranking, qrels = _world(rng, n_worlds=6, n=120)
    base = _ndcg(qrels, ranking)
    fixed, r0 = kt.build_subject(base, ranking, qrels, 0.06, np.random.default_rng(5), world_of)
    again, _ = kt.build_subject(base, ranking, qrels, 0.06, np.random.default_rng(5), world_of, world_sd=0.0)
    assert fixed == again and all(x["target"] == 0.06 for x in r0.values())
    subj, r1 = kt.build_subject(base, ranking, qrels, 0.06, np.random.default_rng(5), world_of, world_sd=0.05)
    targets = [x["target"] for x in r1.values()]
    assert len(set(targets)) == len(targets) and np.std(targets) > 0.01  # each world its own draw
    got = _ndcg(qrels, subj)
    for w, info in r1.items():
        qs = [q for q in base if world_of(q) == w]
        measured = float(np.mean([got[q] - base[q] for q in qs]))
        assert measured == pytest.approx(info["delta"], abs=1e-12)
        assert abs(measured - info["target"]) < 0.01, (w, measured, info["target"])


def test_timed_counts_the_cpu_of_the_command_s_children(kt, tmp_path):
    burn = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'sum(range(10_000_000))'])"
    rec = kt.timed([sys.executable, "-c", burn], dict(__import__("os").environ), tmp_path / "x.log")
    assert rec["cpu_s"] > 0.05 and rec["wall_s"] >= 0 and "load_start" in rec
    with pytest.raises(RuntimeError, match="exited 3"):
        kt.timed([sys.executable, "-c", "raise SystemExit(3)"], {}, tmp_path / "y.log")


def test_each_quickstart_s_home_lies_beside_its_folder_not_in_it(kt, tmp_path, monkeypatch):
    """The quickstart refuses a folder holding files it did not write: a look registry inside the output folder
    stopped every pilot (exit 2) before this."""
    seen = {}

    def fake(cmd, env, log):
        seen.update(cmd=cmd, env=env, log=log)
        return {"wall_s": 1.0, "cpu_s": 1.0, "load_start": 0.0, "started": "x"}

    monkeypatch.setattr(kt, "timed", fake)
    out = tmp_path / "pilot-1"
    kt.quickstart(out, 1, 4, "hash", 1, "bm25")
    home = Path(seen["env"]["HCRBENCH_HOME"])
    assert out not in home.parents and home != out and home.parent == out.parent
    assert seen["cmd"][seen["cmd"].index("--max-worlds") + 1] == "4"
    assert (tmp_path / "pilot-1.timing.json").is_file() and not out.exists()


def test_collect_runs_no_quickstart_and_leaves_out_what_is_not_finished(kt, tmp_path, monkeypatch):
    monkeypatch.setattr(kt, "quickstart", lambda *a, **k: pytest.fail("collect ran a quickstart"))
    doc = kt.run([7], [0.06], 4, "hash", 1, tmp_path, log=lambda s: None, collect=True)
    assert doc["rows"] == [] and doc["pilots"] == {}


def test_a_pilot_made_with_other_worlds_is_refused_not_reused(kt, tmp_path, monkeypatch):
    """The folders are named by seed only: a --worlds 6 run in a --worlds 4 workdir would judge its subjects on the
    4-world pilot's test worlds."""
    monkeypatch.setattr(kt, "quickstart", lambda *a, **k: pytest.fail("ran a quickstart"))
    pilot = tmp_path / "pilot-7"
    pilot.mkdir()
    (pilot / "verdicts.json").write_text("{}", encoding="utf-8")
    (pilot / "quickstart.toml").write_text("[dataset]\nworlds = 4\n", encoding="utf-8")
    assert kt.pilot_worlds(pilot) == 4
    for collect in (True, False):
        with pytest.raises(SystemExit, match="made with 4 worlds, not --worlds 6"):
            kt.run([7], [0.06], 6, "hash", 1, tmp_path, log=lambda s: None, collect=collect)


def test_a_spread_table_shows_each_run_s_world_means_and_a_fixed_one_does_not(kt):
    row = {"seed": 1, "effect": 0.06, "truth": 0.05, "decision": "go", "wrong": False, "decided": True,
           "checkpoint3": "pass", "realised": {2: {"delta": 0.021}, 3: {"delta": 0.079}}}
    cfg = {"seeds": [1], "effects": [0.06], "worlds": 4, "encoder": "hash"}
    spread = kt.markdown({"config": {**cfg, "world_sd": 0.03}, "rows": [row]})
    fixed = kt.markdown({"config": {**cfg, "world_sd": 0.0}, "rows": [row]})
    assert "| +0.0500 (worlds +0.021 to +0.079) |" in spread and "drawn as effect + 0.03" in spread
    assert "| +0.0500 |" in fixed and "(worlds" not in fixed


def test_the_block_of_two_parts_is_stamped_by_its_runs_not_by_when_they_were_gathered(kt):
    sys.path.insert(0, str(BENCH.parents[1] / "scripts"))
    from doc_figures_registry import known_truth

    cfg = {"seeds": [1], "effects": [0.06], "worlds": 4, "encoder": "hash"}
    part = {"config": cfg, "rows": []}
    doc = {"measured_on": {"date": "2026-12-08 09:00 UTC", "machine": "2-core X", "load": "0.1"},
           "runs": [{**part, "measured_on": {"date": "2026-12-07 23:27 UTC", "machine": "2-core X", "load": "2.4-7"}},
                    {**part, "config": {**cfg, "world_sd": 0.03},
                     "measured_on": {"date": "2026-12-08 00:10 UTC", "machine": "2-core X", "load": "1.5-9.25"}}]}
    text = known_truth(doc)
    assert text.startswith("Measured 2026-12-07 23:27 UTC on 2-core X (load average 1.5-9.25 at the start")
    assert "every test world's mean difference fixed at the effect" in text and "drawn as effect + 0.03" in text
