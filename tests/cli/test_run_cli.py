"""``hcrbench run``: config keys and strata are checked, an output folder belongs to one experiment, and
output folders are created at most one level deep. Through the console script where the flow matters."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from hcrbench.cli import main

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


def _dataset(root: Path) -> None:
    (root / "data" / "qrels").mkdir(parents=True)
    (root / "data" / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": f"d{i}", "text": f"{WORDS[i % 8]} doc {i}"}) + "\n" for i in range(16)))
    (root / "data" / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": f"q{i}", "text": WORDS[i], "metadata": {"category": "ab"[i % 2]}}) + "\n"
                for i in range(8)))
    (root / "data" / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(8)))
    (root / "good.trec").write_text("".join(f"q{i} Q0 d{i} 1 2.0 g\nq{i} Q0 d{i + 8} 2 1.0 g\n" for i in range(8)))
    (root / "poor.trec").write_text("".join(f"q{i} Q0 d{i + 8} 1 2.0 p\nq{i} Q0 d{i} 2 1.0 p\n" for i in range(8)))


def _config(name: str, systems: list[str], extra: str = "", output_dir: str = "out", *, root: Path) -> str:
    text = (f'name = "{name}"\noutput_dir = "{output_dir}"\nmetrics = ["nDCG@10", "RR"]\nn_resamples = 200\n'
            f'{extra}[dataset]\npath = "data"\n')
    for s in systems:
        run = root / f"{s}.trec"
        text += f'[[systems]]\nname = "{s}"\ntype = "runfile"\nparams = {{ path = "{run}" }}\n'
    return text


@pytest.fixture
def root(tmp_path: Path) -> Path:
    _dataset(tmp_path)
    return tmp_path


def _hcrbench(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["hcrbench", *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HCRBENCH_PROGRESS": "0"})


def test_another_experiments_folder_is_refused_without_force(root: Path):
    (root / "a.toml").write_text(_config("exp-a", ["good", "poor"], root=root))
    (root / "b.toml").write_text(_config("exp-b", ["good"], root=root))
    first = _hcrbench("run", "a.toml", "--quiet", cwd=root)
    assert first.returncode == 0, first.stderr
    before = {p: (root / "out" / p).read_bytes() for p in ("eval.json", "manifest.json", "runs/poor.trec")}

    refused = _hcrbench("run", "b.toml", "--quiet", cwd=root)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    line, = refused.stderr.strip().splitlines()
    assert re.match(r"hcrbench: error: b\.toml:2: output_dir: the output folder .*out holds the results of "
                    r"experiment 'exp-a' \(config .*a\.toml\).*--force", line), line
    assert {p: (root / "out" / p).read_bytes() for p in before} == before  # nothing touched

    forced = _hcrbench("run", "b.toml", "--quiet", "--force", cwd=root)
    assert forced.returncode == 0, forced.stderr
    manifest = json.loads((root / "out" / "manifest.json").read_text())
    assert manifest["name"] == "exp-b" and list(manifest["systems"]) == ["good"]
    assert not (root / "out" / "runs" / "poor.trec").exists()  # the other experiment's run is not left behind


def test_editing_the_same_config_resumes(root: Path, capsys):
    cfg = root / "a.toml"
    cfg.write_text(_config("exp-a", ["good"], root=root))
    assert main(["run", str(cfg), "--quiet"]) == 0
    cfg.write_text(_config("exp-a", ["good", "poor"], root=root))
    assert main(["run", str(cfg), "--quiet"]) == 0
    assert "computed 1, reused 1" in capsys.readouterr().err


def test_a_folder_of_other_files_is_refused(root: Path, capsys):
    (root / "out").mkdir()
    (root / "out" / "notes.txt").write_text("mine")
    cfg = root / "a.toml"
    cfg.write_text(_config("exp-a", ["good"], root=root))
    with pytest.raises(SystemExit) as e:
        main(["run", str(cfg), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1 and "notes.txt" in err and "--force" in err
    assert sorted(p.name for p in (root / "out").iterdir()) == ["notes.txt"]


@pytest.mark.parametrize(("extra", "pattern"), [
    ('strata = ["categroy"]\n',
     r"a\.toml:5: strata: no query has the metadata field 'categroy'; did you mean 'category'\? "
     r"\(query metadata fields: category\)"),
    ('strata = ["difficulty"]\n', r"a\.toml:5: strata: no query has the metadata field 'difficulty' \("),
    ('strata = ["category", "category"]\n', r"a\.toml:5: strata: .*listed twice"),
    ('stratum = ["category"]\n', r"a\.toml:5: stratum: unknown key \(allowed: .*\); did you mean 'strata'\?"),
    ('n_resample = 10\n', r"a\.toml:5: n_resample: unknown key .*did you mean 'n_resamples'\?"),
])
def test_config_mistakes_are_one_line_with_a_suggestion(root: Path, capsys, extra: str, pattern: str):
    cfg = root / "a.toml"
    cfg.write_text(_config("exp-a", ["good"], root=root, extra=extra))
    with pytest.raises(SystemExit) as e:
        main(["run", str(cfg), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1, err
    assert re.search(pattern, err), err
    assert not (root / "out").exists()


def test_default_strata_need_not_exist(root: Path, capsys):
    """Without `strata` in the config, the default ('category') is used where present and skipped quietly."""
    (root / "data" / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": f"q{i}", "text": WORDS[i]}) + "\n" for i in range(8)))
    cfg = root / "a.toml"
    cfg.write_text(_config("exp-a", ["good"], root=root))
    assert main(["run", str(cfg), "--quiet"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_output_folders_are_created_at_most_one_level_deep(root: Path, capsys):
    cfg = root / "a.toml"
    cfg.write_text(_config("exp-a", ["good"], root=root, output_dir="results/exp-a"))
    assert main(["run", str(cfg), "--quiet"]) == 0  # results/ is the one missing level
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith("results/exp-a")  # one unwrapped line
    cfg.write_text(_config("exp-a", ["good"], root=root, output_dir="deep/er/exp-a"))
    with pytest.raises(SystemExit) as e:
        main(["run", str(cfg), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1
    assert "a.toml:2: output_dir: folder" in err and "deep does not exist" in err and "mkdir -p" in err
    assert not (root / "deep").exists()


def test_a_protocol_table_without_a_system_under_test_is_refused_not_picked(root):
    """Issue #36: `hcrbench run` with `[protocol]` but no `system` used to judge whichever system was called hcr."""
    extra = '[protocol]\nkill_baseline = "poor"\n'
    text = _config("noproto", ["good", "poor"], root=root).replace("[dataset]", extra + "[dataset]", 1)
    text = text.replace('name = "good"', 'name = "hcr"').replace("good.trec", "good.trec")
    (root / "exp.toml").write_text(text)
    r = _hcrbench("run", "exp.toml", cwd=root)
    err = r.stderr.strip().splitlines()
    line = text.splitlines().index("[protocol]") + 1
    assert r.returncode == 2 and len(err) == 1, r.stderr
    assert err[0].startswith(f"hcrbench: error: exp.toml:{line}: protocol.system: no system under test"), err
    assert not (root / "out").exists()


