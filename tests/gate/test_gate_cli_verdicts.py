"""``hcrbench gate --baseline``: verdicts, per-stratum deltas and the calibration plot, end to end on tiny data."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gate_bench import constant_run, good_run, make_bench

from hcrbench.cli import main
from hcrbench.data import Qrels, Run, write_beir_qrels, write_run
from hcrbench.gate import gate_pairs
from hcrbench.stats import required_n

N_QUERIES = 120
CATEGORIES = ("alpha", "beta", "gamma")


def _category(i: int) -> str | None:
    return None if i % 10 == 9 else CATEGORIES[i % 3]  # every tenth query has no category


def _mixed(base: Run, other: Run, every: int, name: str) -> Run:
    """``base`` with every ``every``-th query's ranking taken from ``other``: small deltas both ways."""
    b, o = base.to_dict(), other.to_dict()
    return Run.from_dict({q: (o[q] if i % every == 0 else b[q]) for i, q in enumerate(sorted(b))}, name=name)


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """A BEIR folder (queries with category / difficulty metadata) and run files named after the systems."""
    root = tmp_path_factory.mktemp("verdicts")
    qrels, pool = make_bench(n_queries=N_QUERIES, n_docs=300, seed=5)
    ds = root / "data"
    (ds / "qrels").mkdir(parents=True)
    write_beir_qrels(Qrels.from_dict(qrels), ds / "qrels" / "test.tsv")
    (ds / "corpus.jsonl").write_text("".join(json.dumps({"_id": d, "text": d}) + "\n" for d in pool))
    rows = []
    for i, q in enumerate(sorted(qrels)):
        meta = {"difficulty": "hard" if i % 2 else "easy"}
        if _category(i) is not None:
            meta["category"] = _category(i)
        rows.append(json.dumps({"_id": q, "text": f"query {q}", "metadata": meta}) + "\n")
    (ds / "queries.jsonl").write_text("".join(rows))
    base = good_run(qrels, pool, seed=1, hit=0.6, name="base")
    runs = {
        "base": base,
        "better": good_run(qrels, pool, seed=2, hit=0.95, name="better"),
        "worse": good_run(qrels, pool, seed=3, hit=0.3, name="worse"),
        "same": base.rename("same"),
        "nearly": _mixed(base, good_run(qrels, pool, seed=4, hit=0.6), 4, "nearly"),
        "constant": constant_run(qrels, name="constant"),
    }
    paths = {}
    for name, run in runs.items():
        paths[name] = root / f"{name}.trec"
        write_run(run, paths[name])
    return root, ds, paths, qrels, pool, runs


def _args(bench, *names, extra=()):
    _, ds, paths, *_ = bench
    return ["gate", *(str(paths[n]) for n in names), "--dataset", str(ds), "--n-trials", "100",
            "--n-resamples", "2000", *extra]


@pytest.fixture(scope="module")
def full(bench):
    """One CLI call with every system, --stratify twice and --calibration; (json doc, png path)."""
    root = bench[0]
    out, png = root / "g.json", root / "cal.png"
    rc = main(_args(bench, "base", "better", "worse", "same", "nearly", "constant",
                    extra=["--baseline", "base", "--stratify", "category", "--stratify", "difficulty",
                           "--calibration", str(png), "--json", str(out)]))
    assert rc == 1  # 'constant' fails the gate: a check failed
    return json.loads(out.read_text()), png


def _v(doc, run, metric="nDCG@10"):
    (row,) = [r for r in doc["verdicts"] if r["run"] == run and r["metric"] == metric]
    return row


