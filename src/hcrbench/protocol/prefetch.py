"""The verdict step's runs on the other splits, computed beside the test split's systems instead of after them.

The verdict step runs systems on the dev split (the easy-routing checkpoint's routing log,
:func:`hcrbench.protocol.checkpoints.checkpoint_routing_log`; the field's flat choice, :func:`hcrbench.protocol.field.field_on_dev`;
H1b's single path, :func:`hcrbench.protocol.devselect.dev_selection`) and on tune + dev (the power plan's pilot,
:func:`hcrbench.protocol.field.power_plan`), one after another in the runner's process once the test split is
scored and gated: HCR's tree and MiniLM encodings of the dev world among them, on one core while the other waits.
None of those runs reads the test split. So when the experiment runs its cells on several cores
(``[execution] workers`` other than 1, the quickstart's), :func:`start` computes them in a second process as soon as
the output folder is claimed: the same calls, into the same ``OUT/logs/<split>/`` files with their fingerprints.
The verdict step then finds them fresh and reuses them (:func:`hcrbench.protocol.devselect.split_runs`); the
runner waits for the process (:meth:`Prefetch.join`) before it judges, so the verdicts are byte for byte those of a
run without it. A prefetch that fails leaves the verdict step to compute what is missing, and to name any error
itself. ``HCRBENCH_PREFETCH=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any


class Prefetch:
    """A running prefetch process (or none): :meth:`join` waits for it, :meth:`stop` ends it."""

    def __init__(self, proc: Any = None) -> None:
        self.proc = proc

    @property
    def started(self) -> bool:
        return self.proc is not None

    def join(self) -> None:
        if self.proc is not None:
            self.proc.join()
            self.proc = None

    def stop(self) -> None:
        """End it (the run stopped before its verdicts): its runs are written atomically, so a half-done one
        leaves nothing behind."""
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.terminate()
            self.proc.join()
            self.proc = None


def other_splits(cfg: Any, data: Any, out: Path) -> None:
    """Every run the verdict step makes on another split, in its order (the same calls; their documents are the
    verdict step's to write)."""
    from hcrbench.protocol import field as fld
    from hcrbench.protocol.checkpoints import checkpoint_routing_log
    from hcrbench.protocol.devselect import dev_selection

    checkpoint_routing_log(cfg, data, out)
    dev_selection(cfg, data, out)
    fld.field_on_dev(cfg, data, out)
    fld.power_plan(cfg, data, out, len(data.queries))


def needed(cfg: Any, data: Any, out: Path) -> bool:
    """Whether some run of :func:`other_splits` is missing or stale (a warm re-run: none, nothing is started)."""
    from hcrbench.protocol.devselect import NeedsRun, dry_run

    try:
        with dry_run():
            other_splits(cfg, data, out)
    except NeedsRun:
        return True
    except Exception:  # whatever else fails here fails again in the verdict step, which names it
        return False
    return False


def wanted(cfg: Any) -> bool:
    """A protocol to judge, cells on several local processes, and not turned off."""
    from hcrbench.retrieve.runtime import usable_cores

    ex = cfg.execution
    return (cfg.protocol is not None and os.environ.get("HCRBENCH_PREFETCH", "1") != "0"
            and ex.engine == "local" and ex.workers != 1 and usable_cores() > 1)


def start(cfg: Any, data: Any, out: Path) -> Prefetch:
    """Start :func:`other_splits` in a process of its own when :func:`wanted` and :func:`needed`."""
    if not wanted(cfg) or not needed(cfg, data, out):
        return Prefetch()
    import multiprocessing

    # spawn, not fork: this process may hold thread pools (ONNX, BLAS) that a forked child would inherit locked
    proc = multiprocessing.get_context("spawn").Process(target=_child, args=(cfg, data, Path(out)),
                                                        name="hcrbench-prefetch")
    proc.start()
    return Prefetch(proc)


def _child(cfg: Any, data: Any, out: Path) -> None:
    from hcrbench.retrieve.runtime import CELL_CORES_VAR, usable_cores

    os.environ["HCRBENCH_PROGRESS"] = "0"  # the runner's job line is the one progress display
    os.environ[CELL_CORES_VAR] = str(max(1, usable_cores() // 2))  # it runs beside the runner's cells
    # a failure here is not reported: the verdict step computes what is missing and names the error itself
    with contextlib.suppress(Exception):
        other_splits(cfg, data, out)
