"""Known-truth subjects through the real pipeline: run files fixed at about +0.06, -0.06 and 0 nDCG@10 against the
kill baseline over each whole test world, judged by ``hcrbench quickstart --system runfile:FILE`` on seeds no doc
or test names.

For each seed:

1. **Pilot.** ``hcrbench quickstart --system bm25`` on the seed's worlds (``--worlds W --max-worlds W``: tune w00,
   dev w01, test w02..) scores the field, the kill baseline included, exactly as the subject's runs will (same
   data, same tuning, same seed). The subjects are built against the system the kill row judges: the kill
   baseline, or the strongest flat system when the kill baseline is no value barrier (protocol/field.py).
2. **Subjects.** From the pilot's kill-baseline run and the test worlds' qrels, one TREC run per effect: per test
   world, the baseline's own ranking on most queries, the ideal ranking (nDCG@10 = 1) on a random set of queries
   whose gains add up to ``+effect`` x the world's queries, the baseline's ranking without its relevant documents
   (nDCG@10 = 0) on a random set whose losses add up to ``effect`` x queries (for 0: both, +0.06 and -0.06, so
   the world's mean difference is 0 with real per-query spread). Every world's realised mean difference is
   computed from the per-query nDCG@10 and reported (it is the truth the verdict is checked against).
3. **Verdicts.** ``hcrbench quickstart --system runfile:FILE`` per effect (a run file holds the worlds it was made
   for, so the run judges all its test worlds at one look), and the kill row read from ``verdicts.json``.

A decision is wrong when +effect is killed, -effect is "go", or the equal subject is decided either way.

    python benchmarks/known_truth_quickstart.py [--seeds 920001,920002] [--effects 0.06,-0.06,0] [--worlds 4]
        [--encoder hash] [--seeds-per-tree 1] [--workdir DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

SEEDS = (920001, 920002, 920003)
EFFECTS = (0.06, -0.06, 0.0)
NULL_SPREAD = 0.06  # the null's gains and losses, each this share of a world's queries


# ------------------------------------------------------------------------------------------------ subjects


def read_trec_run(path: Path) -> dict[str, list[str]]:
    """``{query: [doc, ...]}`` in rank order (score descending, as written)."""
    rows: dict[str, list[tuple[float, str]]] = defaultdict(list)
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 6:
                rows[parts[0]].append((-float(parts[4]), parts[2]))
    return {q: [d for _, d in sorted(v)] for q, v in rows.items()}


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """``{query: {doc: grade}}`` from a BEIR qrels TSV (header ``query-id corpus-id score``)."""
    out: dict[str, dict[str, int]] = defaultdict(dict)
    with path.open(encoding="utf-8") as fh:
        next(fh, None)
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                out[parts[0]][parts[1]] = int(float(parts[2]))
    return dict(out)


def _pick(order: list[str], size: dict[str, float], target: float) -> list[str]:
    """Queries from ``order`` whose sizes add up as close to ``target`` as the greedy pass and one best last pick
    get."""
    chosen, total = [], 0.0
    for q in order:
        if size[q] > 0 and total + size[q] <= target + 1e-12:
            chosen.append(q)
            total += size[q]
    rest = [q for q in order if q not in set(chosen) and size[q] > 0]
    gap = target - total
    if rest and gap > 0:
        best = min(rest, key=lambda q: abs(gap - size[q]))
        if abs(gap - size[best]) < gap:
            chosen.append(best)
    return chosen


def build_subject(base: dict[str, float], ranking: dict[str, list[str]], qrels: dict[str, dict[str, int]],
                  effect: float, rng: np.random.Generator, world_of, world_sd: float = 0.0,
                  ) -> tuple[dict[str, list[str]], dict]:
    """One subject: its ranking per query and the realised mean difference per world (``{world: {"n", "delta",
    "target", "up", "down"}}``), built from the baseline's per-query nDCG@10 ``base`` and ranking (module
    docstring). ``world_sd`` > 0: each world's target is ``effect`` + ``world_sd`` x a standard normal draw (the
    effect is fixed over the population of worlds, not in each world); 0: every world's target is ``effect``."""
    worlds: dict[int, list[str]] = defaultdict(list)
    for q in sorted(base):
        if qrels.get(q) and any(g > 0 for g in qrels[q].values()):
            worlds[world_of(q)].append(q)
    targets = {w: effect + (float(world_sd * rng.standard_normal()) if world_sd > 0 else 0.0) for w in sorted(worlds)}
    out: dict[str, list[str]] = {}
    realised = {}
    for w, qs in sorted(worlds.items()):
        order = [qs[i] for i in rng.permutation(len(qs))]
        n, t = len(qs), targets[w]
        # gains and losses that add up to the world's target; the null has both (real per-query spread)
        gain, loss = (NULL_SPREAD + max(t, 0.0), NULL_SPREAD + max(-t, 0.0)) if effect == 0 else (max(t, 0.0),
                                                                                                   max(-t, 0.0))
        up = _pick(order, {q: 1.0 - base[q] for q in qs}, gain * n) if gain > 0 else []
        left = [q for q in order if q not in set(up)]
        dn = _pick(left, {q: base[q] for q in qs}, loss * n) if loss > 0 else []
        new = dict((q, base[q]) for q in qs)
        for q in qs:
            rel = qrels[q]
            own = ranking.get(q, [])
            if q in set(up):
                ideal = sorted((d for d, g in rel.items() if g > 0), key=lambda d: (-rel[d], d))
                out[q] = ideal + [d for d in own if d not in set(ideal)]
                new[q] = 1.0
            elif q in set(dn):
                out[q] = [d for d in own if rel.get(d, 0) <= 0]
                new[q] = 0.0
            else:
                out[q] = own
        realised[w] = {"n": n, "delta": float(np.mean([new[q] - base[q] for q in qs])), "target": round(t, 6),
                       "up": len(up), "down": len(dn)}
    return out, realised


