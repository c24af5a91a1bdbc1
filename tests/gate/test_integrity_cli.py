"""lock / verify catch a changed byte in data, config or a run and a changed stored score; gate CLI errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_bench import good_run, make_bench

from hcrbench.cli import main
from hcrbench.data import Qrels, write_beir_qrels, write_run
from hcrbench.errors import InputError
from hcrbench.gate import check_test_split, declare_test_locked, lock_experiment, verify_experiment
from hcrbench.metrics import evaluate

METRICS = ["nDCG@10", "R@5"]


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    """A fake experiment directory with the runner's layout and a tiny BEIR dataset beside it."""
    qrels, pool = make_bench(n_queries=30, n_docs=80, seed=2)
    ds = tmp_path / "data"
    (ds / "qrels").mkdir(parents=True)
    Q = Qrels.from_dict(qrels)
    write_beir_qrels(Q, ds / "qrels" / "test.tsv")
    (ds / "corpus.jsonl").write_text("".join(json.dumps({"_id": d, "text": d}) + "\n" for d in pool))
    exp = tmp_path / "exp"
    (exp / "runs").mkdir(parents=True)
    (exp / "config.toml").write_text('[dataset]\npath = "../data"\n')
    systems = {}
    runs = {"good": good_run(qrels, pool, name="good"), "weak": good_run(qrels, pool, hit=0.2, name="weak")}
    for name, run in runs.items():
        write_run(run, exp / "runs" / f"{name}.trec")
        systems[name] = {"run": f"runs/{name}.trec", "params": {}, "costs": {}, "seconds": 0.0}
    from hcrbench.data import read_run

    res = evaluate(Q, {n: read_run(exp / "runs" / f"{n}.trec", name=n) for n in runs}, METRICS)
    (exp / "eval.json").write_text(json.dumps({"runs": {n: {"means": res.means[n]} for n in runs}}))
    files = {"qrels/test.tsv": "x", "corpus.jsonl": "x"}
    manifest = {"status": "complete", "config": {}, "dataset": {"path": str(ds), "split": "test", "files": files}, "systems": systems,
                "metrics": METRICS, "rel_threshold": 1, "seed": 0}
    (exp / "manifest.json").write_text(json.dumps(manifest))
    return exp


