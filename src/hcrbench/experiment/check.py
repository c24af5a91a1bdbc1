"""``hcrbench check``: re-run a suite and compare it with a frozen baseline; did anything regress?

A system **fails** when its mean ``metric`` (default nDCG@10) is lower than the baseline's by more than
``max_drop`` (default 0.02), when its gate verdict got worse (gate pass -> fail; a verdict vs the gate's
baseline that fell in the order HIT+ > MISS = UNDER-NS > HIT- > NULL-FAIL), or when it is gone. The harness
failing its positive controls where it passed them fails the check too. The paired one-sided permutation
p-value of the drop (now < baseline, over the queries both have) is shown beside each delta: the rule is on the
size of the drop, the p-value says how sure it is (deterministic systems re-run give p = 1 and delta 0).

Dataset: if any input file's SHA-256 differs from the baseline's, the numbers are not comparable (other queries
or judgments) and the check stops with an input error; ``allow_dataset_change`` turns that into a note and pairs
only the queries both have.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError
from hcrbench.experiment.freeze import read_baseline, read_gate

#: Gate verdicts from best to worst; equal ranks are not a regression (MISS and UNDER-NS both: no difference).
VERDICT_RANK = {"HIT+": 3, "MISS": 2, "UNDER-NS": 2, "HIT-": 1, "NULL-FAIL": 0}
TIE = 1e-12


@dataclass
class SystemCheck:
    """One system: baseline vs now on the metric, the paired p-value of the drop, gate, status."""

    system: str
    baseline: float | None
    now: float | None
    delta: float | None
    p_drop: float | None
    n_paired: int
    gate_before: str | None  # "pass" / "fail" / None (no gate)
    gate_now: str | None
    status: str  # "ok", "new", "FAIL"
    reasons: list[str] = field(default_factory=list)


@dataclass
class CheckResult:
    """What :func:`check` found; ``passed`` is the exit status (``bottom_line`` says why in one sentence)."""

    passed: bool
    bottom_line: str
    metric: str
    max_drop: float
    systems: list[SystemCheck]
    suite: str  # "full" or "smoke"
    n_queries: int
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "bottom_line": self.bottom_line, "metric": self.metric,
                "max_drop": self.max_drop, "suite": self.suite, "n_queries": self.n_queries,
                "notes": list(self.notes), "seconds": round(self.seconds, 3),
                "systems": [asdict(s) for s in self.systems]}


def _canonical_metric(metric: str, available: list[str]) -> str:
    from hcrbench.metrics import parse_measures

    try:
        name = parse_measures([metric])[0].name
    except ValueError as e:
        raise InputError(getattr(e, "problem", str(e)), field="--metric") from None
    if name not in available:
        raise InputError(f"the baseline has no {name} (it has {', '.join(available) or 'no metrics'}); freeze "
                         f"one with it in the config's metrics", field="--metric")
    return name


def _check_max_drop(max_drop: float) -> None:
    if not (math.isfinite(max_drop) and max_drop >= 0):
        raise InputError(f"must be a non-negative number, got {max_drop}", field="--max-drop")


def dataset_changes(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """Input files whose content (SHA-256) differs, or that one side lacks: ``"qrels/test.tsv"``..."""
    return sorted(f for f in set(before) | set(now) if before.get(f) != now.get(f))


def _changed(files: list[str]) -> str:
    return f"the dataset changed since the baseline was frozen ({', '.join(files)} differ)"


def _refuse_changed_dataset(changed: list[str], allow: bool, baseline_path: str | Path | None) -> None:
    if changed and not allow:
        raise InputError(f"{_changed(changed)}; its numbers are not comparable. Freeze a new baseline, or pass "
                         f"--allow-dataset-change to compare the queries both have", path=baseline_path,
                         field="dataset")


def _p_drop(before: dict[str, float], now: dict[str, float], seed: int) -> tuple[float | None, int]:
    import numpy as np

    from hcrbench.stats import permutation_test

    common = sorted(set(before) & set(now))
    if not common:
        return None, 0
    a = np.array([now[q] for q in common], dtype=np.float64)
    b = np.array([before[q] for q in common], dtype=np.float64)
    return permutation_test(a, b, alternative="less", seed=seed).pvalue, len(common)


def _gate_worse(name: str, before: dict[str, Any] | None, now: dict[str, Any] | None) -> list[str]:
    if before is None or now is None:
        return []
    reasons = []
    b, n = before["systems"].get(name), now["systems"].get(name)
    if b is not None and n is not None and b["pass"] and not n["pass"]:
        reasons.append("gate: pass -> FAIL")
    vb = {(v["run"], v["metric"]): v["verdict"] for v in before.get("verdicts", [])}
    vn = {(v["run"], v["metric"]): v["verdict"] for v in now.get("verdicts", [])}
    for (run, metric), old in sorted(vb.items()):
        new = vn.get((run, metric))
        if run == name and new is not None and VERDICT_RANK.get(new, 2) < VERDICT_RANK.get(old, 2):
            reasons.append(f"verdict on {metric}: {old} -> {new}")
    return reasons


def _gate_state(gate: dict[str, Any] | None, name: str) -> str | None:
    if gate is None or name not in gate["systems"]:
        return None
    return "pass" if gate["systems"][name]["pass"] else "fail"


def _fmt(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".") if x >= 0.001 else f"{x:.1g}"


def bottom_line(rows: list[SystemCheck], metric: str, max_drop: float, harness: str | None = None) -> str:
    """"2 of 3 systems within 0.02 of the baseline; hybrid dropped 0.031 nDCG@10 (p = 0.01): FAIL"."""
    judged = [r for r in rows if r.status != "new"]
    failed = [r for r in judged if r.status == "FAIL"]
    within = sum(1 for r in judged if r.delta is not None and r.delta >= -max_drop - TIE)
    parts = [f"{within} of {len(judged)} systems within {max_drop:g} of the baseline {metric}"]
    for r in failed:
        if r.delta is None:
            parts.append(f"{r.system} is gone")
        elif r.delta < -max_drop - TIE:
            p = "" if r.p_drop is None else f" (p = {_fmt(r.p_drop)})"
            parts.append(f"{r.system} dropped {-r.delta:.3f} {metric}{p}")
        else:
            parts.append(f"{r.system}: {'; '.join(r.reasons)}")
    if harness:
        parts.append(harness)
    return "; ".join(parts) + (": FAIL" if failed or harness else ": PASS")


def compare_with_baseline(baseline: dict[str, Any], folder: Path, *, metric: str = "nDCG@10",
                          max_drop: float = 0.02, allow_dataset_change: bool = False, seed: int = 0,
                          gate_newer_than: float | None = None, baseline_path: str | Path | None = None,
                          config_text: str | None = None) -> CheckResult:
    """Compare the experiment output folder ``folder`` with a baseline document (see the module docstring).

    ``config_text``: the config that was re-run, to say whether it is the one frozen (a note, never a failure:
    checking an edited system is the point).
    """
    from hcrbench.experiment.freeze import hcrbench_version, read_json
    from hcrbench.experiment.manifest import read_manifest, sha256_json

    _check_max_drop(max_drop)
    metric = _canonical_metric(metric, list(baseline.get("metrics") or []))
    manifest = read_manifest(folder) or {}
    evaluation = read_json(folder / "eval.json", "eval.json")
    notes: list[str] = []
    changed = dataset_changes(baseline["dataset"]["files"], (manifest.get("dataset") or {}).get("files") or {})
    if changed:
        _refuse_changed_dataset(changed, allow_dataset_change, baseline_path)
        notes.append(f"{_changed(changed)}; compared on the queries both have")
    if config_text is not None and baseline.get("config_sha256") not in (None, sha256_json(config_text)):
        notes.append("the config differs from the one frozen (expected when the check is of a changed system)")
    if baseline.get("hcrbench_version") not in (None, hcrbench_version()):
        notes.append(f"frozen with hcrbench {baseline['hcrbench_version']}, checked with {hcrbench_version()}")
    gate_before = baseline.get("gate")
    gate_now = read_gate(folder, newer_than=gate_newer_than)
    if gate_before is not None and gate_now is None:
        notes.append("the baseline has gate verdicts but this run wrote no gate.json: the gate was not compared")
    runs = evaluation.get("runs") or {}
    rows: list[SystemCheck] = []
    for name, base in sorted(baseline["systems"].items()):
        run = runs.get(name)
        b_mean = base["means"].get(metric)
        if run is None:
            rows.append(SystemCheck(name, b_mean, None, None, None, 0, _gate_state(gate_before, name), None,
                                    "FAIL", ["gone: no such system in this run"]))
            continue
        before_pq = base["per_query"].get(metric) or {}
        now_pq = (run.get("per_query") or {}).get(metric) or {}
        p, n = _p_drop(before_pq, now_pq, seed)
        if changed:  # means over the common queries only, so the delta is the paired one
            common = sorted(set(before_pq) & set(now_pq))
            b_mean = sum(before_pq[q] for q in common) / len(common) if common else None
            n_mean = sum(now_pq[q] for q in common) / len(common) if common else None
        else:
            n_mean = (run.get("means") or {}).get(metric)
        delta = None if b_mean is None or n_mean is None else n_mean - b_mean
        reasons = []
        if delta is None:
            reasons.append(f"no {metric} to compare")
        elif delta < -max_drop - TIE:
            reasons.append(f"dropped {-delta:.4f} > {max_drop:g}")
        reasons += _gate_worse(name, gate_before, gate_now)
        rows.append(SystemCheck(name, b_mean, n_mean, delta, p, n, _gate_state(gate_before, name),
                                _gate_state(gate_now, name), "FAIL" if reasons else "ok", reasons))
    for name in sorted(set(runs) - set(baseline["systems"])):
        mean = (runs[name].get("means") or {}).get(metric)
        rows.append(SystemCheck(name, None, mean, None, None, 0, None, _gate_state(gate_now, name), "new",
                                ["not in the baseline"]))
    harness = None
    if gate_before is not None and gate_now is not None and gate_before.get("controls_trusted") is True \
            and gate_now.get("controls_trusted") is False:
        harness = "the gate's positive controls now fail (harness not trusted)"
    line = bottom_line(rows, metric, max_drop, harness)
    n_queries = int((manifest.get("dataset") or {}).get("n_judged_queries") or 0)
    suite = (baseline.get("suite") or {}).get("kind", "full")
    return CheckResult(not any(r.status == "FAIL" for r in rows) and harness is None, line, metric, max_drop,
                       rows, suite, n_queries, notes)


def check(baseline_path: str | Path, config_path: str | Path | None = None, *, metric: str = "nDCG@10",
          max_drop: float = 0.02, smoke: bool | None = None, reuse: bool = False,
          allow_dataset_change: bool = False, progress: bool = False) -> CheckResult:
    """Re-run the suite of ``config_path`` (default: the config the baseline names) and compare.

    ``smoke``: None runs the suite the baseline was frozen from; True insists on the smoke suite (an error if
    the baseline is a full one); False on the full suite.
    """
    import time

    from hcrbench.experiment.suite import run_suite

    t0 = time.perf_counter()
    baseline_path = Path(baseline_path)
    baseline = read_baseline(baseline_path)
    suite = baseline.get("suite") or {"kind": "full"}
    is_smoke = suite.get("kind") == "smoke"
    if smoke is not None and smoke != is_smoke:
        raise InputError(f"the baseline was frozen from the {'smoke' if is_smoke else 'full'} suite; freeze one "
                         f"{'without' if is_smoke else 'with'} --smoke to check the "
                         f"{'smoke' if smoke else 'full'} suite", path=baseline_path, field="suite")
    _check_max_drop(max_drop)  # before anything slow runs
    _canonical_metric(metric, list(baseline.get("metrics") or []))
    if config_path is None:
        ref = baseline.get("config")
        if not ref:
            raise InputError("the baseline names no config; give CONFIG", field="CONFIG")
        config_path = (baseline_path.parent / ref) if not Path(ref).is_absolute() else Path(ref)
    config_path = Path(config_path)
    smoke_seed = suite.get("seed") if is_smoke else None
    def refuse_early(files: dict[str, str]) -> None:  # before the systems run, not after
        _refuse_changed_dataset(dataset_changes(baseline["dataset"]["files"], files), allow_dataset_change,
                                baseline_path)

    with run_suite(config_path, smoke=is_smoke, smoke_seed=smoke_seed, reuse=reuse, progress=progress,
                   before_run=refuse_early) as run:
        result = compare_with_baseline(baseline, run.output_dir, metric=metric, max_drop=max_drop,
                                       allow_dataset_change=allow_dataset_change, seed=int(baseline.get("seed") or 0),
                                       gate_newer_than=run.started, baseline_path=baseline_path,
                                       config_text=run.config_text)
    result.seconds = time.perf_counter() - t0
    return result