def write_trec_run(ranking: dict[str, list[str]], path: Path, tag: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for q in sorted(ranking):
            docs = ranking[q][:100] or ["none"]
            for r, d in enumerate(docs, 1):
                fh.write(f"{q} Q0 {d} {r} {len(docs) - r + 1} {tag}\n")
    tmp.replace(path)


# ------------------------------------------------------------------------------------------------ pipeline


def timed(cmd: list[str], env: dict[str, str], log: Path) -> dict:
    """Run ``cmd`` with its output in ``log``; its wall seconds, the CPU seconds of its whole process tree (user +
    sys of the command and every child it waited for, from ``wait4``), the 1-minute load average when it started
    and its start time (UTC)."""
    stamp = {"started": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "load_start": round(os.getloadavg()[0], 1)}
    t0 = time.time()
    with log.open("w", encoding="utf-8") as fh:
        p = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)
        _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {log.read_text(encoding='utf-8')[-2000:]}")
    return {**stamp, "wall_s": round(time.time() - t0, 1), "cpu_s": round(ru.ru_utime + ru.ru_stime, 2)}


def quickstart(out: Path, seed: int, worlds: int, encoder: str, tree_seeds: int, system: str) -> dict:
    """``hcrbench quickstart`` in a subprocess (the real command), with its own ``HCRBENCH_HOME`` (each run is
    one user's first look at these worlds: the look registry of the pilot is not its); its :func:`timed` record,
    also written beside the folder (``OUT.timing.json``) so a resumed benchmark keeps it."""
    cmd = ["hcrbench", "quickstart", "--out", str(out), "--seed", str(seed), "--worlds", str(worlds),
           "--max-worlds", str(worlds), "--encoder", encoder, "--seeds", str(tree_seeds), "--system", system,
           "--quiet"]
    # the home beside the folder, not in it: the quickstart refuses a folder holding files it did not write
    rec = timed(cmd, {**os.environ, "HCRBENCH_HOME": str(out.parent / f"{out.name}.home")},
                out.parent / f"{out.name}.log")
    write_json(out.parent / f"{out.name}.timing.json", rec)
    return rec


