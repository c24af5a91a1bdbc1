"""A runfile system with one run file per split (``params.paths``; ``quickstart --system runfile:FOLDER`` or
``runfile:test=A,dev=B,tune=C``), through the console script: the subject runs on test and, for the power plan,
on tune and dev; an unknown docid or qid is one line naming the file and line, exit 2, before any work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from protocol_bench import write_bench

CONFIG = '''
name = "splits"
output_dir = "out"
metrics = ["nDCG@10"]
n_resamples = 200
family = "metric"
[dataset]
path = "{bench}"
split = "test"
[protocol]
system = "mine"
kill_baseline = "kill"
[[systems]]
name = "kill"
type = "runfile"
params = {{ path = "{kill}" }}
[[systems]]
name = "bm25"
type = "bm25"
[[systems]]
name = "mine"
type = "runfile"
params = {{ paths = {{ {paths} }} }}
'''


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, HCRBENCH_HOME=str(tmp_path / "home"), HCRBENCH_PROGRESS="0")


def _judged(bench: Path, split: str) -> dict[str, list[str]]:
    rel: dict[str, list[str]] = {}
    for ln in (bench / "qrels" / f"{split}.tsv").read_text().splitlines()[1:]:
        q, d, _g = ln.split("\t")
        rel.setdefault(q, []).append(d)
    return rel


def _write_run(bench: Path, path: Path, splits: tuple[str, ...], good: bool = True) -> Path:
    docs = [json.loads(x)["_id"] for x in (bench / "corpus.jsonl").read_text().splitlines()]
    lines = []
    for split in splits:
        for q, ds in _judged(bench, split).items():
            ranked = ds + [d for d in docs if d not in ds] if good else [d for d in docs if d not in ds]
            lines += [f"{q} Q0 {d} {i + 1} {100 - i}.0 x\n" for i, d in enumerate(ranked[:10])]
    path.write_text("".join(lines))
    return path


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    b = write_bench(tmp_path / "bench")
    (b / "qrels" / "dev.tsv").write_text((b / "qrels" / "tune.tsv").read_text())  # dev = tune's queries here
    return b


def _run(tmp_path: Path, bench: Path, paths: dict[str, Path]) -> subprocess.CompletedProcess:
    kill = _write_run(bench, tmp_path / "kill.trec", ("test", "tune"), good=False)
    cfg = tmp_path / "exp.toml"
    cfg.write_text(CONFIG.format(bench=bench, kill=kill, paths=", ".join(f'{s} = "{p}"' for s, p in paths.items())))
    return subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], capture_output=True, text=True,
                          env=_env(tmp_path), check=False, timeout=300)


def test_each_split_answers_from_its_own_file_and_the_power_plan_pilots_on_tune(tmp_path, bench):
    runs = tmp_path / "runs"
    runs.mkdir()
    paths = {"test": _write_run(bench, runs / "test.trec", ("test",)),
             "tune": _write_run(bench, runs / "tune.trec", ("tune",))}
    r = _run(tmp_path, bench, paths)
    assert r.returncode == 0, r.stderr[-2000:]
    ev = json.loads((tmp_path / "out" / "eval.json").read_text())
    assert ev["runs"]["mine"]["means"]["nDCG@10"] == pytest.approx(1.0)  # the judged documents first, on test
    v = json.loads((tmp_path / "out" / "verdicts.json").read_text())
    assert v["system"] == "mine" and v["power_plan"]["pilot"].get("tune") == 40  # its tune file answered there
    # a run file writes no routing log: the dual path's n is not planned for it, and the text names rules, not keys
    plan = v["power_plan"]
    assert set(plan["rules"]) == {"vs_kill_baseline", "kill"}, plan["rules"]
    assert "vs the kill baseline at margin" in plan["text"] and "vs_kill_baseline" not in plan["text"]
    assert v["dev_selection"]["text"].startswith("not run: mine has no dual path")  # not "[protocol] beam_only"
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert set(m["systems"]["mine"]["params"]["paths"]) == {"test", "tune"}


@pytest.mark.parametrize("what", ["docid", "qid"])
def test_an_unknown_id_is_one_line_naming_the_file_and_line(tmp_path, bench, what):
    runs = tmp_path / "runs"
    runs.mkdir()
    test = _write_run(bench, runs / "test.trec", ("test",))
    lines = test.read_text().splitlines(keepends=True)
    bad = "no-such-doc" if what == "docid" else "t0_0"  # a tune query in the test split's file
    q, _q0, d, *rest = lines[2].split()
    lines[2] = " ".join([q, "Q0", bad, *rest]) + "\n" if what == "docid" else " ".join([bad, "Q0", d, *rest]) + "\n"
    test.write_text("".join(lines))
    r = _run(tmp_path, bench, {"test": test})
    assert r.returncode == 2, r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"hcrbench: error: {test}:3: unknown {what} {bad}"), err
    assert not (tmp_path / "out" / "runs").exists()  # refused before any system ran


@pytest.mark.parametrize("arg,why", [("runfile:dev=a.trec", "give the test split's file"),
                                     ("runfile:test=a.trec,train=b.trec", "is not SPLIT=FILE"),
                                     ("runfile:test=/no/such.trec", "not found")])
def test_a_bad_runfile_subject_is_one_line_and_exit_2(tmp_path, arg, why):
    r = subprocess.run(["hcrbench", "quickstart", "--worlds", "1", "--system", arg, "--encoder", "hash", "--out",
                        str(tmp_path / "qs")], capture_output=True, text=True, env=_env(tmp_path), check=False)
    assert r.returncode == 2 and why in r.stderr and "--system" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "qs").exists()


def test_a_folder_without_test_trec_is_refused(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "dev.trec").write_text("q1 Q0 d1 1 1.0 x\n")
    r = subprocess.run(["hcrbench", "quickstart", "--worlds", "1", "--system", f"runfile:{tmp_path / 'runs'}", "--encoder", "hash",
                        "--out", str(tmp_path / "qs")], capture_output=True, text=True, env=_env(tmp_path),
                       check=False)
    assert r.returncode == 2 and "no test.trec" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("what", "expect"), [("docid", "unknown docid no-such-doc (not in the corpus"),
                                              ("score", "score: score is not a number: 'abc'")])
def test_the_subjects_one_run_file_is_checked_before_any_work(tmp_path, bench, what, expect):
    """``runfile:PATH`` (one file, ``params.path``) as the subject: a docid the corpus does not hold or a malformed
    line is one line naming the file and line before any system runs (it used to score 0 with a warning, or fail
    after the field had run)."""
    test = _write_run(bench, tmp_path / "test.trec", ("test",))
    lines = test.read_text().splitlines(keepends=True)
    q, q0, d, rank, score, tag = lines[2].split()
    lines[2] = (" ".join([q, q0, "no-such-doc", rank, score, tag]) if what == "docid"
                else " ".join([q, q0, d, rank, "abc", tag])) + "\n"
    test.write_text("".join(lines))
    kill = _write_run(bench, tmp_path / "kill.trec", ("test", "tune"), good=False)
    cfg = tmp_path / "exp.toml"
    cfg.write_text(CONFIG.format(bench=bench, kill=kill, paths="").replace(
        "params = { paths = {  } }", f'params = {{ path = "{test}" }}'))
    r = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], capture_output=True, text=True,
                       env=_env(tmp_path), check=False, timeout=300)
    assert r.returncode == 2, r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"hcrbench: error: {test}:3: ") and expect in err[0], err
    assert not (tmp_path / "out" / "runs").exists()  # refused before any system ran
