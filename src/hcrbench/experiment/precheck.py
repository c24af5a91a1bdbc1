"""Every system of a config checked before any work starts: its type, its parameter names and values, and a
runfile's file, each problem one line naming the config file, the line and ``systems[i].FIELD``.

The runner used to construct each retriever only when its turn came, so an unknown ``hybrid`` parameter was
reported after the systems before it had encoded the corpus (84 s in the audit). Constructing a built-in
retriever does no work (models load when it indexes), so all of them are built once here and dropped; a
runfile's file is checked for existence rather than read, and a plugin's parameters by name only.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from hcrbench.errors import InputError
from hcrbench.experiment.tomlpos import locate


def check_systems(systems: list[Any], config_path: Path, text: str) -> None:
    """Raise the first problem of any system in ``systems`` (the config's ``[[systems]]``, in order)."""
    from hcrbench.experiment.reads import READ_PARAMS, reads_of
    from hcrbench.retrieve import base

    base._load_builtins()
    names = [s.name for s in systems]
    for i, s in enumerate(systems):
        params = dict(s.params or {})
        if reads_of(s, names) is not None:  # another system's output of this run (its routing log): not there yet
            params = {k: v for k, v in params.items() if not (k in READ_PARAMS and v in names)}
        try:
            for key, value in params.items():
                if not _finite(value):  # TOML reads nan and inf: no retriever means them
                    raise InputError(f"must be a finite number, got {value!r}", field=key)
            if s.type == "runfile":
                path = params.get("path")
                if path and not Path(str(path)).expanduser().is_file():
                    raise InputError(f"run file {path} not found", field="path")
            if s.type in base._REGISTRY and s.type != "runfile":
                base.make_retriever(s.type, **params)
            else:  # a plugin (or runfile): the name and the parameter names, nothing constructed
                factory = base._REGISTRY.get(s.type)
                if factory is None and s.type not in base._plugins():
                    raise InputError(f"unknown system {s.type!r} (available: "
                                     f"{', '.join(base.available_retrievers())})", field="system")
                if factory is not None:
                    base._check_params(s.type, factory, params)
        except InputError as e:
            field = e.field or "type"
            if field == "system":
                keys, name = ("systems", i, "type"), "type"
            elif field == "param":
                keys, name = ("systems", i, "params"), "params"
            else:
                keys, name = ("systems", i, "params", field), f"params.{field}"
            line = locate(text, keys) or locate(text, ("systems", i, "params")) or locate(text, ("systems", i))
            raise InputError(e.problem, path=config_path, line=line, field=f"systems[{i}].{name}") from None


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    return True