def test_json_keeps_old_keys_and_adds_new(full):
    doc, _ = full
    assert {"metric", "strict", "systems", "controls", "verdicts", "strata", "calibration", "baseline"} <= set(doc)
    assert set(doc["systems"]) == {"base", "better", "worse", "same", "nearly", "constant"}
    assert doc["baseline"] == "base" and doc["min_delta"] == 0.01
    # one verdict per non-baseline run x (graded, strict); each its own declared family (baseline, {metric}):
    # graded and strict are separate metric sets, and other runs on the command line are not in the family
    assert {(r["run"], r["metric"]) for r in doc["verdicts"]} == {
        (r, m) for r in ("better", "worse", "same", "nearly", "constant") for m in ("nDCG@10", "strict R@5")}
    for r in doc["verdicts"]:
        assert r["p_holm"] == r["p"] and r["baseline"] == "base" and r["family_size"] == 1
        assert r["helped"] + r["hurt"] + r["tied"] == r["n"] == N_QUERIES


def test_better_and_worse_are_hits_with_sign(full):
    doc, _ = full
    better, worse = _v(doc, "better"), _v(doc, "worse")
    assert doc["systems"]["worse"]["graded"]["gate_pass"] is True  # worse but real: a HIT -, not a NULL-FAIL
    assert better["label"] == "HIT" and better["sign"] == "+" and better["ci_low"] > 0 and better["p_holm"] < 0.05
    assert worse["label"] == "HIT" and worse["sign"] == "-" and worse["ci_high"] < 0 and worse["p_holm"] < 0.05
    assert better["delta"] == pytest.approx(better["mean_run"] - better["mean_baseline"])


def test_identical_run_is_under_ns_not_miss(full):
    """Finding 2: zero spread in the differences is no evidence of equivalence; UNDER-NS with the reason."""
    row = _v(full[0], "same")
    assert row["delta"] == 0 and row["tied"] == N_QUERIES and row["label"] == "UNDER-NS" and row["sign"] == "0"
    assert "zero spread" in row["reason"]


def test_small_difference_is_under_ns_with_needed_n(full):
    row = _v(full[0], "nearly")
    assert row["gate_pass"] and row["hurt"] > 0 and row["helped"] > 0
    assert row["label"] == "UNDER-NS" and abs(row["delta"]) < 0.05
    assert row["n_needed"] == required_n(0.01, row["sd"], alpha=0.05 / row["family_size"])
    assert row["n_needed"] > N_QUERIES
    assert row["mde"] > 0.01 and 0 < row["projected_half_width"] < (row["ci_high"] - row["ci_low"]) / 2


def test_same_difference_is_a_miss_when_powered_for_a_bigger_min_delta(bench, tmp_path):
    out = tmp_path / "g.json"
    assert main(_args(bench, "base", "nearly", extra=["--baseline", "base", "--min-delta", "0.3",
                                                       "--json", str(out)])) == 0
    row = _v(json.loads(out.read_text()), "nearly")
    assert row["label"] == "MISS" and abs(row["delta"]) < 0.3 and row["n_needed"] is None
    assert -0.3 < row["eq_ci_low"] <= row["delta"] <= row["eq_ci_high"] < 0.3 and row["p_equiv_holm"] < 0.05


def test_gate_failure_is_null_fail(full):
    doc, _ = full
    assert doc["systems"]["constant"]["graded"]["gate_pass"] is False
    row = _v(doc, "constant")
    assert row["label"] == "NULL-FAIL" and row["failed_nulls"]


def test_verdict_table_is_printed(bench, capsys):
    assert main(_args(bench, "base", "better", "constant", extra=["--baseline", "base"])) == 1
    text = capsys.readouterr().out
    assert text.rstrip().splitlines()[-1].startswith("gate: FAIL") and "constant" in text.rstrip().splitlines()[-1]
    assert "Verdicts vs baseline base" in text
    lines = {ln.split("│")[1].strip() + ln.split("│")[2].strip(): ln for ln in text.splitlines() if ln.count("│") > 6}
    assert "HIT +" in lines["betternDCG@10"] and "NULL-FAIL" in lines["constantnDCG@10"]


