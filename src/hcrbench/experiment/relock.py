"""A re-run of a locked folder re-locks it, and says so: never a silent rewrite under ``hcrbench.lock``.

``hcrbench lock DIR`` binds DIR's files and scores to hashes. A later ``hcrbench run`` (or quickstart) into DIR
rewrites some of them (manifest.json always: timings, the engine), so ``hcrbench verify`` would then report drift
that is only the re-run. :func:`relock` writes the lock again after the run and returns a line that names what
changed: whether any stored mean differs from the one the old lock held (a changed score is named, system and
metric, so a re-lock never hides one).
"""

from __future__ import annotations

import json
from pathlib import Path


def read_lock(folder: Path) -> dict | None:
    """The folder's lock before the run (None when it has none or it is unreadable)."""
    from hcrbench.gate.integrity import LOCK_NAME

    try:
        return json.loads((Path(folder) / LOCK_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def relock(folder: Path, old: dict | None) -> str | None:
    """Re-lock ``folder`` when it held a lock (``old``: :func:`read_lock` before the run); the line to print."""
    if old is None:
        return None
    from hcrbench.gate.integrity import LOCK_NAME, lock_experiment

    new = lock_experiment(folder, lock_test=bool(old.get("test_locked")))
    before, after = old.get("means") or {}, new.get("means") or {}
    changed = sorted(f"{run} {m}" for run in set(before) | set(after)
                     for m in set(before.get(run) or {}) | set(after.get(run) or {})
                     if (before.get(run) or {}).get(m) != (after.get(run) or {}).get(m))
    what = ("the scores are the ones the old lock held" if not changed else
            f"SCORES CHANGED since the old lock: {', '.join(changed[:5])}" + (" ..." if len(changed) > 5 else ""))
    return f"re-locked {Path(folder) / LOCK_NAME} after this re-run ({what}); hcrbench verify checks the new lock"
