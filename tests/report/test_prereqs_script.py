"""scripts/test-prereqs.sh's Chromium step (``make test``): it says why it needs Chromium, never asks for a sudo
password (``sudo -n`` only), and when it cannot install, says the rendering test will be skipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _bin(tmp_path: Path, sudo: str) -> Path:
    b = tmp_path / "bin"
    b.mkdir()
    for tool in ("env", "cat", "dirname"):
        os.symlink(shutil.which(tool), b / tool)
    (b / "id").write_text("#!/bin/sh\necho 1000\n")  # a normal user, whoever runs the tests
    (b / "id").chmod(0o755)
    (b / "sudo").write_text(sudo)
    (b / "sudo").chmod(0o755)
    return b


def test_without_passwordless_sudo_it_explains_and_never_prompts(tmp_path):
    log = tmp_path / "sudo.log"
    # a sudo that would prompt (reads stdin) unless -n is given, and records how it was called
    b = _bin(tmp_path, f'#!/bin/bash\nprintf "%s\\n" "$*" >> {log}\n[ "$1" = "-n" ] && exit 1\nread -r pw\nexit 1\n')
    r = subprocess.run([shutil.which("bash"), str(REPO / "scripts" / "test-prereqs.sh"), "python3"],
                       env={"PATH": str(b), "PREREQS_ONLY": "chromium"}, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=30, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert "needs Chromium" in r.stderr and "sudo needs a password" in r.stderr and "skipped" in r.stderr
    assert all(line.startswith("-n") for line in log.read_text().splitlines())  # never without -n


@pytest.mark.slow  # a pytest in a subprocess (the report conftest's imports): ~30 s on 2 shared cores
def test_the_rendering_test_skips_with_its_reason_when_chromium_is_missing(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "HCRBENCH_REQUIRE_CHROMIUM")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), "/nonexistent"])
    r = subprocess.run([sys.executable, "-m", "pytest", str(REPO / "tests" / "report" / "test_report_chromium.py"),
                        "-q", "-p", "no:cacheprovider"], env=env, capture_output=True, text=True, timeout=300,
                       cwd=REPO)
    assert "1 skipped" in r.stdout and "chromium is not installed" in r.stdout, r.stdout[-2000:]