def test_every_path_of_a_config_resolves_against_its_folder_from_any_working_directory(root: Path):
    """A runfile's ``params.path`` (and ``paths``), ``output_dir`` and the dataset all resolve against the config
    file's folder: the config scored from its folder and from another, holding a decoy run of the same name,
    gives the same numbers."""
    (root / "exp").mkdir()
    (root / "exp" / "good.trec").write_text((root / "good.trec").read_text())
    (root / "exp" / "a.toml").write_text(
        'name = "exp-a"\noutput_dir = "out"\nmetrics = ["nDCG@10"]\nn_resamples = 200\n[dataset]\npath = "../data"\n'
        '[[systems]]\nname = "good"\ntype = "runfile"\nparams = { path = "good.trec" }\n'
        '[[systems]]\nname = "split"\ntype = "runfile"\nparams = { paths = { test = "./good.trec" } }\n')
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "good.trec").write_text((root / "poor.trec").read_text())  # a decoy the cwd would pick
    means = []
    for cwd, cfg in ((root / "exp", "a.toml"), (elsewhere, str(root / "exp" / "a.toml"))):
        r = _hcrbench("run", cfg, "--quiet", "--force", cwd=cwd)
        assert r.returncode == 0, r.stderr
        ev = json.loads((root / "exp" / "out" / "eval.json").read_text())
        means.append({s: ev["runs"][s]["means"]["nDCG@10"] for s in ("good", "split")})
        assert not (cwd / "out").exists() or cwd == root / "exp"
    assert means[0] == means[1] and means[0]["good"] == means[0]["split"] == 1.0