def test_verdicts_match_gate_pairs_on_the_same_data(full, bench):
    """The verdict's gate_pass is each run's own gate result, graded and strict."""
    doc, _ = full
    _, _, _, qrels, pool, runs = bench
    pairs = gate_pairs(qrels, {n: runs[n] for n in ("base", "constant")}, item_pool=pool, n_trials=100)
    assert _v(doc, "constant", "strict R@5")["gate_pass"] == pairs["constant"].strict.gate_pass
    assert doc["systems"]["base"]["graded"]["real_mean"] == pytest.approx(pairs["base"].graded.real_mean)


def test_strata_rows_sum_to_the_whole(full):
    doc, _ = full
    strata = doc["strata"]
    assert {r["field"] for r in strata} == {"category", "difficulty"}
    expected = {"category": {"alpha", "beta", "gamma", "(none)"}, "difficulty": {"easy", "hard"}}
    ids = sorted(f"q{i:03d}" for i in range(N_QUERIES))
    cat_n = {c: sum(1 for i in range(N_QUERIES) if (_category(i) or "(none)") == c) for c in expected["category"]}
    for field in expected:
        for run in ("better", "worse", "same", "nearly", "constant"):
            for metric in ("nDCG@10", "strict R@5"):
                rows = [r for r in strata if (r["field"], r["run"], r["metric"]) == (field, run, metric)]
                parts, (total,) = [r for r in rows if r["stratum"] != "(all)"], [r for r in rows
                                                                                   if r["stratum"] == "(all)"]
                assert {r["stratum"] for r in parts} == expected[field]
                assert sum(r["n"] for r in parts) == total["n"] == len(ids)
                for r in rows:
                    assert r["helped"] + r["hurt"] + r["tied"] == pytest.approx(1.0)
                # the strata's deltas average back to the whole, and the counts to the comparison's
                assert sum(r["n"] * r["delta"] for r in parts) / total["n"] == pytest.approx(total["delta"])
                v = _v(doc, run, metric)
                assert round(total["helped"] * total["n"]) == v["helped"]
                assert round(total["hurt"] * total["n"]) == v["hurt"]
                if field == "category":
                    assert {r["stratum"]: r["n"] for r in parts} == cat_n
    same = [r for r in strata if r["run"] == "same"]
    assert all(r["tied"] == 1.0 and r["delta"] == 0 for r in same)


def test_calibration_png_and_rows(full):
    doc, png = full
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" in data[-12:]
    from PIL import Image  # matplotlib depends on pillow

    with Image.open(png) as im:
        im.verify()
    rows = doc["calibration"]
    assert {r["run"] for r in rows} == {"better", "worse", "same", "nearly", "constant"}
    assert {r["metric"] for r in rows} == {"nDCG@10"}
    for run in ("better", "nearly"):
        rr = [r for r in rows if r["run"] == run]
        assert [r["n"] for r in rr] == [15, 30, 60, 120, 240, 480]
        assert [r["kind"] for r in rr] == ["measured"] * 4 + ["projected"] * 2
        widths = [r["projected_width"] for r in rr]
        assert widths == sorted(widths, reverse=True) and all(r["ci_width"] > 0 for r in rr[:4])
        assert all(r["ci_width"] is None for r in rr[4:])
    assert all(r["projected_width"] == 0 for r in rows if r["run"] == "same")


def test_calibration_is_deterministic(bench, tmp_path):
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    for p in (a, b):
        assert main(_args(bench, "base", "nearly", extra=["--baseline", "base", "--calibration", str(p)])) == 0
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("extra,needle", [
    (["--stratify", "category"], "--baseline"),
    (["--calibration", "{tmp}/cal.png"], "--baseline"),
    (["--baseline", "nosuch"], "nosuch"),
    (["--baseline", "base", "--stratify", "colour"], "colour"),
    (["--baseline", "base", "--min-delta", "0"], "--min-delta"),
    (["--baseline", "base", "--n-resamples", "0"], "--n-resamples"),
    (["--baseline", "base", "--calibration", "{tmp}/cal.txt"], "--calibration"),
    (["--baseline", "base", "--calibration", "{tmp}/no/dir/cal.png"], "--calibration"),
])
def test_bad_flags_exit_2_with_one_line(bench, tmp_path, capsys, extra, needle):
    extra = [x.format(tmp=tmp_path) for x in extra]
    with pytest.raises(SystemExit) as e:
        main(_args(bench, "base", "better", extra=[*extra, "--json", str(tmp_path / "g.json")]))
    err = capsys.readouterr().err
    assert e.value.code == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing written


