"""``hcrbench merge`` through the console script: the merged run scores exactly as the concatenated shards do (with
``--depth K`` as the concatenation scored with trec_eval's ``-M K``), in trec_eval's tie order; bad input is one line
and exit 2, and an input is never overwritten."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hcrbench.data import read_run

HCRBENCH = shutil.which("hcrbench")
CLI = [HCRBENCH] if HCRBENCH else [sys.executable, "-m", "hcrbench.cli"]
MEASURES = "nDCG@10,AP,P@5,RR,R@100,Bpref,NumRet"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, check=False)


def _shards(tmp: Path, n_shards: int = 3, n_queries: int = 8, seed: int = 0) -> tuple[list[Path], Path, Path]:
    """Shard runs over disjoint doc sets, each with every query; many ties within and across shards."""
    rng = random.Random(seed)
    shards, concat, qrels = [], [], []
    for s in range(n_shards):
        lines = []
        for q in range(n_queries):
            for d in rng.sample(range(60), rng.randint(0, 25)):
                doc = f"s{s}-{d}" if d % 3 else f"S{s}_{d}"  # mixed case: byte order matters for ties
                lines.append(f"q{q} Q0 {doc} 0 {rng.choice(['1.5', '2', '0.25', '2.0', '-1'])} shard{s}\n")
        rng.shuffle(lines)
        p = tmp / f"shard{s}.trec"
        p.write_text("".join(lines))
        shards.append(p)
        concat += lines
        qrels += [f"q{q} 0 {doc} {rng.randint(0, 2)}\n" for q in range(n_queries + 1)
                  for doc in (f"s{s}-{d}" for d in rng.sample(range(60), 6))]
    (tmp / "concat.trec").write_text("".join(concat))
    (tmp / "qrels.txt").write_text("".join(dict.fromkeys(qrels)))
    return shards, tmp / "concat.trec", tmp / "qrels.txt"


def _scores(qrels: Path, run: Path, tmp: Path, *extra: str) -> dict:
    out = tmp / f"{run.stem}-{len(extra)}.json"
    proc = _cli("evaluate", qrels, run, "-m", MEASURES, "--json", out, *extra)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    (run_doc,) = doc["runs"].values()
    return run_doc["per_query"]


def test_merged_run_scores_as_the_concatenation(tmp_path):
    shards, concat, qrels = _shards(tmp_path)
    merged = tmp_path / "merged.trec"
    proc = _cli("merge", *shards, "--out", merged)
    assert proc.returncode == 0, proc.stderr
    assert "merged 3 runs" in proc.stdout and "hcrbench evaluate" in proc.stdout
    assert _scores(qrels, merged, tmp_path) == _scores(qrels, concat, tmp_path)
    # every query once, ranks 1..n, trec_eval's order within it
    whole = read_run(concat)
    lines = [ln.split() for ln in merged.read_text().splitlines()]
    by_q: dict[str, list] = {}
    for q, _, d, r, s, tag in lines:
        by_q.setdefault(q, []).append((d, float(s), int(r), tag))
    assert set(by_q) == set(whole.query_ids)
    for q, got in by_q.items():
        assert [(d, s) for d, s, _, _ in got] == whole.ranked(q)
        assert [r for _, _, r, _ in got] == list(range(1, len(got) + 1))
        assert all(t == f"shard{d[1]}" for d, _, _, t in got)  # each line keeps its shard's tag


@pytest.mark.parametrize("depth", [1, 5])
def test_depth_equals_trec_eval_max_docs_on_the_concatenation(tmp_path, depth):
    shards, concat, qrels = _shards(tmp_path, seed=depth)
    merged = tmp_path / "merged.trec.gz"
    proc = _cli("merge", *shards, "--out", merged, "--depth", depth, "--tag", "rag")
    assert proc.returncode == 0, proc.stderr
    run = read_run(merged)
    assert max(len(run[q]) for q in run.query_ids) == depth
    assert _scores(qrels, merged, tmp_path) == _scores(qrels, concat, tmp_path, "-M", str(depth))


def test_a_doc_in_two_shards_is_refused_naming_file_and_line(tmp_path):
    shards, _, _ = _shards(tmp_path, n_shards=2)
    first = shards[0].read_text().splitlines(keepends=True)[0]
    with shards[1].open("a") as fh:
        fh.write(first)
    n_lines = len(shards[1].read_text().splitlines())
    out = tmp_path / "merged.trec"
    proc = _cli("merge", *shards, "--out", out)
    assert proc.returncode == 2
    assert f"{shards[1]}:{n_lines}: docid: doc " in proc.stderr and "appears twice" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not out.exists()  # nothing half-written
    assert _cli("merge", *shards, "--out", out, "--dedupe").returncode == 0


def test_refuses_to_overwrite_an_input(tmp_path):
    shards, _, _ = _shards(tmp_path, n_shards=2)
    before = shards[1].read_bytes()
    proc = _cli("merge", *shards, "--out", shards[1])
    assert proc.returncode == 2 and "input" in proc.stderr and "Traceback" not in proc.stderr
    assert shards[1].read_bytes() == before


def test_bad_line_is_one_line_with_file_and_line(tmp_path):
    shards, _, _ = _shards(tmp_path, n_shards=2)
    with shards[0].open("a") as fh:
        fh.write("q1 Q0 dX 1 high tag\n")
    n_lines = len(shards[0].read_text().splitlines())
    proc = _cli("merge", *shards, "--out", tmp_path / "m.trec")
    assert proc.returncode == 2
    assert f"{shards[0]}:{n_lines}: score: score is not a number" in proc.stderr
    assert _cli("merge", *shards, "--out", tmp_path / "m.trec", "--depth", "0").returncode == 2


def test_same_inputs_give_byte_identical_output(tmp_path):
    shards, _, _ = _shards(tmp_path)
    a, b = tmp_path / "a.trec", tmp_path / "b.trec"
    assert _cli("merge", *shards, "--out", a).returncode == 0
    assert _cli("merge", *shards, "--out", b).returncode == 0
    assert a.read_bytes() == b.read_bytes()


def _unsharded(tmp: Path, fmt: str) -> Path:
    """A run as a retrieval tool writes it: queries in no sorted order, scores in ``fmt`` with many ties, ties in
    the tool's own order (doc id ascending: not trec_eval's), ranks 1..n, one tag."""
    rng = random.Random(7)
    lines = []
    for q in ["q10", "q9", "q100", "q2", "3"]:
        docs = sorted(rng.sample(range(500), 60))
        scored = sorted(((rng.choice([12.5, 11.25, 3.0, 2.75, 0.5, -1.0]), f"doc{d:04d}") for d in docs),
                        key=lambda x: -x[0])  # stable: ties keep doc id ascending
        lines += [f"{q} Q0 {d} {r} {fmt % s} bm25\n" for r, (s, d) in enumerate(scored, 1)]
    path = tmp / "whole.trec"
    path.write_text("".join(lines))
    return path


@pytest.mark.parametrize("fmt", ["%.6f", "%r", "%.2f"])
@pytest.mark.parametrize("out_name", ["merged.trec", "merged.trec.gz"])
def test_merged_shards_are_byte_identical_to_the_unsharded_run(tmp_path, fmt, out_name):
    """Shards cut from one run (by doc, lines verbatim) merge back to that run byte for byte: query order, tie
    order, score text and tag kept."""
    import gzip

    whole = _unsharded(tmp_path, fmt)
    text = whole.read_bytes()
    shards = [tmp_path / f"s{k}.trec" for k in range(3)]
    parts: list[list[bytes]] = [[], [], []]
    for ln in text.splitlines(keepends=True):
        parts[int(ln.split()[2][3:]) % 3].append(ln)
    for p, lines in zip(shards, parts):
        p.write_bytes(b"".join(lines))
    out = tmp_path / out_name
    proc = _cli("merge", *shards, "--out", out)
    assert proc.returncode == 0, proc.stderr
    got = gzip.decompress(out.read_bytes()) if out_name.endswith(".gz") else out.read_bytes()
    assert got == text


def test_a_query_missing_from_the_first_shard_keeps_its_place(tmp_path):
    """A run cut into shards by doc: some queries are absent from some shards (the first one too); the merged file
    is still the unsharded one byte for byte (each query shares a shard with the next, so the order is known)."""
    rng = random.Random(3)
    lines = []
    for q in [f"t{rng.randrange(10**6)}" for _ in range(60)]:  # no sorted order
        docs = sorted(rng.sample(range(10**6), rng.randint(6, 12)))
        scored = sorted(((rng.choice([2.5, 1.0, 0.5]), f"doc{d}") for d in docs), key=lambda x: -x[0])
        lines += [f"{q} Q0 {d} {r} {s:.4f} run\n" for r, (s, d) in enumerate(scored, 1)]
    text = "".join(lines)
    parts: list[list[str]] = [[], [], [], []]
    for ln in lines:
        parts[int(ln.split()[2][3:]) % 4].append(ln)
    shards = []
    for k, part in enumerate(parts):
        shards.append(tmp_path / f"s{k}.trec")
        shards[-1].write_text("".join(part))
    first = {ln.split()[0] for ln in parts[0]}
    assert {ln.split()[0] for ln in lines} - first  # some query is not in the first shard
    out = tmp_path / "m.trec"
    proc = _cli("merge", *shards, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == text


def test_dedupe_reports_every_line_read(tmp_path):
    shards, _, _ = _shards(tmp_path, n_shards=2)
    total = sum(len(p.read_text().splitlines()) for p in shards)
    dup = shards[0].read_text().splitlines(keepends=True)[:3]
    with shards[1].open("a") as fh:
        fh.writelines(dup)
    out = tmp_path / "merged.trec"
    proc = _cli("merge", *shards, "--out", out, "--dedupe")
    assert proc.returncode == 0, proc.stderr
    written = len(out.read_text().splitlines())
    assert written == total
    assert f"{total + 3:,} lines read, {written:,} written" in proc.stdout