def timing_of(out: Path) -> dict:
    """A finished run's timing: the benchmark's record when it ran the command, else the quickstart's own look
    seconds (``verdicts.json`` ``sequential.looks``: no CPU seconds or load then)."""
    side = out.parent / f"{out.name}.timing.json"
    if side.is_file():
        return json.loads(side.read_text(encoding="utf-8"))
    v = json.loads((out / "verdicts.json").read_text(encoding="utf-8"))
    looks = (v.get("sequential") or {}).get("looks") or []
    secs = sum(float(x.get("seconds") or 0.0) for x in looks)
    return {"wall_s": round(secs, 1) if looks else None, "cpu_s": None, "load_start": None, "started": None,
            "from": "verdicts.json sequential.looks"}


def adopt(pilot: Path, out: Path) -> None:
    """Copy the pilot's folder to ``out`` as the folder of ``out/quickstart.toml`` (its owner marker names the
    config it belongs to; the pilot's busy mark and verdicts are not copied)."""
    shutil.copytree(pilot, out, ignore=shutil.ignore_patterns(".home", ".hcrbench-busy", "verdicts.json"))
    marker = out / ".hcrbench-folder.json"
    if marker.is_file():
        doc = json.loads(marker.read_text(encoding="utf-8"))
        doc["config_path"] = str((out / "quickstart.toml").resolve())
        marker.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


def kill_row(out: Path) -> dict:
    """The kill row of ``out/verdicts.json``: its verdict, and the decision its interval makes on this run's data
    (``decision``: the row's own verdict, or below the full size the one it says it would be there), with
    checkpoint 3's (the subject against the kill baseline itself, on the betting interval), and the test worlds
    and queries of the look that judged it."""
    v = json.loads((out / "verdicts.json").read_text(encoding="utf-8"))
    row = next(r for r in v.get("hypotheses", []) if r.get("id") == "kill")
    ev = row.get("evidence") or {}
    cp3 = next((r for r in v.get("checkpoints", []) if r.get("id") == "vs_kill_baseline"), {})
    verdict = row.get("verdict", row.get("status"))
    seq = v.get("sequential") or {}
    return {"verdict": verdict, "decision": ev.get("at_full_size_this_would_be") or verdict,
            "interval": row.get("interval"), "n": row.get("n"), "interval_kind": row.get("interval_kind"),
            "judged_against": ev.get("judged_against") or v.get("kill_baseline"),
            "kill_baseline": v.get("kill_baseline"), "overall": v.get("overall"),
            "test_worlds": seq.get("worlds"), "queries": seq.get("queries"),
            # an undecided row's "needs ~ n" in test worlds and minutes (batches.price_undecided), to check later
            "undecided": row.get("undecided"),
            "checkpoint3": cp3.get("status", cp3.get("verdict")), "checkpoint3_interval": cp3.get("interval")}


def pilot_inputs(out: Path) -> tuple[dict[str, float], dict[str, list[str]], dict[str, dict[str, int]], str]:
    """The judged baseline's per-query nDCG@10 and ranking on the test queries, their qrels, and its name."""
    v = json.loads((out / "verdicts.json").read_text(encoding="utf-8"))
    row = next((r for r in v.get("hypotheses", []) if r.get("id") == "kill"), {})
    # the pair the kill row judges: the kill baseline, or the strongest flat system when it is no value barrier
    kill = (row.get("evidence") or {}).get("judged_against") or v["kill_baseline"]
    ev = json.loads((out / "eval.json").read_text(encoding="utf-8"))["runs"][kill]["per_query"]["nDCG@10"]
    qrels_path = next((out / "data").glob("meridian-*-worlds/qrels/test.tsv"))
    return {q: float(x) for q, x in ev.items()}, read_trec_run(out / "runs" / f"{kill}.trec"), \
        read_qrels(qrels_path), kill


