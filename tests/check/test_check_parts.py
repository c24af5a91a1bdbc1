"""The smoke suite, gate verdicts in baselines and checks, the pytest fixture, and one-line input errors."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from hcrbench.cli import main
from hcrbench.experiment.check import compare_with_baseline
from hcrbench.experiment.freeze import baseline_document, gate_summary, read_baseline
from hcrbench.experiment.suite import dump_toml, smoke_selection

from .conftest import DAMAGED, GOOD, hcrbench, write_config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytest_plugins = ["pytester"]


def test_smoke_selection_takes_two_per_category_topped_up_to_twenty(meridian: Path):
    from hcrbench.experiment import load_config, load_data

    cfg_path = write_config(meridian.parent / "smoke-sel.toml", meridian, GOOD)
    cfg, text = load_config(cfg_path)
    data = load_data(cfg.dataset, cfg_path.parent, cfg_path, text)
    picked = smoke_selection(data.queries, data.qrels, seed=0)
    assert len(picked) == 20 == len(set(picked)) and set(picked) <= set(data.qrels.query_ids)
    per_cat: dict[str, int] = {}
    for q in picked:
        cat = data.queries.meta(q)["category"]
        per_cat[cat] = per_cat.get(cat, 0) + 1
    judged_cats = {data.queries.meta(q)["category"] for q in data.qrels.query_ids}
    assert set(per_cat) == judged_cats and min(per_cat.values()) >= 2  # OOD queries have no judgments
    assert sum(per_cat.values()) - 2 * len(judged_cats) == 20 - 2 * len(judged_cats)
    assert smoke_selection(data.queries, data.qrels, seed=0) == picked
    assert smoke_selection(data.queries, data.qrels, seed=1) != picked


def test_smoke_suite_freezes_and_checks_under_a_minute(tmp_path: Path, meridian: Path, capsys):
    write_config(tmp_path / "good.toml", meridian, GOOD)
    t0 = time.perf_counter()
    froze = hcrbench("freeze", "good.toml", "--smoke", "--out", "smoke.json", "--quiet", cwd=tmp_path)
    assert froze.returncode == 0, froze.stderr
    assert "froze 2 systems on 20 queries (smoke suite" in froze.stdout
    checked = hcrbench("check", "--baseline", "smoke.json", "--smoke", "--quiet", cwd=tmp_path)
    seconds = time.perf_counter() - t0
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "(smoke suite, 20 queries;" in checked.stdout
    assert checked.stdout.strip().endswith("2 of 2 systems within 0.02 of the baseline nDCG@10: PASS")
    assert seconds < 60, seconds
    doc = read_baseline(tmp_path / "smoke.json")
    assert doc["suite"]["kind"] == "smoke" and len(doc["suite"]["query_ids"]) == 20
    assert set(doc["systems"]["bm25"]["per_query"]["nDCG@10"]) == set(doc["suite"]["query_ids"])
    capsys.readouterr()
    assert main(["check", "--baseline", str(tmp_path / "smoke.json"), "--quiet"]) == 0  # no --smoke: the baseline's
    assert "(smoke suite, 20 queries;" in capsys.readouterr().out


def test_config_copy_round_trips_through_toml():
    doc = {"name": "x \"q\" é", "seed": 3, "metrics": ["nDCG@10"], "n_resamples": 1e-05, "flag": True,
           "dataset": {"path": "a b/c", "split": "dev"},
           "systems": [{"name": "s", "type": "bm25", "params": {"k1": 0.9, "odd key": [1, 2]}}]}
    assert tomllib.loads(dump_toml(doc)) == doc


def _gate_doc(passes: dict[str, bool], labels: dict[str, tuple[str, str]], trusted: bool = True) -> dict:
    return {"metric": "nDCG@10", "strict": False, "baseline": "bm25",
            "systems": {n: {"graded": {"gate_pass": p}, "strict": None, "disagree": False} for n, p in passes.items()},
            "verdicts": [{"run": n, "metric": "nDCG@10", "label": lab, "sign": sign}
                         for n, (lab, sign) in labels.items()],
            "controls": {"trusted": trusted, "rows": []}}


def test_gate_verdicts_are_frozen_and_a_worse_gate_fails(tmp_path: Path, meridian: Path, capsys):
    cfg = write_config(tmp_path / "good.toml", meridian, GOOD)
    assert main(["run", str(cfg), "--quiet"]) == 0
    out = tmp_path / "out"
    # The runner's gate step writes OUT/gate.json, the document `hcrbench gate --json` writes: made here by hand.
    runs = sorted(str(p) for p in (out / "runs").glob("*.trec"))
    code = main(["gate", *runs, "--dataset", str(meridian), "--baseline", "bm25", "--n-trials", "50",
                 "--json", str(out / "gate.json")])
    assert code in (0, 1)
    real = json.loads((out / "gate.json").read_text())
    frozen = baseline_document(out)
    assert frozen["gate"] == gate_summary(real)
    assert set(frozen["gate"]["systems"]) == {"bm25", "bm25-flat"}
    assert {v["run"] for v in frozen["gate"]["verdicts"]} == {"bm25-flat"}

    before = _gate_doc({"bm25": True, "bm25-flat": True}, {"bm25-flat": ("MISS", "0")})
    base = {**frozen, "gate": gate_summary(before)}
    for after, fails, reason in [
        (_gate_doc({"bm25": True, "bm25-flat": True}, {"bm25-flat": ("UNDER-NS", "0")}), False, None),
        (_gate_doc({"bm25": True, "bm25-flat": True}, {"bm25-flat": ("HIT", "+")}), False, None),
        (_gate_doc({"bm25": True, "bm25-flat": False}, {"bm25-flat": ("NULL-FAIL", "0")}), True,
         "bm25-flat: gate: pass -> FAIL; verdict on nDCG@10: MISS -> NULL-FAIL"),
        (_gate_doc({"bm25": True, "bm25-flat": True}, {"bm25-flat": ("HIT", "-")}), True,
         "bm25-flat: verdict on nDCG@10: MISS -> HIT-"),
        (_gate_doc({"bm25": True, "bm25-flat": True}, {"bm25-flat": ("MISS", "0")}, trusted=False), True,
         "the gate's positive controls now fail (harness not trusted)"),
    ]:
        (out / "gate.json").write_text(json.dumps(after))
        res = compare_with_baseline(base, out)
        assert res.passed is not fails, (after, res.bottom_line)
        if reason:
            assert res.bottom_line == f"2 of 2 systems within 0.02 of the baseline nDCG@10; {reason}: FAIL"
    # A gate.json older than the re-run is not this run's gate: not compared, and said so.
    res = compare_with_baseline(base, out, gate_newer_than=time.time() + 60)
    assert res.passed and any("gate was not compared" in n for n in res.notes)


def _entry_point_loaded() -> bool:
    """Whether pytest loads the plugin by itself (installed entry point, autoload not disabled)."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return any(ep.value == "hcrbench.testing" for ep in entry_points(group="pytest11"))


