"""Fault injection, disk classes (issue 27): a full or read-only output folder, a full or read-only cache, a cache
path that is a file, orphaned partial shards. The disk faults are faked (fakefs/sitecustomize.py: writes under one
folder fail with ENOSPC or EROFS), so the tests need no root and no small file system."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from faultkit import config_text, hcrbench, in_process, one_error_line

from hcrbench.data.cache import EmbeddingCache


@pytest.mark.parametrize(("fault", "reason"), [("ENOSPC", "No space left on device"),
                                               ("EROFS", "Read-only file system")], ids=["full", "read-only"])
def test_an_unwritable_output_folder_is_one_line_exit_1_and_nothing_half_written(root: Path, capsys, fault: str,
                                                                                  reason: str):
    (root / "disk").mkdir()
    (root / "f.toml").write_text(config_text("exp-f", root, output_dir="disk/out"))
    if fault == "EROFS":  # the folder exists from an earlier run; now the disk is read-only
        assert in_process(capsys, "run", str(root / "f.toml"), "--quiet")[0] == 0
    p = hcrbench("run", "f.toml", "--quiet", cwd=root, fault=f"{fault}:{root / 'disk'}")
    assert p.returncode == 1
    err = one_error_line(p)
    assert "disk/out/" in err and reason in err, err
    assert not [q for q in (root / "disk").rglob("*") if q.name.endswith(".tmp")]  # no temp file left
    code, _, err = in_process(capsys, "run", str(root / "f.toml"), "--quiet")  # the disk is back: it completes
    assert code == 0, err


@pytest.mark.parametrize("fault", ["ENOSPC", "EROFS"], ids=["full", "read-only"])
def test_an_unwritable_cache_warns_and_the_run_is_unchanged(root: Path, capsys, monkeypatch, fault: str):
    monkeypatch.setenv("HCRBENCH_CACHE", str(root / "clean-cache"))
    args = ("retrieve", "--dataset", "data", "--system", "bm25", "--k", "5")
    monkeypatch.chdir(root)
    assert in_process(capsys, *args, "--out", "clean.trec")[0] == 0
    (root / "disk").mkdir()
    p = hcrbench(*args, "--out", "faulty.trec", cwd=root, fault=f"{fault}:{root / 'disk'}",
                 env={"HCRBENCH_CACHE": str(root / "disk" / "cache")})
    assert p.returncode == 0, p.stderr
    assert "warning: cache: cannot write" in p.stderr and "continuing without caching it" in p.stderr
    assert (root / "faulty.trec").read_bytes() == (root / "clean.trec").read_bytes()
    assert not [q for q in (root / "disk").rglob("*") if q.is_file()]  # nothing half-written left behind


def test_a_cache_path_that_is_a_file_is_one_line_exit_2(root: Path, capsys, monkeypatch):
    monkeypatch.setenv("HCRBENCH_CACHE", str(root / "a.toml"))
    code, _, err = in_process(capsys, "retrieve", "--dataset", str(root / "data"), "--system", "bm25", "--out",
                              str(root / "r.trec"))
    assert code == 2 and err.count("\n") == 1 and "HCRBENCH_CACHE: the cache must be a folder" in err, err
    code, _, err = in_process(capsys, "cache", "verify")
    assert code == 2 and "HCRBENCH_CACHE" in err


def test_cache_verify_reports_and_repair_removes_orphaned_partial_shards(tmp_path: Path, capsys):
    cache = EmbeddingCache("toy-model", root=tmp_path)
    cache.put(["a", "b"], [np.ones(4), np.zeros(4)])
    first = set(cache.path.glob("*.keys.npy"))
    cache.put(["c"], [np.ones(4)])
    (shard,) = set(cache.path.glob("*.keys.npy")) - first  # c's shard
    shard.unlink()  # a put that died before its commit marker: vec / off / sum left behind
    (cache.path / ".x.vec.npy.abc123.tmp").write_bytes(b"partial")
    p = hcrbench("cache", "verify", "--root", str(tmp_path), cwd=tmp_path)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    orphans = [ln for ln in p.stderr.splitlines() if "orphaned partial file" in ln]
    assert len(orphans) == 5, p.stderr  # .vec.npy, .off.npy, .sum.json, .single and the temp file
    code, _, err = in_process(capsys, "cache", "verify", "--root", str(tmp_path), "--repair")
    assert code == 0 and "removed" in err, err
    assert in_process(capsys, "cache", "verify", "--root", str(tmp_path))[0] == 0
    assert len([p for p in cache.path.iterdir() if p.name != "model.json"]) == 5  # the committed shard is intact
    assert EmbeddingCache("toy-model", root=tmp_path).get(["a", "b", "c"])[2] is None


def test_any_other_os_error_is_one_line_exit_1(tmp_path: Path, capsys, monkeypatch):
    import errno

    import hcrbench.data.cache_admin as admin

    def broken(*a, **k):
        raise OSError(errno.EIO, "Input/output error", str(tmp_path / "shard.vec.npy"))

    monkeypatch.setattr(admin, "verify_cache", broken)
    code, _, err = in_process(capsys, "cache", "verify", "--root", str(tmp_path))
    assert code == 1 and err == f"hcrbench: error: {tmp_path / 'shard.vec.npy'}: Input/output error\n"


# ------------------------------------------------------------------------------------- cache: any failure warns

HCR_CONFIG = ('name = "exp-h"\noutput_dir = "out-h"\nmetrics = ["nDCG@10"]\nn_resamples = 200\n'
              '[dataset]\npath = "data"\n[[systems]]\nname = "bm25"\ntype = "bm25"\n'
              '[[systems]]\nname = "hcr"\ntype = "hcr"\nparams = { backend = "hash", seed = 0 }\n')


def _results(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.suffix == ".trec" or p.name == "eval.json"}


def test_a_full_cache_in_hcrbench_run_warns_and_the_run_is_unchanged(root: Path, capsys, monkeypatch):
    """An HCR tree, written with the atomic writer into the cache (a WriteError, not an OSError), used to end
    the run with exit 1 after all its work."""
    (root / "h.toml").write_text(HCR_CONFIG)
    monkeypatch.setenv("HCRBENCH_CACHE", str(root / "clean-cache"))
    assert in_process(capsys, "run", str(root / "h.toml"), "--quiet")[0] == 0
    clean = _results(root / "out-h")
    (root / "out-h").rename(root / "out-clean")
    (root / "disk").mkdir()
    p = hcrbench("run", "h.toml", "--quiet", cwd=root, fault=f"ENOSPC:{root / 'disk'}",
                 env={"HCRBENCH_CACHE": str(root / "disk" / "cache")})
    assert p.returncode == 0, p.stderr
    assert "hcr-tree" in p.stderr and "continuing without caching it" in p.stderr, p.stderr
    assert _results(root / "out-h") == clean
    assert not [q for q in (root / "disk").rglob("*") if q.is_file() and q.name != "model.json"]


def test_a_short_write_in_the_cache_warns_and_the_run_is_unchanged(root: Path, capsys, monkeypatch):
    """numpy reports a disk that filled up mid-file as OSError('N requested and M written') with no errno: it
    used to end ``retrieve`` with that line and exit 1."""
    import numpy

    monkeypatch.chdir(root)
    args = ("retrieve", "--dataset", "data", "--system", "bm25", "--k", "5")
    monkeypatch.setenv("HCRBENCH_CACHE", str(root / "clean-cache"))
    assert in_process(capsys, *args, "--out", "clean.trec")[0] == 0
    cache = root / "short-cache"
    real_save = numpy.save

    def short_save(file, arr, *a, **k):
        if str(file).startswith(str(cache)):
            Path(file if str(file).endswith(".npy") else f"{file}.npy").write_bytes(b"\x93NUMPY partial")
            raise OSError(f"{numpy.asarray(arr).nbytes + 128} requested and 14 written")
        return real_save(file, arr, *a, **k)

    monkeypatch.setattr(numpy, "save", short_save)
    monkeypatch.setenv("HCRBENCH_CACHE", str(cache))
    code, _, err = in_process(capsys, *args, "--out", "short.trec")
    assert code == 0, err
    assert "warning: cache: cannot write" in err and "requested and 14 written" in err, err
    assert (root / "short.trec").read_bytes() == (root / "clean.trec").read_bytes()
    assert not [q for q in cache.rglob("*") if q.is_file()]  # the partial entry is dropped


def test_a_real_full_tmpfs_cache_warns_and_the_run_is_unchanged(root: Path, capsys, monkeypatch, meridian_copy):
    """The issue's case on a real tmpfs (16 kB) (needs the right to mount one: root in a container)."""
    import subprocess

    tmpfs = root / "tmpfs"
    tmpfs.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(tmpfs)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root); the faked full and short writes above cover the class")
    try:
        meridian_copy(root / "m", size="small", seed=0, grow=True)
        args = ("retrieve", "--dataset", "m", "--system", "bm25", "--k", "10")
        monkeypatch.chdir(root)
        monkeypatch.setenv("HCRBENCH_CACHE", str(root / "clean-cache"))
        assert in_process(capsys, *args, "--out", "clean.trec")[0] == 0
        p = hcrbench(*args, "--out", "full.trec", cwd=root, env={"HCRBENCH_CACHE": str(tmpfs)})
        assert p.returncode == 0, p.stderr
        assert "warning: cache: cannot write" in p.stderr, p.stderr
        assert (root / "full.trec").read_bytes() == (root / "clean.trec").read_bytes()
    finally:
        subprocess.run(["umount", str(tmpfs)], capture_output=True)
