"""Run the ``hcrbench`` console script from a benchmark: the one beside this Python (or on PATH), progress off; a
failure ends the benchmark with the command, its exit status and the end of its stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_hcrbench(*args: str) -> None:
    """``hcrbench ARGS``; exits the benchmark (one line) when it fails."""
    exe = Path(sys.executable).with_name("hcrbench")
    r = subprocess.run([str(exe) if exe.exists() else "hcrbench", *args], capture_output=True, text=True,
                       env={**os.environ, "HCRBENCH_PROGRESS": "0"}, check=False)
    if r.returncode != 0:
        sys.exit(f"hcrbench {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[-500:]}")
