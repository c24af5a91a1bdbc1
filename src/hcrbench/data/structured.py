"""One reader for JSON and TOML files (configs, ``hcrbench.lock``, ``manifest.json``, ``eval.json``, baselines,
markers): every problem a file can have is the usual one-line :class:`~hcrbench.errors.InputError` naming the
file and line, never a traceback.

Python's parsers recurse once per nesting level, so a file of 100,000 ``[`` (or a TOML value nested 5,000 deep)
ended in a ``RecursionError`` traceback. Here the nesting depth is measured first, on the text with its strings
(and TOML comments) blanked out, in C-speed passes (``re.sub`` and a numpy cumulative sum), and anything deeper
than :data:`MAX_DEPTH` is refused naming the line where it gets too deep. The file's size is checked before it
is read (:data:`MAX_JSON_BYTES`, :data:`MAX_TOML_BYTES`); a UTF-8 byte-order mark is accepted (an editor on
Windows saves one) and invalid UTF-8 names the line of the bad byte.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from hcrbench.errors import InputError

#: Deepest nesting accepted: hcrbench's own files nest fewer than 10 levels.
MAX_DEPTH = 100
#: Largest JSON file read (an ``eval.json`` with per-query values of a large experiment is tens of MB).
MAX_JSON_BYTES = 2 << 30
#: Largest TOML file read (a config is a few kB).
MAX_TOML_BYTES = 16 << 20

_BOM = "\ufeff"
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_TOML_SKIP = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*')


def read_text(path: str | Path, *, max_bytes: int, what: str = "file", field: str | None = None) -> str:
    """The UTF-8 text of ``path`` (a leading byte-order mark dropped), refusing a file over ``max_bytes``.

    A file that cannot be opened raises the ``OSError`` (``FileNotFoundError``, ...) as ``Path.read_text`` does,
    so callers keep telling "missing" from "damaged"; the CLI turns one that escapes into one line."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise InputError(f"{what} is {size:,} bytes, over the {max_bytes:,} bytes hcrbench reads", path=path,
                         field=field)
    with open(path, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew while read (or a special file)
        raise InputError(f"{what} is over the {max_bytes:,} bytes hcrbench reads", path=path, field=field)
    return decode(data, path=path, field=field)


def decode(data: bytes, *, path: str | Path | None = None, field: str | None = None) -> str:
    """UTF-8 bytes as text, a leading byte-order mark dropped; invalid UTF-8 names the line of the bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(f"invalid UTF-8 at byte {e.start} (0x{data[e.start]:02x})", path=path, line=line,
                         field=field) from None
    return text[1:] if text.startswith(_BOM) else text


def check_depth(text: str, *, toml: bool = False, path: str | Path | None = None, field: str | None = None) -> None:
    """Refuse ``text`` nested deeper than :data:`MAX_DEPTH` (brackets and braces outside strings)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return  # cannot be too deep: skip the scan
    if toml:
        plain = _TOML_SKIP.sub(lambda m: '""' + "\n" * m.group().count("\n"), text)
    else:
        plain = _JSON_STRING.sub('""', text)  # JSON strings hold no raw newline: lines are kept
    data = plain.encode("utf-8", "surrogatepass")  # brackets are single bytes; no other byte equals them
    raw = np.frombuffer(data, dtype=np.uint8)
    step = (raw == ord("[")).astype(np.int32)
    step += raw == ord("{")
    step -= raw == ord("]")
    step -= raw == ord("}")
    too_deep = np.flatnonzero(np.cumsum(step) > MAX_DEPTH)
    if too_deep.size:
        line = data.count(b"\n", 0, int(too_deep[0])) + 1
        raise InputError(f"nested more than {MAX_DEPTH} levels deep (brackets or braces)", path=path, line=line,
                         field=field)


def parse_json(text: str, *, path: str | Path | None = None, field: str | None = None) -> Any:
    """The JSON value in ``text``; every problem is a one-line InputError naming ``path`` and the line."""
    if text.startswith(_BOM):
        text = text[1:]
    check_depth(text, path=path, field=field)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON ({e.msg} at column {e.colno})", path=path, line=e.lineno,
                         field=field) from None
    except RecursionError:  # pragma: no cover - check_depth refuses these first
        raise InputError("nested too deep", path=path, field=field) from None
    except ValueError as e:  # e.g. an integer of more than 4,300 digits
        raise InputError(f"invalid JSON ({e})", path=path, field=field) from None


def read_json(path: str | Path, *, what: str = "file", field: str | None = None,
              max_bytes: int = MAX_JSON_BYTES) -> Any:
    """The JSON value in the file ``path`` (see :func:`parse_json`)."""
    return parse_json(read_text(path, max_bytes=max_bytes, what=what, field=field), path=path, field=field)


def parse_toml(text: str, *, path: str | Path | None = None, field: str | None = None) -> dict[str, Any]:
    """The TOML document in ``text``; every problem is a one-line InputError naming ``path`` and the line."""
    if text.startswith(_BOM):
        text = text[1:]
    check_depth(text, toml=True, path=path, field=field)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        problem = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        raise InputError(f"invalid TOML: {problem}", path=path, line=int(m.group(1)) if m else None,
                         field=field) from None
    except RecursionError:  # pragma: no cover - check_depth refuses these first
        raise InputError("nested too deep", path=path, field=field) from None


def read_toml(path: str | Path, *, what: str = "file", field: str | None = None,
              max_bytes: int = MAX_TOML_BYTES) -> dict[str, Any]:
    """The TOML document in the file ``path`` (see :func:`parse_toml`)."""
    return parse_toml(read_text(path, max_bytes=max_bytes, what=what, field=field), path=path, field=field)


def parse_json_line(line: str, *, path: str | Path, line_no: int) -> Any:
    """One JSONL record (:func:`parse_json`), its problems naming ``path`` and the file's line ``line_no``."""
    try:
        return parse_json(line, path=path)
    except InputError as e:
        raise InputError(e.problem, path=path, line=line_no) from None
