"""The field a system is judged against (hcrbench.protocol.field): the flat system chosen on dev, the kill
baseline's barrier check, the subject against the best system, the power plan's n against an independent
power computation, and (through the console script) a kill baseline weaker than BM25 on dev."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from hcrbench.experiment.config import parse_config
from hcrbench.protocol.field import barrier, best_of, bottom_line_parts, flat_candidates, n_needed

BASE = '''
name = "field"
output_dir = "out"
metrics = ["nDCG@10"]
n_resamples = 300
family = "metric"
[dataset]
path = "{bench}"
split = "test"
[protocol]
system = "hcr"
kill_baseline = "kill"
flat = "{flat}"
[[systems]]
name = "hcr"
type = "hcr"
params = {{ backend = "hash", seed = 0, chunk_tokens = 64, chunk_overlap = 8 }}
[[systems]]
name = "kill"
type = "runfile"
params = {{ path = "{kill}" }}
[[systems]]
name = "bm25"
type = "bm25"
[[systems]]
name = "bm25-chunks"
type = "bm25"
chunking = {{ max_tokens = 32, overlap = 8 }}
'''


def test_flat_candidates_are_the_first_stage_systems_in_config_order():
    cfg = parse_config(BASE.format(bench="b", flat="auto", kill="k.trec") + '[[systems]]\nname = "hy"\ntype = '
                       '"hybrid"\nparams = { systems = "bm25,dense", dense_backend = "hash" }\n')
    assert flat_candidates(cfg) == ["bm25", "bm25-chunks", "hy"]  # not hcr, not the run file
    assert cfg.protocol.flat == "auto" and "flat" not in cfg.protocol.names()


def test_flat_names_a_system_or_auto_and_the_kill_baseline_is_not_the_subject():
    with pytest.raises(Exception, match="'dense' is not a system"):
        parse_config(BASE.format(bench="b", flat="dense", kill="k.trec"))
    with pytest.raises(Exception, match="own kill baseline"):
        parse_config(BASE.format(bench="b", flat="auto", kill="k.trec").replace('kill_baseline = "kill"',
                                                                               'kill_baseline = "hcr"'))
    with pytest.raises(Exception, match="full_size"):
        parse_config(BASE.format(bench="b", flat="auto", kill="k.trec").replace('flat = "auto"',
                                                                               'flat = "auto"\nfull_size = "yes"'))


def test_best_of_breaks_ties_by_config_order():
    assert best_of({"b": 0.5, "a": 0.5, "c": 0.4}, ["a", "b", "c"]) == "a"
    assert best_of({"b": 0.5, "a": 0.5}, ["b", "a"]) == "b"
    assert best_of({"c": 0.6, "a": 0.5}, ["a", "c"]) == "c"
    assert best_of({}, ["a"]) is None


def test_barrier_passes_at_or_above_the_best_flat_and_fails_below():
    ok = barrier("rerank", 0.60, "bm25-doc", 0.60)
    assert ok["status"] == "passes" and ok["judge_against"] == "rerank"
    bad = barrier("rerank", 0.54, "bm25-doc", 0.65)
    assert bad["status"] == "fails" and bad["judge_against"] == "bm25-doc"
    assert bad["text"].startswith("kill baseline weaker than bm25-doc: not a value barrier")
    none = barrier("rerank", None, "bm25", 0.6)
    assert none["status"] == "not checked" and none["judge_against"] == "rerank"
    v = {"field": {"barrier": bad}, "vs_best": {"line": "hcr vs the best other system ..."}}
    assert bottom_line_parts(v)[0].startswith("kill baseline weaker than bm25-doc: not a value barrier")
    assert bottom_line_parts({"field": {"barrier": ok}}) == []


@pytest.mark.parametrize("sd, margin", [(0.18, 0.03), (0.25, 0.05), (0.1, 0.02), (0.3, 0.08)])
def test_n_needed_is_the_smallest_n_with_power_08_by_the_noncentral_t(sd, margin):
    """The smallest n by scipy's noncentral t (power(n) >= 0.8 > power(n - 1)), equal to statsmodels' TTestPower
    (a test reference only: src computes it with hcrbench.stats.power)."""
    from statsmodels.stats.power import TTestPower

    def power(n: int) -> float:
        df, nc = n - 1, margin / sd * np.sqrt(n)
        crit = stats.t.ppf(0.975, df)
        return float(stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc))

    n = n_needed(sd, margin)
    assert n is not None and power(n) >= 0.8 > power(n - 1)
    assert n == int(np.ceil(TTestPower().solve_power(effect_size=margin / sd, alpha=0.05, power=0.8)))
    assert n_needed(0.0, margin) is None and n_needed(sd, 0.0) is None


def _bench_with_dev(tmp_path: Path) -> Path:
    from protocol_bench import write_bench

    bench = write_bench(tmp_path / "bench")
    shutil.copy(bench / "qrels" / "tune.tsv", bench / "qrels" / "dev.tsv")
    return bench


def _runfile(bench: Path, path: Path, good: bool) -> Path:
    """A run of every query (dev and test): the judged documents first (good) or a fixed unrelated list."""
    docs = [json.loads(x)["_id"] for x in (bench / "corpus.jsonl").read_text().splitlines()]
    lines = []
    for split in ("test", "dev"):
        rel: dict[str, list[str]] = {}
        for ln in (bench / "qrels" / f"{split}.tsv").read_text().splitlines()[1:]:
            q, d, _g = ln.split("\t")
            rel.setdefault(q, []).append(d)
        for q, ds in rel.items():
            ranked = ds + [d for d in docs if d not in ds] if good else [d for d in docs if d not in ds]
            lines += [f"{q} Q0 {d} {i + 1} {100 - i}.0 kill\n" for i, d in enumerate(ranked[:20])]
    path.write_text("".join(lines))
    return path


@pytest.mark.parametrize("good", [pytest.param(False, marks=pytest.mark.slow), True], ids=["weak-kill-baseline", "strong-kill-baseline"])
def test_a_kill_baseline_weaker_than_bm25_on_dev_is_no_barrier_and_the_kill_is_judged_against_bm25(
        tmp_path, good):
    bench = _bench_with_dev(tmp_path)
    kill = _runfile(bench, tmp_path / "kill.trec", good)
    cfg = tmp_path / "exp.toml"
    cfg.write_text(BASE.format(bench=bench, flat="auto", kill=kill))
    r = subprocess.run(["hcrbench", "run", str(cfg), "--quiet"], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    v = json.loads((tmp_path / "out" / "verdicts.json").read_text())
    f = v["field"]
    assert f["status"] == "chosen" and f["split"] == "dev" and set(f["scores"]) >= {"bm25", "bm25-chunks", "kill"}
    assert f["flat"] == v["flat"] == best_of({n: f["scores"][n] for n in ("bm25", "bm25-chunks")},
                                             ["bm25", "bm25-chunks"])
    kill_row = next(h for h in v["hypotheses"] if h["id"] == "kill")
    if good:  # every judged document first on dev: at least as good as any flat system
        assert f["barrier"]["status"] == "passes" and "not a value barrier" not in v["bottom_line"]
        assert kill_row["evidence"]["barrier"] == "passes" and "judged_against" not in kill_row["evidence"]
    else:
        assert f["barrier"]["status"] == "fails" and f["barrier"]["judge_against"] == f["flat"]
        # (a control's failure may prefix the row with "not decidable on this dataset")
        assert f"kill baseline weaker than {f['flat']}: not a value barrier" in kill_row["text"]
        assert kill_row["evidence"]["judged_against"] == f["flat"]
        assert f"kill baseline weaker than {f['flat']}: not a value barrier" in " ".join(r.stdout.split())
    # every bottom line states the subject against the best other system of the run, with its interval
    means = {n: x["means"]["nDCG@10"] for n, x in json.loads((tmp_path / "out" / "eval.json").read_text())
             ["runs"].items() if n != "hcr"}
    best = best_of(means, list(means))
    assert v["vs_best"]["best"] == best and v["vs_best"]["line"] in v["bottom_line"]
    assert v["vs_best"]["ci_low"] <= v["vs_best"]["delta"] <= v["vs_best"]["ci_high"]
    # the power plan: hcr - kill on tune + dev (40 + 40 queries); n needed at each margin
    plan = v["power_plan"]
    assert plan["status"] == "planned" and plan["pilot"] == {"tune": 40, "dev": 40}
    assert plan["rules"]["kill"]["n_needed"] == n_needed(plan["rules"]["kill"]["sd"], 0.03)


def test_vs_best_excludes_the_subjects_seed_group():
    from hcrbench.protocol.field import vs_best

    q = [f"q{i}" for i in range(6)]
    mk = lambda xs: SimpleNamespace(query_ids=q, values={"nDCG@10": np.asarray(xs, float)})  # noqa: E731
    runs = {"hcr": mk([0.9] * 6), "hcr-seed1": mk([1.0] * 6), "bm25": mk([0.5, 0.6, 0.7, 0.5, 0.6, 0.7]),
            "dense": mk([0.1] * 6)}
    ev = SimpleNamespace(metrics=["nDCG@10"], runs=runs)
    cfg = SimpleNamespace(family="metric", n_resamples=200, seed=0)
    row = vs_best(ev, cfg, "nDCG@10", "hcr", ["hcr", "hcr-seed1"], runs["hcr"])
    assert row["best"] == "bm25" and row["delta"] == pytest.approx(0.9 - 0.6)
    assert row["line"].startswith("hcr vs the best other system of this run, bm25 (0.600): +0.300")


def test_without_a_dev_split_the_field_is_chosen_on_tune_never_on_test(tmp_path):
    from protocol_bench import write_bench

    from hcrbench.experiment.dataset import load_data
    from hcrbench.protocol import field as fld

    bench = write_bench(tmp_path / "bench")  # tune + test, no dev
    cfg = parse_config(BASE.format(bench=bench, flat="auto", kill="k.trec"))
    data = load_data(cfg.dataset, tmp_path, tmp_path / "x.toml")
    s = fld.field_split(data)
    assert s.split == "tune" and set(s.queries.query_ids) == set(s.qrels.query_ids) and \
        not set(s.queries.query_ids) & set(data.queries.query_ids)
    (bench / "qrels" / "tune.tsv").unlink()
    assert fld.field_split(load_data(cfg.dataset, tmp_path, tmp_path / "x.toml")) is None


def test_a_kill_baseline_that_reranks_differently_from_hcr_is_said_so():
    from hcrbench.protocol.field import reranker_note
    from hcrbench.protocol.quickstart import render_config

    same = parse_config(render_config(size="small", seed=0, encoder="minilm", seeds=1))
    assert reranker_note(same) is None
    assert reranker_note(parse_config(render_config(size="small", seed=0, seeds=1, cross_encoder="/m"))) is None
    text = render_config(size="small", seed=0, seeds=1).replace('method = "maxsim", first_stage = "hybrid"',
                                                                 'method = "cross-encoder", first_stage = "hybrid"')
    note = reranker_note(parse_config(text))
    assert note.startswith("the kill baseline reranks with cross-encoder, hcr with maxsim: not the same reranker")


def test_the_cross_encoder_goes_to_the_systems_whose_types_rerank_and_comments_stay():
    """with_cross_encoder reads the config, not its spelling: the kill baseline is found by [protocol], the tree
    systems by their declared reranker parameters; a system that declares none is left as written."""
    from hcrbench.protocol.field import with_cross_encoder

    text = ('name = "x"\n[dataset]\npath = "d"\n[protocol]\nsystem = "tree"\nkill_baseline = "kill"\n\n'
            '[[systems]]\nname = "tree"   # the subject\ntype = "hcr"\nparams = { backend = "hash" }\n\n'
            '[[systems]]\nname = "kill"\ntype = "rerank"   # a comment kept\n'
            'params = { method = "maxsim", first_stage = "bm25" }\n\n'
            '[[systems]]\nname = "rap"\ntype = "raptor"\nparams = { backend = "hash" }\n')
    out = with_cross_encoder(text, "/w/ce")
    by = {s.name: s for s in parse_config(out).systems}
    assert by["tree"].params == {"rerank": "cross-encoder", "rerank_model": "/w/ce", "backend": "hash"}
    assert by["kill"].params == {"method": "cross-encoder", "model": "/w/ce", "first_stage": "bm25"}
    assert by["kill-maxsim"].params == {"method": "maxsim", "first_stage": "bm25"}
    assert by["rap"].params == {"backend": "hash"}  # RAPTOR declares no reranker
    assert "# the subject" in out and out.count("# a comment kept") == 2
