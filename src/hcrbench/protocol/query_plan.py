"""The quickstart generates the test queries its power plan asks for.

Before the test split is scored, the power plan (:func:`field.power_plan`: the system and the kill baseline on
the tune + dev splits of the design's 300-query suite, in a pilot folder of their own) says how many test queries
each rule needs. When that is more than the suite's test split has, Meridian is generated again with a larger
suite (``generate_meridian(..., n_queries=N)``, ``[dataset] generate_queries = N`` in the config), N = the
wanted test queries over the suite's test share, at most ``--max-queries``; the test split is then scored once,
on the larger suite. When the generator cannot fill a suite of N (its query planner refuses), the largest count
that works is found by bisection between the design's 300 and N, and the hook says so. What was generated and why
is ``verdicts.json["power_plan"]["queries_hook"]``.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError

DEFAULT_MAX_QUERIES = 600


def data_name(size: str, seed: int, queries: int | None) -> str:
    """The generated dataset's folder: ``meridian-<size>-s<seed>`` (the design's suite) or ``...-q<N>``."""
    return f"meridian-{size}-s{seed}" + (f"-q{queries}" if queries else "")


def _suite_size(root: Path) -> int | None:
    try:
        m = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for key in ("n_queries", "queries"):
        v = m.get(key) if isinstance(m, dict) else None
        if isinstance(v, int):
            return v
        if isinstance(v, dict) and isinstance(v.get("n"), int):
            return int(v["n"])
    return None


def _generates(root: Path, size: str, seed: int, n: int, made: list[Path] | None = None, *,
               grow: bool = False) -> bool:
    """Whether Meridian fills an ``n``-query suite (generated into ``root``, reused when already there); a refused
    suite leaves no folder behind; a folder this call made is appended to ``made``."""
    from hcrbench.synth.generate import ensure_meridian

    existed = root.exists()
    try:
        ensure_meridian(root, size=size, seed=seed, n_queries=n, grow=grow)  # kept when this generator wrote it
    except InputError:
        if not existed:
            shutil.rmtree(root, ignore_errors=True)
        elif root.is_dir() and not any(root.iterdir()):  # an empty folder an earlier refusal left
            root.rmdir()
        return False
    if made is not None and not existed:
        made.append(root)
    return True


def _search_memo(data_root: Path, size: str, seed: int, target: int) -> tuple[Path, str, dict]:
    """Where past searches are remembered (``data_root/queries_search.json``), this search's key (the generator's
    version, size, seed and target) and what the file holds ({} when absent or unreadable)."""
    from hcrbench.synth.generate import GENERATOR_VERSION

    path = data_root / "queries_search.json"
    key = f"meridian-{GENERATOR_VERSION}-{size}-s{seed}-q{target}"
    try:
        memo = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        memo = {}
    return path, key, memo if isinstance(memo, dict) else {}


def _searched(data_root: Path, size: str, seed: int, target: int) -> int | None:
    """The largest suite a past search found for ``target`` queries, or None."""
    _, key, memo = _search_memo(data_root, size, seed, target)
    v = memo.get(key)
    return v if isinstance(v, int) and v > 0 else None


def _remember_search(data_root: Path, size: str, seed: int, target: int, got: int) -> None:
    """Record that the largest suite that works for ``target`` queries is ``got`` (atomic write)."""
    from hcrbench.data.atomic import atomic_write_text

    path, key, memo = _search_memo(data_root, size, seed, target)
    memo[key] = int(got)
    atomic_write_text(path, json.dumps(memo, indent=1, sort_keys=True) + "\n")


def plan(config_path: Path, data_root: Path, size: str, seed: int, max_queries: int) -> dict[str, Any]:
    """The queries hook: the pilot power plan on the design's suite (``config_path`` names it) and the suite the
    test split should come from: ``{"status", "queries", "data", "wanted_test", "n_test_design", "text", ...}``;
    ``queries`` None keeps the design's suite."""
    from hcrbench.experiment.config import load_config
    from hcrbench.experiment.dataset import load_data
    from hcrbench.protocol.field import power_plan

    cfg, text = load_config(config_path)
    data = load_data(cfg.dataset, config_path.parent, config_path, text)
    n_test = len(data.queries)
    root = Path(data.root)
    suite = _suite_size(root) or 300
    pilot = data_root / "pilot" / root.name
    pilot.mkdir(parents=True, exist_ok=True)
    pp = power_plan(cfg, data, pilot, n_test) if cfg.protocol is not None else {"status": "not run"}
    base = {"max_queries": int(max_queries), "n_test_design": n_test, "suite_design": suite,
            "pilot": pp.get("pilot"), "plan": pp.get("text")}
    want = pp.get("queries_wanted")
    if pp.get("status") != "planned" or not want:
        return {**base, "status": "not planned", "queries": None, "data": root.name,
                "text": f"no queries generated: {pp.get('text') or 'the power plan did not run'}"}
    base["wanted_test"] = int(want)
    if want <= n_test:
        return {**base, "status": "enough", "queries": None, "data": root.name,
                "text": f"the design's {suite}-query suite has {n_test} test queries, enough for every rule planned "
                        f"(~{want} wanted)"}
    share = n_test / suite
    target = min(int(max_queries), math.ceil(want / share))
    if target <= suite:
        return {**base, "status": "capped", "queries": None, "data": root.name,
                "text": f"the rules need ~{want} test queries; --max-queries {max_queries} allows no larger suite "
                        f"than the design's {suite} ({n_test} test queries)"}
    got, note = target, ""
    made: list[Path] = []
    grow = cfg.dataset.grow  # the larger suite's world is generated as the config's own (quickstart: no growth)
    known = _searched(data_root, size, seed, target)
    if known is not None and known < target and _generates(data_root / data_name(size, seed, known), size, seed,
                                                           known, grow=grow):
        got = known  # a warm re-run: the search's answer, its suite still there (no refused draws again)
        note = f"; the generator could not fill {target} queries, the largest suite that works is {got}"
    elif not _generates(data_root / data_name(size, seed, target), size, seed, target, made, grow=grow):
        lo, hi = suite, target  # lo generates (the design's suite), hi does not
        while hi - lo > max(10, lo // 20):
            mid = (lo + hi) // 2
            if _generates(data_root / data_name(size, seed, mid), size, seed, mid, made, grow=grow):
                lo = mid
            else:
                hi = mid
        got = lo
        note = f"; the generator could not fill {target} queries, the largest suite that works is {got}"
        _remember_search(data_root, size, seed, target, got)
    for folder in made:  # the search's other suites: only the one the test split comes from stays
        if folder.name != data_name(size, seed, got):
            shutil.rmtree(folder, ignore_errors=True)
    if got <= suite:
        return {**base, "status": "generator limit", "queries": None, "data": root.name,
                "text": f"the rules need ~{want} test queries (a {target}-query suite); the generator fills no suite "
                        f"larger than the design's {suite}{note}"}
    expect = round(got * share)
    capped = " (capped by --max-queries)" if target == max_queries and math.ceil(want / share) > max_queries else ""
    return {**base, "status": "generated", "queries": got, "data": data_name(size, seed, got),
            "n_test_expected": expect,
            "text": f"generated a {got}-query suite (~{expect} test queries){capped}: the power plan on tune + dev "
                    f"asks for ~{want} test queries, the design's {suite}-query suite has {n_test}{note}"}