def pilot_worlds(out: Path) -> int | None:
    """The worlds the pilot's quickstart was made with (its ``quickstart.toml`` ``[dataset] worlds``)."""
    import tomllib

    return (tomllib.loads((out / "quickstart.toml").read_text(encoding="utf-8")).get("dataset") or {}).get("worlds")


def judge(row: dict) -> dict:
    """``wrong``: the decision contradicts the sign of the population effect (+ killed, - "go", 0 decided);
    ``decided``: go or kill."""
    eff, dec = row["effect"], row["decision"]
    row["wrong"] = (eff > 0 and dec == "kill") or (eff < 0 and dec == "go") or (eff == 0 and dec in ("go", "kill"))
    row["decided"] = dec in ("go", "kill")
    return row


def run(seeds: list[int], effects: list[float], worlds: int, encoder: str, tree_seeds: int, work: Path,
        log=print, world_sd: float = 0.0, jobs: int = 1, collect: bool = False) -> dict:
    """Every seed's pilot, subjects and verdicts (module docstring); ``collect``: run no quickstart, gather the
    finished runs only (a seed without a pilot, an effect without verdicts, are left out)."""
    from concurrent.futures import ThreadPoolExecutor

    from hcrbench.synth.worlds import world_of

    rows, pilots = [], {}
    tag = f"-sd{world_sd:g}" if world_sd > 0 else ""
    for seed in seeds:
        pilot = work / f"pilot-{seed}"
        if not (pilot / "verdicts.json").is_file():
            if collect:
                log(f"seed {seed}: no finished pilot, left out")
                continue
            rec = quickstart(pilot, seed, worlds, encoder, tree_seeds, "bm25")
            log(f"seed {seed}: pilot {rec['wall_s']:.0f} s wall, {rec['cpu_s']:.0f} s CPU")
        made = pilot_worlds(pilot)
        if made != worlds:  # the folders are named by seed (and spread) only: another --worlds needs its own workdir
            raise SystemExit(f"{pilot} was made with {made} worlds, not --worlds {worlds}: use another --workdir")
        pilots[str(seed)] = timing_of(pilot)
        base, ranking, qrels, _kill = pilot_inputs(pilot)
        todo = []
        for eff in effects:
            rng = np.random.default_rng([seed, round(eff * 1000) + 1000])
            subj, realised = build_subject(base, ranking, qrels, eff, rng, world_of, world_sd=world_sd)
            folder = work / f"subject-{seed}-{eff:+.2f}{tag}"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "test.trec"
            write_trec_run(subj, path, f"known{eff:+.2f}")
            out = work / f"run-{seed}-{eff:+.2f}{tag}"
            todo.append((eff, realised, out, path))

        def one(item, seed=seed, pilot=pilot):
            eff, realised, out, path = item
            if not (out / "verdicts.json").is_file():
                if collect:
                    return None
                if not out.exists():  # the pilot's folder: the field's runs are reused, the subject is scored anew
                    adopt(pilot, out)
                quickstart(out, seed, worlds, encoder, tree_seeds, f"runfile:{path}")
            row = {"seed": seed, "effect": eff, "world_sd": world_sd, "realised": realised, **kill_row(out),
                   "timing": timing_of(out)}
            row["truth"] = float(np.mean([r["delta"] for r in realised.values()]))
            return judge(row)

        with ThreadPoolExecutor(max(1, jobs)) as ex:
            for row in ex.map(one, todo):
                if row is None:
                    continue
                rows.append(row)
                log(f"seed {seed} effect {row['effect']:+.2f} (realised {row['truth']:+.4f} vs "
                    f"{row['judged_against']}): kill row {row['verdict']} (decision {row['decision']}) "
                    f"{row['interval']}; checkpoint 3 {row['checkpoint3']} ({minutes(row['timing'])})")
    return {"config": {"seeds": seeds, "effects": effects, "worlds": worlds, "encoder": encoder,
                       "tree_seeds": tree_seeds, "world_sd": world_sd}, "pilots": pilots, "rows": rows}


