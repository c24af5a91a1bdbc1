"""Where results may be written: only where the user pointed, creating at most one missing folder.

A typo in ``--out /dta/runs/x.trec`` should be a one-line error, not a new directory tree at the root of the
disk. :func:`ensure_parent` creates the folder a file goes into when only that last level is missing (``--out
runs/x.trec`` in a fresh clone) and refuses anything deeper, naming the first folder that does not exist.
"""

from __future__ import annotations

from pathlib import Path

from hcrbench.errors import InputError


def ensure_parent(target: str | Path, *, field: str | None = None, levels: int = 1) -> Path:
    """Make sure ``target``'s folder exists, creating at most ``levels`` missing folders; returns ``target``.

    Raises :class:`InputError` (naming ``field``) when more folders are missing, or when something on the way
    is a file.
    """
    target = Path(target)
    missing: list[Path] = []
    p = target.parent
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    if not p.is_dir():
        raise InputError(f"{p} is not a folder", path=target, field=field)
    if len(missing) > levels:
        raise InputError(f"folder {missing[-1]} does not exist (hcrbench creates at most {levels} missing "
                         f"folder level; create it first: mkdir -p {target.parent})", path=target, field=field)
    try:
        for m in reversed(missing):
            m.mkdir(exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create folder {missing[0]} ({e.strerror or e})", path=target,
                         field=field) from None
    return target
