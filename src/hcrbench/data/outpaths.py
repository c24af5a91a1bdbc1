"""No output over an input: refuse, before anything is read or written, an output path that is one of the
command's inputs or lies inside an input dataset folder.

``hcrbench fuse a.trec b.trec --out a.trec`` used to replace the run it had just read (exit 0, the input gone),
and ``retrieve --out D/qrels/test.tsv`` replaced a dataset's qrels by a run. The comparison is made on what the
paths *are*, not how they are spelled: symlinks and ``..`` are resolved (``os.path.realpath``) and an existing
output that is the same file as an input (a hard link: same device and inode) counts as that input.

Rules (each a one-line :class:`~hcrbench.errors.InputError`, exit 2):

- a file output may not be an input file, an input folder, or lie inside an input *dataset* folder (a BEIR
  folder, a raw collection: everything in it is input);
- a folder output may not be, contain, or lie inside an input file's or folder's location;
- two outputs of one command may not be the same file (the second would replace the first).

Every command goes through :func:`check_outputs` once (``hcrbench.commands._guard`` classifies a command's
parameters); the runner checks its config's ``output_dir`` against the dataset the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hcrbench.errors import InputError


@dataclass(frozen=True)
class Input:
    """Something a command reads. ``dataset``: a folder whose every file is input (nothing may be written in it)."""

    field: str
    path: Path
    dataset: bool = False


@dataclass(frozen=True)
class Output:
    """Something a command writes. ``folder``: the command writes a folder there (convert, generate)."""

    field: str
    path: Path
    folder: bool = False


def real(path: str | Path) -> Path:
    """``path`` with symlinks and ``..`` resolved, also when it (or its last levels) does not exist yet."""
    return Path(os.path.realpath(os.path.expanduser(str(path))))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def _inside(child: Path, folder: Path) -> bool:
    return child != folder and folder in child.parents


def check_outputs(outputs: Iterable[Output], inputs: Iterable[Input]) -> None:
    """Raise :class:`InputError` (naming the output's field) when an output would overwrite an input; see the
    module docstring for the rules. Inputs that do not exist (an ``irds:`` id, a missing file the command will
    report itself) are skipped."""
    ins = [(i, real(i.path)) for i in inputs if i.path is not None and os.path.lexists(str(i.path))]
    outs = [(o, real(o.path)) for o in outputs if o.path is not None]
    for o, ro in outs:
        for i, ri in ins:
            _check_one(o, ro, i, ri)
    for n, (a, ra) in enumerate(outs):
        for b, rb in outs[n + 1:]:
            if ra == rb or _same_file(ra, rb):
                raise InputError(f"{a.path} is also the output of {b.field}; give the two outputs different "
                                 "paths", field=b.field)


def _check_one(o: Output, ro: Path, i: Input, ri: Path) -> None:
    where = dict(field=o.field)
    in_folder = ri.is_dir()
    if ro == ri or _same_file(ro, ri):
        spelled = "" if str(i.path) == str(o.path) else f": {i.path}"
        if in_folder:
            raise InputError(f"{o.path} is the input {'dataset ' if i.dataset else ''}folder of this command "
                             f"({i.field}{spelled}); write the output elsewhere", **where)
        raise InputError(f"{o.path} is an input of this command ({i.field}{spelled}); writing it would destroy "
                         "the input: write the output elsewhere", **where)
    if (i.dataset or o.folder) and in_folder and _inside(ro, ri):
        raise InputError(f"{o.path} is inside the input {'dataset ' if i.dataset else ''}folder {i.path} "
                         f"({i.field}); write the output elsewhere", **where)
    if o.folder and _inside(ri, ro):
        raise InputError(f"the output folder {o.path} holds the input {i.path} ({i.field}); write the output "
                         "elsewhere", **where)
