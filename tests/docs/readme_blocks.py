"""The runnable code blocks of a Markdown file, and a scratch folder to run them in.

A fenced ``bash`` / ``sh`` / ``python`` block runs as written. The HTML comment on the line just above a block
says how: ``<!-- readme-test: slow -->`` (run only in the slow suite), ``<!-- readme-test: skip: REASON -->``
(never run; a reason is required: set-up commands that install, a cluster address), ``<!-- readme-test: run
-->`` (run in the default suite). README blocks run by default; a docs page's blocks run only when marked.
Blocks of one file run in order in one scratch folder, so a later block may use what an earlier one wrote.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
MARK = re.compile(r"^<!--\s*readme-test:\s*(run|slow|skip)\s*(?::\s*(.*?))?\s*-->\s*$")
FENCE = re.compile(r"^```(\w*)\s*$")
RUNNABLE = {"bash": "bash", "sh": "bash", "python": "python"}


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    mode: str  # run | slow | skip
    reason: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def blocks(path: Path, default: str) -> list[Block]:
    """Every fenced block of a runnable language in ``path``, with its mode (``default`` when unmarked)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if lang in RUNNABLE:
            k = start - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            mark = MARK.match(lines[k].strip()) if k >= 0 else None
            mode, reason = (mark.group(1), mark.group(2) or "") if mark else (default, "not marked runnable")
            if mode == "skip" and not reason:
                raise AssertionError(f"{path}:{k + 1}: readme-test: skip needs a reason")
            out.append(Block(path, start + 1, lang, "\n".join(lines[start + 1:j]) + "\n", mode, reason))
        i = j + 1
    return out


def scratch(tmp: Path) -> Path:
    """``tmp/repo`` holding a copy of examples/ with ``tmp/shared`` beside it: the README's relative paths hold."""
    repo = tmp / "repo"
    shutil.copytree(REPO / "examples", repo / "examples")
    (tmp / "shared").symlink_to(SHARED, target_is_directory=True)
    return repo


def run_block(block: Block, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, HCRBENCH_PROGRESS="0", COLUMNS="100")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if RUNNABLE[block.lang] == "bash":
        cmd = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    else:
        cmd = [sys.executable, "-c", block.code]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