@pytest.mark.parametrize("status", ["partial", None])
def test_lock_refuses_an_incomplete_experiment(experiment, status):
    m = json.loads((experiment / "manifest.json").read_text())
    if status is None:
        del m["status"]
    else:
        m["status"] = status
    (experiment / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(InputError, match="not complete") as ei:
        lock_experiment(experiment)
    assert "\n" not in str(ei.value) and "status" in str(ei.value)
    assert not (experiment / "hcrbench.lock").exists()


def _flip_byte(p: Path) -> None:
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0x01
    p.write_bytes(bytes(b))


def test_lock_then_verify_is_clean(experiment):
    lock = lock_experiment(experiment)
    assert set(lock["files"]) == {"config.toml", "manifest.json", "eval.json", "runs/good.trec", "runs/weak.trec"}
    assert set(lock["dataset"]["files"]) == {"qrels/test.tsv", "corpus.jsonl"}
    first = (experiment / "hcrbench.lock").read_bytes()
    lock_experiment(experiment)
    assert (experiment / "hcrbench.lock").read_bytes() == first  # deterministic
    assert verify_experiment(experiment).ok
    assert main(["verify", str(experiment)]) == 0


@pytest.mark.parametrize("target", ["../data/qrels/test.tsv", "../data/corpus.jsonl", "config.toml",
                                    "runs/good.trec"])
def test_verify_catches_a_changed_byte(experiment, target):
    lock_experiment(experiment)
    _flip_byte((experiment / target).resolve())
    rep = verify_experiment(experiment)
    assert not rep.ok and any("sha256 changed" in p for p in rep.problems)
    assert main(["verify", str(experiment)]) == 1


def test_verify_catches_a_changed_stored_score(experiment):
    lock_experiment(experiment)
    ev = json.loads((experiment / "eval.json").read_text())
    ev["runs"]["good"]["means"]["nDCG@10"] += 1e-9
    (experiment / "eval.json").write_text(json.dumps(ev))
    rep = verify_experiment(experiment)
    assert any("re-evaluated" in p for p in rep.problems)
    assert any("locked mean" in p for p in rep.problems)
    assert main(["verify", str(experiment)]) == 1


def test_verify_catches_a_run_rescored_consistently(experiment):
    """An edited mean is refused by lock; with eval.json and the lock rewritten (hash and mean), a stored score
    that disagrees with the run is still caught by verify."""
    from hcrbench.data.hashing import sha256_file
    from hcrbench.gate import LOCK_NAME

    lock_experiment(experiment)
    ev = json.loads((experiment / "eval.json").read_text())
    ev["runs"]["weak"]["means"]["R@5"] = 0.99
    (experiment / "eval.json").write_text(json.dumps(ev))
    with pytest.raises(InputError, match=r"weak means R@5: stored 0\.99"):
        lock_experiment(experiment)
    lock = json.loads((experiment / LOCK_NAME).read_text())
    lock["files"]["eval.json"] = sha256_file(experiment / "eval.json")
    lock["means"]["weak"]["R@5"] = 0.99
    (experiment / LOCK_NAME).write_text(json.dumps(lock))
    rep = verify_experiment(experiment)
    assert rep.problems and all("weak R@5" in p for p in rep.problems)


def test_verify_without_lock_is_input_error(experiment, capsys):
    with pytest.raises(SystemExit) as e:
        main(["verify", str(experiment)])
    assert e.value.code == 2 and "hcrbench.lock" in capsys.readouterr().err


def test_test_split_lock(experiment, tmp_path, monkeypatch):
    monkeypatch.setenv("HCRBENCH_HOME", str(tmp_path / "home"))
    check_test_split(experiment)  # nothing locked yet
    declare_test_locked(experiment)
    with pytest.raises(InputError, match="--force-test"):
        check_test_split(experiment)
    check_test_split(experiment, force_test=True)


# ------------------------------------------------------------------------------------------ gate CLI


@pytest.fixture
def gate_files(tmp_path):
    qrels, pool = make_bench(n_queries=60, n_docs=150, seed=8)
    qp, pp, rp = tmp_path / "q.txt", tmp_path / "pool.txt", tmp_path / "good.trec"
    from hcrbench.data import write_qrels

    write_qrels(Qrels.from_dict(qrels), qp)
    pp.write_text("\n".join(pool) + "\n")
    write_run(good_run(qrels, pool), rp)
    return qp, pp, rp


def test_gate_cli_json(gate_files, tmp_path, capsys):
    qp, pp, rp = gate_files
    out = tmp_path / "g.json"
    rc = main(["gate", str(rp), "--qrels", str(qp), "--item-pool", str(pp), "--n-trials", "100", "--controls",
               "--json", str(out)])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert doc["systems"]["good"]["graded"]["gate_pass"] is True
    assert doc["controls"]["trusted"] in (True, False) and len(doc["controls"]["rows"]) == 14
    text = capsys.readouterr().out
    assert "Controls" in text and "harness trusted" in text


@pytest.mark.parametrize("extra,needle", [
    (["--metric", "bleu"], "--metric"), (["--n-trials", "0"], "--n-trials"), (["--alpha", "2"], "--alpha"),
    (["--item-pool", "/nonexistent/pool.txt"], "pool.txt"),
])
def test_gate_cli_bad_input_exits_2(gate_files, capsys, extra, needle):
    qp, pp, rp = gate_files
    args = ["gate", str(rp), "--qrels", str(qp), "--item-pool", str(pp), *extra]
    with pytest.raises(SystemExit) as e:
        main(args)
    err = capsys.readouterr().err
    assert e.value.code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_gate_cli_needs_pool(gate_files, capsys):
    qp, _, rp = gate_files
    with pytest.raises(SystemExit) as e:
        main(["gate", str(rp), "--qrels", str(qp)])
    assert e.value.code == 2 and "--item-pool" in capsys.readouterr().err
