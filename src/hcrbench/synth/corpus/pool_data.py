"""Load the hand-written sentence pools from ``synth/corpus/pools/*.toml``, validated on load.

Each file is a TOML table of ``"pool.key" = ["template", ...]``: a pool key names a non-empty list of non-empty
strings. A template may hold ``[a|b|c]`` groups (expanded per document by :func:`hcrbench.synth.corpus.text.vary`; groups
do not nest) and ``{name}`` placeholders (filled by the renderer). A file that breaks a rule raises
:class:`~hcrbench.errors.InputError` naming the file and the key, so a broken edit of the text fails at import
with one clear line. The files ship with the package (``pyproject.toml`` package-data ``synth/corpus/pools/*.toml``).
"""

from __future__ import annotations

import string
from functools import cache
from importlib import resources

from hcrbench.errors import InputError

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def validate_template(text: str) -> str | None:
    """Why ``text`` is not a valid template (``None`` when it is)."""
    if not text.strip():
        return "empty template"
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
            if depth > 1:
                return "nested [ group"
        elif ch == "]":
            depth -= 1
            if depth < 0:
                return "] without ["
    if depth:
        return "[ group not closed"
    try:
        for _, name, spec, conv in string.Formatter().parse(text):
            if name is not None and (not name.isidentifier() or spec or conv):
                return f"bad placeholder {{{name}}} (a placeholder is a bare name)"
    except ValueError as e:
        return f"bad placeholder ({e})"
    return None


def parse_pools(text: str, where: str) -> dict[str, list[str]]:
    """Parse and validate one pool file's text; ``where`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML ({e})", path=where) from None
    if not data:
        raise InputError("no pools in the file", path=where)
    out: dict[str, list[str]] = {}
    for key, value in data.items():
        if not isinstance(value, list) or not value:
            raise InputError("must be a non-empty list of template strings", path=where, field=key)
        for k, item in enumerate(value):
            if not isinstance(item, str):
                raise InputError(f"item {k + 1} is a {type(item).__name__}, not a string", path=where, field=key)
            why = validate_template(item)
            if why:
                raise InputError(f"item {k + 1}: {why}: {item[:60]!r}", path=where, field=key)
        out[key] = list(value)
    return out


@cache
def _load(stem: str) -> dict[str, list[str]]:
    where = f"hcrbench/synth/corpus/pools/{stem}.toml"
    try:
        text = resources.files("hcrbench.synth.corpus").joinpath("pools", f"{stem}.toml").read_text("utf-8")
    except OSError as e:
        raise InputError(f"cannot read pool file ({e.strerror})", path=where) from None
    return parse_pools(text, where)


def load_pools(*stems: str) -> dict[str, list[str]]:
    """The pools of ``pools/<stem>.toml`` for every stem, merged (a key defined in two files is an error).
    Returns fresh lists, so callers may extend them."""
    out: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for stem in stems:
        for key, value in _load(stem).items():
            if key in out:
                raise InputError(f"pool also defined in {seen[key]}.toml", path=f"hcrbench/synth/corpus/pools/{stem}.toml",
                                 field=key)
            out[key], seen[key] = list(value), stem
    return out


def extend_pools(base: dict[str, list[str]], stem: str) -> dict[str, list[str]]:
    """Append the templates of ``pools/<stem>.toml`` to the pools of ``base`` they name (each must exist)."""
    for key, more in _load(stem).items():
        if key not in base:
            raise InputError("extends a pool that no base file defines", path=f"hcrbench/synth/corpus/pools/{stem}.toml",
                             field=key)
        base[key] = base[key] + list(more)
    return base
