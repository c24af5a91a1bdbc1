"""Checks every command gets before its body runs, from its parsed parameters alone (installed on the whole
command tree by :func:`hcrbench.cli.command`, so a new command gets them without a line of its own):

1. **No output over an input.** Parameters named like outputs (:data:`OUTPUT_PARAMS`: ``--out``, ``--json``,
   ``--costs-json``) are checked against every other path parameter with
   :func:`hcrbench.data.outpaths.check_outputs`; a parameter in :data:`DATASET_PARAMS` is a dataset folder
   (nothing may be written inside it), and a folder in :data:`EXPANDED_FOLDERS` counts each file it expands to as
   an input (``evaluate QRELS runs/ --json runs/a.trec`` is refused like ``--json a.trec`` with ``a.trec``).
2. **Every number in range.** A float must be finite (``--step nan`` used to reach ``int(nan)``), and an option
   listed in :data:`RANGES` (by option, or by command and option) must lie in its range (``--step 0`` used to
   divide by zero). One line naming the option, exit 2, before any file is read.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError

#: Parameter (Python) names that hold a path the command writes.
OUTPUT_PARAMS = frozenset({"out", "out_path", "json_path", "costs_json", "out_file"})
#: Commands whose ``out`` is a folder they create (convert, generate, quickstart).
FOLDER_OUTPUTS = ("convert", "generate", "quickstart")
#: Parameter names that hold a dataset folder (or a raw collection: ``convert --in``).
DATASET_PARAMS = frozenset({"dataset", "src"})
#: (command, parameter) whose folder stands for the files in it (``evaluate QRELS runs/``): each is an input too.
EXPANDED_FOLDERS = frozenset({("evaluate", "runs")})


@dataclass(frozen=True)
class Range:
    """A closed or open interval; ``None`` is unbounded on that side."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False

    def holds(self, v: float) -> bool:
        if self.lo is not None and (v <= self.lo if self.lo_open else v < self.lo):
            return False
        return not (self.hi is not None and (v >= self.hi if self.hi_open else v > self.hi))

    def words(self, integer: bool = False) -> str:
        kind = "integer" if integer else "number"
        if self.hi is None and self.lo == 0:
            return f"a positive {kind}" if self.lo_open else f"a non-negative {kind}"
        if self.hi is None and self.lo == 1 and not self.lo_open and integer:
            return "a positive integer"
        parts = []
        if self.lo is not None:
            parts.append(f"{'>' if self.lo_open else '>='} {self.lo:g}")
        if self.hi is not None:
            parts.append(f"{'<' if self.hi_open else '<='} {self.hi:g}")
        return f"a {kind} " + " and ".join(parts)


AT_LEAST_0, AT_LEAST_1, OVER_0 = Range(0), Range(1), Range(0, lo_open=True)
PROBABILITY = Range(0, 1, lo_open=True, hi_open=True)

#: Ranges by option, for every command that has it.
RANGES: dict[str, Range] = {
    "--seed": AT_LEAST_0, "--resamples": AT_LEAST_1, "--n-trials": AT_LEAST_1, "--alpha": PROBABILITY,
    "--max-drop": AT_LEAST_0, "--tau": AT_LEAST_0, "--tau-rel": AT_LEAST_0, "--min-delta": AT_LEAST_0,
}
#: Ranges of one command's option (the same flag means different things in different commands: ``--k``).
COMMAND_RANGES: dict[tuple[str, str], Range] = {
    ("fuse", "--k"): AT_LEAST_0, ("fuse", "--phi"): PROBABILITY, ("fuse", "--step"): Range(0, 1, lo_open=True),
    ("fuse", "--k-out"): AT_LEAST_1, ("gate", "--k"): AT_LEAST_1,  # retrieve --k: its own check
    ("validate", "--k"): AT_LEAST_1, ("evaluate", "--max-docs"): AT_LEAST_1, ("generate code", "--queries"): AT_LEAST_1,
    ("policy-compare", "--budget"): AT_LEAST_1, ("policy-compare", "--chunks-per-hop"): AT_LEAST_1,
    ("policy-compare", "--multi-budget"): OVER_0, ("quickstart", "--seeds"): AT_LEAST_1,
    ("review-sheet", "--n"): AT_LEAST_1,
}


def _option(param: Any) -> str:
    opts = [o for o in getattr(param, "opts", []) if o.startswith("--")]
    return opts[0] if opts else str(getattr(param, "name", "")).upper()


def _spelled(param: Any) -> str:
    """Every long spelling of the option (``--resamples/--n-resamples``), so the message names what was typed."""
    opts = [o for o in getattr(param, "opts", []) if o.startswith("--")]
    return "/".join(opts) if opts else str(getattr(param, "name", "")).upper()


def _values(v: Any) -> list[Any]:
    return list(v) if isinstance(v, (list, tuple)) else [v]


def check_numbers(command: str, params: list[Any], values: dict[str, Any]) -> None:
    """Refuse a non-finite float or a number outside its :data:`RANGES` entry (one line, exit 2)."""
    for param in params:
        opt, field = _option(param), _spelled(param)
        rng = COMMAND_RANGES.get((command, opt)) or RANGES.get(opt)
        for v in _values(values.get(param.name)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            if isinstance(v, float) and not math.isfinite(v):
                raise InputError(f"must be a finite number, got {v}", field=field)
            if rng is not None and not rng.holds(v):
                raise InputError(f"must be {rng.words(isinstance(v, int))}, got {v:g}", field=field)


def check_paths(command: str, params: list[Any], values: dict[str, Any]) -> None:
    """Refuse an output parameter that would overwrite an input parameter (:mod:`hcrbench.data.outpaths`)."""
    from hcrbench.data.outpaths import Input, Output, check_outputs

    outputs, inputs = [], []
    folder_out = command.split(" ")[0] in FOLDER_OUTPUTS
    for param in params:
        paths = [v for v in _values(values.get(param.name)) if isinstance(v, Path)]
        field = _option(param)
        for p in paths:
            if param.name in OUTPUT_PARAMS:
                outputs.append(Output(field, p, folder=folder_out and param.name == "out"))
            else:
                inputs.append(Input(field, p, dataset=param.name in DATASET_PARAMS))
                if (command, param.name) in EXPANDED_FOLDERS and p.is_dir():
                    inputs.extend(Input(field, f) for f in _folder_files(p))
    if outputs:
        check_outputs(outputs, inputs)


def _folder_files(folder: Path) -> list[Path]:
    """The files a folder input expands to (the command's own rule), none when it holds none."""
    from hcrbench.commands._evaluate_scale import expand_runs

    try:
        return expand_runs([folder])
    except InputError:  # an empty folder: the command says so itself
        return []


def install(command: Any, path: str = "") -> None:
    """Wrap the callback of ``command`` and of every sub-command so the checks run first (once per tree)."""
    for name, sub in getattr(command, "commands", {}).items():
        install(sub, f"{path} {name}".strip())
    callback = getattr(command, "callback", None)
    if callback is None or getattr(callback, "_hcrbench_guarded", False) or getattr(command, "commands", None):
        return
    params = list(getattr(command, "params", []))

    @functools.wraps(callback)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check_numbers(path, params, kwargs)
        check_paths(path, params, kwargs)
        return callback(*args, **kwargs)

    guarded._hcrbench_guarded = True  # type: ignore[attr-defined]
    command.callback = guarded