def test_pytest_fixture_passes_and_fails_in_a_users_tests(pytester, tmp_path: Path, meridian: Path):
    good = write_config(tmp_path / "good.toml", meridian, GOOD)
    damaged = write_config(tmp_path / "damaged.toml", meridian, DAMAGED)
    assert main(["freeze", str(good), "--out", str(tmp_path / "baseline.json"), "--quiet"]) == 0
    pytester.makepyfile(test_user=f"""
        def test_frozen_system_passes(hcrbench_check):
            result = hcrbench_check({str(tmp_path / "baseline.json")!r}, {str(good)!r})
            assert result.passed, result.bottom_line

        def test_degraded_system_fails(hcrbench_check):
            result = hcrbench_check({str(tmp_path / "baseline.json")!r}, {str(damaged)!r})
            assert result.passed, result.bottom_line
    """)
    args = [] if _entry_point_loaded() else ["-p", "hcrbench.testing"]  # installed: pytest loads it itself
    res = pytester.runpytest(*args)
    res.assert_outcomes(passed=1, failed=1)
    res.stdout.fnmatch_lines(["*AssertionError: 1 of 2 systems within 0.02 of the baseline nDCG@10; bm25 dropped "
                              "0.* nDCG@10 (p = *): FAIL*"])  # 0.06 (Meridian 3), 0.12 (4)


def test_pyproject_declares_the_pytest_plugin():
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert tomllib.loads(text)["project"]["entry-points"]["pytest11"] == {"hcrbench": "hcrbench.testing"}


@pytest.mark.parametrize("case", ["not-json", "wrong-schema", "unknown-metric", "smoke-on-full", "no-config",
                                  "max-drop", "partial-folder"])
def test_bad_input_is_one_line_and_exit_2(case: str, tmp_path: Path, meridian: Path, capsys):
    base = {"schema": "hcrbench.baseline/1", "metrics": ["nDCG@10"], "suite": {"kind": "full"}, "config": None,
            "dataset": {"files": {}}, "systems": {"a": {"means": {}, "per_query": {}}}}
    b = tmp_path / "b.json"
    b.write_text(json.dumps(base))
    args, needle = {
        "not-json": (["check", "--baseline", str(b)], "baseline is not valid JSON"),
        "wrong-schema": (["check", "--baseline", str(b)], "schema: not an hcrbench baseline"),
        "unknown-metric": (["check", "--baseline", str(b), "--metric", "AP"], "--metric: the baseline has no AP"),
        "smoke-on-full": (["check", "--baseline", str(b), "--smoke"], "suite: the baseline was frozen from the full"),
        "no-config": (["check", "--baseline", str(b)], "CONFIG: the baseline names no config"),
        "max-drop": (["check", "--baseline", str(b), str(tmp_path / "x.toml"), "--max-drop", "-1"],
                     "--max-drop: must be a non-negative number"),
        "partial-folder": (["freeze", str(tmp_path / "exp"), "--out", str(tmp_path / "o.json")],
                           "status: the experiment is 'partial', not complete"),
    }[case]
    if case == "not-json":
        b.write_text("{oops")
    elif case == "wrong-schema":
        b.write_text(json.dumps({**base, "schema": "other/1"}))
    elif case == "max-drop":
        write_config(tmp_path / "x.toml", meridian, GOOD)
    elif case == "partial-folder":
        (tmp_path / "exp").mkdir()
        (tmp_path / "exp" / "manifest.json").write_text(json.dumps({"status": "partial"}))
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hcrbench: error: ") and needle in err[0], err
    assert not list(tmp_path.glob("o.json"))


def test_check_reuse_resumes_in_the_configs_own_folder(tmp_path: Path, meridian: Path, capsys):
    cfg = write_config(tmp_path / "good.toml", meridian, GOOD)
    assert main(["freeze", str(cfg), "--out", str(tmp_path / "b.json"), "--reuse", "--quiet"]) == 0
    assert (tmp_path / "out" / "runs" / "bm25.trec").is_file()  # --reuse writes where `hcrbench run` would
    shutil.copy(tmp_path / "out" / "runs" / "bm25-flat.trec", tmp_path / "out" / "runs" / "bm25.trec")
    capsys.readouterr()
    # The run file no longer matches its recorded checksum, so the runner recomputes it: still a pass.
    assert main(["check", "--baseline", str(tmp_path / "b.json"), "--reuse", "--quiet"]) == 0
    assert capsys.readouterr().out.strip().endswith(": PASS")
