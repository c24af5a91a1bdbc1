"""Where a key sits in a TOML text, and the closest name to a typo: the helpers every config table's checks share.

Below ``config``, ``execution`` and ``protocol_config`` so none of them imports another for its error messages.
"""

from __future__ import annotations

import re
from typing import Any

_KEY = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def locate(text: str, loc: tuple[Any, ...]) -> int | None:
    """Best-effort 1-based line of the key at ``loc`` (e.g. ``("systems", 1, "params")``) in TOML ``text``.

    Tracks ``[table]`` and ``[[array]]`` headers; for a missing key it returns the line of the enclosing table's
    header (or of the deepest enclosing key for inline tables).
    """
    want = list(loc)
    counts: dict[str, int] = {}
    table: list[Any] = []
    best: int | None = None

    def with_indices(name: str) -> list[Any]:
        parts = [x.strip().strip("\"'") for x in name.split(".")]
        out: list[Any] = []
        for i, part in enumerate(parts):
            out.append(part)
            prefix = ".".join(parts[: i + 1])
            if prefix in counts:
                out.append(counts[prefix])
        return out

    for n, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if s.startswith("[["):
            name = s[2:].split("]]")[0].strip()
            counts[name] = counts.get(name, -1) + 1
            table = with_indices(name)
        elif s.startswith("["):
            table = with_indices(s[1:].split("]")[0].strip())
        else:
            m = _KEY.match(raw)
            if m:
                path = [*table, *(x.strip().strip("\"'") for x in m.group(1).split("."))]
                if path == want:
                    return n
                if path == want[: len(path)]:
                    best = n
            continue
        if table == want[: len(table)]:
            best = n
    return best


def did_you_mean(word: str, candidates: list[str] | set[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest candidate, or ``""`` when none is close."""
    import difflib

    close = difflib.get_close_matches(word, sorted(candidates), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
