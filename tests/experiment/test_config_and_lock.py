"""Config mistakes are one-line errors (file:line: key: problem, exit 2); locked test splits score once."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hcrbench.cli import main
from hcrbench.errors import InputError
from hcrbench.experiment import parse_config, registry_path, run_experiment

from .conftest import CONFIG, write_beir

BASE = CONFIG.format(locked="false")


def _cli_error(cfg: Path, capsys, *extra: str) -> str:
    with pytest.raises(SystemExit) as exc:
        main(["run", str(cfg), "--quiet", *extra])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda t: t.replace("k = 10", "k = 10\ncolour = 1"), r"exp\.toml:7: colour: unknown key \(allowed: .*k.*\)"),
        (lambda t: t.replace("k = 10", 'k = "10"'), r"exp\.toml:6: k: .*integer.*got str '10'"),
        (lambda t: t.replace("k = 10", "k = 0"), r"exp\.toml:6: k: .*greater than or equal to 1"),
        (lambda t: t.replace('path = "data"\n', ""), r"exp\.toml:9: dataset: give 'path'"),
        (lambda t: t.replace('path = "data"', 'path = "nowhere"'), r"exp\.toml:10: dataset\.path: folder not found"),
        (lambda t: t.replace('split = "test"', 'split = "dev"'),
         r"exp\.toml:11: dataset\.split: .*no qrels/dev\.tsv \(available splits: test\)"),
        (lambda t: t.replace('"AP"]', '"APE"]'), r"exp\.toml:4: metrics: .*APE"),
        (lambda t: t.replace('baseline = "a"', 'baseline = "zz"'), r"exp\.toml:5: baseline: 'zz' is not a system"),
        (lambda t: t.replace('name = "b"', 'name = "a"'), r"exp\.toml:19: systems\[1\]\.name: duplicate system"),
        (lambda t: t.replace('type = "fake"\n\n', 'type = "nosuch"\n\n'),
         r"exp\.toml:16: systems\[0\]\.type: unknown system 'nosuch'"),
        (lambda t: t.replace("bias = 2.5", "bias = 2.5, nope = 1"), r"exp\.toml:21: systems\[1\]\.params: .*nope"),
        (lambda t: t.replace('type = "fake"\n\n', 'typo = "fake"\n\n'), r"exp\.toml:1[46]: systems\[0\]\.(type: missing required key|typo: unknown key)"),
        (lambda t: t.replace("seed = 0", "seed = [0"), r"exp\.toml:[34]: invalid TOML: "),
        (lambda t: t + '\n[[systems]]\nname = "c/d"\ntype = "fake"\n', r"exp\.toml:24: systems\[2\]\.name: must be"),
        (lambda t: t + '\n[[systems]]\nname = "c"\ntype = "fake"\nchunking = { max_tokens = 16, overlap = 16 }\n',
         r"exp\.toml:26: systems\[2\]\.chunking: overlap must be smaller"),
    ],
)
def test_config_errors_are_one_line_with_file_line_and_key(experiment: Path, capsys, edit, where):
    experiment.write_text(edit(BASE))
    err = _cli_error(experiment, capsys)
    assert re.search(where, err), err
    assert "Traceback" not in err


def test_missing_config_file(tmp_path: Path, capsys):
    err = _cli_error(tmp_path / "nope.toml", capsys)
    assert "nope.toml: config file not found" in err


def test_unknown_only_name(experiment: Path, capsys):
    err = _cli_error(experiment, capsys, "--only", "zz")
    assert "--only: no system named 'zz'" in err


def test_defaults():
    cfg = parse_config('name = "x"\n[dataset]\npath = "d"\n[[systems]]\nname = "s"\ntype = "bm25"\n')
    assert cfg.k == 100 and cfg.seed == 0 and cfg.metrics == ["nDCG@10", "R@100", "RR", "AP"]
    assert cfg.baseline_name == "s" and cfg.dataset.split == "test" and not cfg.dataset.locked
    with pytest.raises(InputError, match="systems: missing required key"):
        parse_config('name = "x"\n[dataset]\npath = "d"\n')


def test_locked_split_is_scored_once_unless_forced(tmp_path: Path, capsys):
    write_beir(tmp_path / "data")
    cfg = tmp_path / "exp.toml"
    cfg.write_text(CONFIG.format(locked="true"))
    assert main(["run", str(cfg), "--quiet"]) == 0
    reg = json.loads(registry_path().read_text())
    (entry,) = reg["splits"].values()
    assert entry["split"] == "test" and len(entry["scorings"]) == 1
    assert entry["scorings"][0]["systems"] == ["a", "b"] and entry["scorings"][0]["forced"] is False
    capsys.readouterr()

    # Same split, another experiment (and a renamed copy of the data): still refused.
    write_beir(tmp_path / "copy")
    other = tmp_path / "other.toml"
    other.write_text(CONFIG.format(locked="true").replace('"data"', '"copy"').replace('"out"', '"out2"'))
    err = _cli_error(other, capsys)
    assert "other.toml:12: dataset.locked: split 'test'" in err and "--force-test" in err
    assert not (tmp_path / "out2" / "runs").exists()  # refused before computing anything

    # A forced re-run of the same folder that reuses every score shows the same numbers: not another look.
    assert main(["run", str(cfg), "--quiet", "--force-test"]) == 0
    reg = json.loads(registry_path().read_text())
    (entry,) = reg["splits"].values()
    assert [s["forced"] for s in entry["scorings"]] == [False]
    # The other experiment, forced, computes its systems: a recorded (forced) second look.
    assert main(["run", str(other), "--quiet", "--force-test"]) == 0
    reg = json.loads(registry_path().read_text())
    (entry,) = reg["splits"].values()
    assert [s["forced"] for s in entry["scorings"]] == [False, True]


def test_unlocked_split_is_not_recorded(experiment: Path):
    run_experiment(experiment, progress=False)
    run_experiment(experiment, progress=False)
    assert not registry_path().exists()


def test_labelled_dataset_end_to_end(tmp_path: Path):
    write_beir(tmp_path / "data")
    spec = tmp_path / "labels.jsonl"
    spec.write_text(
        '{"query_id": "L1", "text": "signing key rotation", "exact": ["key rotation"], "related": ["incident"]}\n'
        '{"query_id": "L2", "text": "billing database", "exact": ["BILLING"], "close": ["backup"]}\n'
    )
    cfg = tmp_path / "lab.toml"
    cfg.write_text(
        'name = "lab"\noutput_dir = "labout"\nk = 5\nn_resamples = 100\n'
        '[dataset]\ncorpus = "data/corpus.jsonl"\nlabelled = "labels.jsonl"\nsplit = "labelled"\n'
        '[[systems]]\nname = "a"\ntype = "fake"\n'
    )
    res = run_experiment(cfg, progress=False)
    assert set(res.manifest["dataset"]["files"]) == {"data/corpus.jsonl", "labels.jsonl"}
    assert res.evaluation.runs["a"].query_ids == ["L1", "L2"]
    # L1: d1 (exact, 3) ranked 1st, d3 (related, 1) 2nd -> ideal order, nDCG 1; L2 judged d5 (3), d2 (2).
    assert res.evaluation.means["a"]["nDCG@10"] == pytest.approx(1.0)


def test_lock_test_flag_locks_the_split_for_the_runner(experiment: Path, capsys):
    """`hcrbench lock DIR --lock-test` declares the split locked: a later run (config says locked = false) is
    refused without --force-test, because both read the same registry."""
    assert main(["run", str(experiment), "--quiet"]) == 0
    out = experiment.parent / "out"
    assert main(["lock", str(out), "--lock-test"]) == 0
    capsys.readouterr()
    err = _cli_error(experiment, capsys)
    assert "is locked and was already scored 1 time(s)" in err and "--force-test" in err
    assert main(["run", str(experiment), "--quiet", "--force-test"]) == 0


def test_a_rerun_of_a_locked_folder_relocks_it_and_says_so(experiment: Path, capsys):
    """Re-running into a locked folder rewrites manifest.json: the runner re-locks and names whether any score
    changed, so `hcrbench verify` is never left reporting drift that nobody was told about."""
    import subprocess

    assert main(["run", str(experiment), "--quiet"]) == 0
    out = experiment.parent / "out"
    assert main(["lock", str(out)]) == 0
    capsys.readouterr()
    # in this process: the config's "fake" system is registered here, not in a console script's process (whose
    # config check refuses an unknown system before any work)
    assert main(["run", str(experiment), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "re-locked" in err and "the scores are the ones the old lock held" in err
    v = subprocess.run(["hcrbench", "verify", str(out)], capture_output=True, text=True, check=False)
    assert v.returncode == 0, v.stdout + v.stderr