def test_only_the_baseline_is_an_error(bench, capsys):
    with pytest.raises(SystemExit) as e:
        main(_args(bench, "base", extra=["--baseline", "base"]))
    err = capsys.readouterr().err
    assert e.value.code == 2 and "only run" in err and len(err.strip().splitlines()) == 1


def test_stratify_needs_dataset_metadata(bench, tmp_path, capsys):
    _, ds, paths, *_ = bench
    pool = tmp_path / "pool.txt"
    pool.write_text("\n".join(json.loads(ln)["_id"] for ln in (ds / "corpus.jsonl").read_text().splitlines()))
    with pytest.raises(SystemExit) as e:
        main(["gate", str(paths["base"]), str(paths["better"]), "--qrels", str(ds / "qrels" / "test.tsv"),
              "--item-pool", str(pool), "--baseline", "base", "--stratify", "category"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "--dataset" in err and len(err.strip().splitlines()) == 1


def test_strata_shares_match_per_query_values(full, bench):
    """Recompute one stratum's helped share from the runs' per-query nDCG@10 with the metrics stage."""
    from hcrbench.metrics import evaluate

    doc, _ = full
    _, _, _, qrels, _, runs = bench
    ev = evaluate(Qrels.from_dict(qrels), {n: runs[n] for n in ("base", "better")}, ["nDCG@10"])
    ids = sorted(qrels)
    a = np.array([ev["better"].per_query["nDCG@10"][q] for q in ids])
    b = np.array([ev["base"].per_query["nDCG@10"][q] for q in ids])
    mask = np.array([_category(i) == "beta" for i in range(N_QUERIES)])
    (row,) = [r for r in doc["strata"] if (r["field"], r["run"], r["metric"], r["stratum"])
              == ("category", "better", "nDCG@10", "beta")]
    assert row["n"] == mask.sum()
    assert row["helped"] == pytest.approx(np.mean(a[mask] - b[mask] > 1e-12))
    assert row["delta"] == pytest.approx(np.mean(a[mask] - b[mask]))


def test_declared_family_options(bench, tmp_path):
    """Graded and strict are separate families unless pooled; --family all pools the runs; m is in the JSON."""
    out = tmp_path / "f.json"
    assert main(_args(bench, "base", "better", "nearly", extra=["--baseline", "base", "--pool-pairings",
                                                                 "--json", str(out)])) == 0
    doc = json.loads(out.read_text())
    assert (doc["family_kind"], doc["pool_pairings"]) == ("run", True) and "for each system" in doc["family"]
    assert all(r["family_size"] == 2 for r in doc["verdicts"])
    assert main(_args(bench, "base", "better", "nearly", extra=["--baseline", "base", "--family", "all",
                                                                 "--json", str(out)])) == 0
    assert all(r["family_size"] == 2 for r in json.loads(out.read_text())["verdicts"])  # 2 runs per metric set
    alone = tmp_path / "a.json"
    assert main(_args(bench, "base", "nearly", extra=["--baseline", "base", "--json", str(alone)])) == 0
    with_more = tmp_path / "b.json"
    assert main(_args(bench, "base", "nearly", "better", "worse", extra=["--baseline", "base", "--json",
                                                                          str(with_more)])) == 0
    pick = {(r["run"], r["metric"]): r for r in json.loads(with_more.read_text())["verdicts"]}
    for r in json.loads(alone.read_text())["verdicts"]:  # finding 4: other runs change nothing
        assert (r["p_holm"], r["label"]) == (pick[(r["run"], r["metric"])]["p_holm"], pick[(r["run"], r["metric"])]["label"])