def minutes(t: dict | None) -> str:
    if not t or t.get("wall_s") is None:
        return "—"
    cpu = f" ({t['cpu_s'] / 60:.0f} CPU)" if t.get("cpu_s") is not None else ""
    return f"{t['wall_s'] / 60:.0f}{cpu}"


def _iv(iv) -> str:
    return f"[{iv[0]:+.3f}, {iv[1]:+.3f}]" if iv and len(iv) == 2 and None not in iv else "—"


def markdown(doc: dict) -> str:
    c = doc["config"]
    sd = c.get("world_sd") or 0.0
    spread = (f"each test world's target drawn as effect + {sd:g} x N(0, 1) (the effect holds over the population "
              "of worlds; wrong = against its sign)" if sd > 0 else "every test world's mean difference fixed at "
              "the effect")
    pil = doc.get("pilots") or {}
    done = sorted({r["seed"] for r in doc["rows"]})
    missing = [s for s in c["seeds"] if s not in done]
    lines = [f"{len(c['seeds'])} seed(s) ({', '.join(map(str, c['seeds']))}"
             + (f"; no finished run on {', '.join(map(str, missing))}" if missing else "") + f"), {c['worlds']} worlds each "
             f"({c['worlds'] - 2} test worlds, one look: `--worlds {c['worlds']} --max-worlds {c['worlds']}`), "
             f"encoder {c['encoder']}, {c.get('tree_seeds', 1)} tree seed(s); {spread}. Minutes: wall (CPU of the "
             "command's process tree), on a shared machine."
             + (" Pilots (`--system bm25`, the field): " + ", ".join(f"{s}: {minutes(t)} min"
                                                                   for s, t in sorted(pil.items())) + "." if pil else ""),
             "",
             "| seed | effect | realised mean difference | judged against | kill row | its decision | test worlds / "
             "queries | interval | checkpoint 3 | load at start | minutes |",
             "|---:|---:|---:|---|---|---|---:|---|---|---:|---:|"]
    for r in sorted(doc["rows"], key=lambda r: (r["seed"], -r["effect"])):
        t, ws = r.get("timing") or {}, [w["delta"] for w in (r.get("realised") or {}).values()]
        spread_ws = f" (worlds {min(ws):+.3f} to {max(ws):+.3f})" if sd > 0 and ws else ""
        lines.append(f"| {r['seed']} | {r['effect']:+.2f} | {r['truth']:+.4f}{spread_ws} | {r.get('judged_against')} | "
                     f"{r.get('verdict', r['decision'])} | {r['decision']}{' (wrong)' if r['wrong'] else ''} | "
                     f"{r.get('test_worlds', '—')} / {r.get('queries', r.get('n', '—'))} | {_iv(r.get('interval'))} | "
                     f"{r.get('checkpoint3')} | {t.get('load_start') if t.get('load_start') is not None else '—'} | "
                     f"{minutes(t)} |")
    lines += ["",
              "Kill row: the row's verdict, and the decision its interval makes on the run's data (they differ only "
              "in runs made before commit e992c56, 7 Dec 2026 20:39 UTC, when a row below the full size said \"not decidable at size\" and "
              "named the decision it would be); checkpoint 3: the subject against the kill baseline itself.", "",
              "| effect | runs | realised truth (range) | go | kill | not decidable | wrong | decided | "
              "undecided: more test worlds printed (median) | checkpoint 3 |",
              "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for eff in c["effects"]:
        rs = [r for r in doc["rows"] if r["effect"] == eff]
        if not rs:
            continue
        t = [r["truth"] for r in rs]
        cnt = {k: sum(r["decision"] == k for r in rs) for k in ("go", "kill")}
        cp3 = ", ".join(f"{k} {n}" for k, n in sorted(Counter(str(r.get("checkpoint3")) for r in rs).items()))
        more = [int(u["more_worlds"]) for r in rs if (u := r.get("undecided") or {}).get("more_worlds") is not None]
        lines.append(f"| {eff:+.2f} | {len(rs)} | {min(t):+.4f} to {max(t):+.4f} | {cnt['go']} | {cnt['kill']} | "
                     f"{len(rs) - cnt['go'] - cnt['kill']} | {sum(r['wrong'] for r in rs)} | "
                     f"{sum(r['decided'] for r in rs)} | {f'{float(np.median(more)):g}' if more else '—'} | {cp3} |")
    wrong = sum(r["wrong"] for r in doc["rows"])
    lines += ["", f"Wrong decisions: {wrong} of {len(doc['rows'])} runs."]
    return "\n".join(lines)


def measured_on(doc: dict) -> dict:
    """Where and when the runs ran (docs' timing stamp): the first start among them, the machine, and the range of
    the load averages their commands started at."""
    ts = [t for t in [*(doc.get("pilots") or {}).values(), *(r.get("timing") or {} for r in doc["rows"])] if t]
    starts = sorted(t["started"] for t in ts if t.get("started"))
    loads = sorted(float(t["load_start"]) for t in ts if t.get("load_start") is not None)
    model = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                  if ln.startswith("model name")), "CPU") if Path("/proc/cpuinfo").is_file() else "CPU"
    return {"date": (starts[0] + " UTC") if starts else time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{os.cpu_count()}-core {model}",
            "load": f"{loads[0]:g}-{loads[-1]:g}" if loads else "unknown"}


def write_json(path: Path, doc: dict) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default=",".join(map(str, SEEDS)))
    ap.add_argument("--effects", default=",".join(map(str, EFFECTS)))
    ap.add_argument("--worlds", type=int, default=4, help="worlds per run (tune, dev and the test worlds)")
    ap.add_argument("--encoder", default="hash")
    ap.add_argument("--seeds-per-tree", type=int, default=1, help="HCR tree seeds (--seeds of quickstart)")
    ap.add_argument("--world-sd", type=float, default=0.0,
                    help="spread of the worlds' effects around the target (0: fixed in every world)")
    ap.add_argument("--jobs", type=int, default=1, help="a seed's subjects judged side by side")
    ap.add_argument("--collect", action="store_true",
                    help="run no quickstart: gather the finished runs of --workdir only")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    try:
        seeds = [int(s) for s in a.seeds.split(",") if s.strip()]
        effects = [float(e) for e in a.effects.split(",") if e.strip()]
    except ValueError as e:
        print(f"--seeds / --effects: {e}", file=sys.stderr)
        return 2
    if a.worlds < 3 or not seeds or not effects or any(not math.isfinite(e) or abs(e) >= 1 for e in effects):
        print("--worlds must be >= 3, --seeds and --effects non-empty, each effect in (-1, 1)", file=sys.stderr)
        return 2
    if not (math.isfinite(a.world_sd) and 0 <= a.world_sd < 1) or a.jobs < 1:
        print("--world-sd must be in [0, 1) and --jobs >= 1", file=sys.stderr)
        return 2
    work = Path(a.workdir or "known-truth-runs").resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HCRBENCH_HOME", str(work / "home"))
    doc = run(seeds, effects, a.worlds, a.encoder, a.seeds_per_tree, work,
              log=lambda s: print(s, file=sys.stderr, flush=True), world_sd=a.world_sd, jobs=a.jobs,
              collect=a.collect)
    doc["measured_on"] = measured_on(doc)
    print(markdown(doc))
    if a.json:
        write_json(Path(a.json), doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
