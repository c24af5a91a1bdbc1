"""The ``[execution]`` table of an experiment config: where the experiment's cells run.

::

    [execution]
    engine = "local"          # "local" (default: one cell after another in this process) | "ray"
    workers = 2               # local only: the first cell of a batch here, the others in 2 worker processes
                              # (0 = every core; 1, the default: one after another); the same outputs
    address = "10.0.0.5:6379" # ray only: an existing cluster ("auto" = the one on this machine);
                              # unset = start a private Ray on 127.0.0.1 for this run
    max_retries = 2           # a cell whose worker or node dies is resubmitted at most this many times
    num_cpus = 1              # resources each cell requests from Ray (a bare number, or e.g. 0.5)
    num_gpus = 0
    memory = "2GiB"           # bytes as an integer, or a string with a unit (KiB/MiB/GiB/KB/MB/GB)
    encode_actors = 0         # ray only: > 0 encodes dense systems' corpora on Ray Data first (actor pool)
    runtime_env = { working_dir = ".", pip = ["hcrbench[ray,bm25]"] }  # ray only: Ray's runtime_env for the
                              # cells (hcrbench adds its HCRBENCH_* variables to env_vars)
    [execution.resources]     # ray only: per system name or type, what differs from the defaults above
    dense = { num_gpus = 1, memory = "8GiB" }

Why here and not in ``config.py``: the engine is how an experiment runs, not what it computes, so none of these
keys enters a system's fingerprint and ``--engine`` / ``--address`` on ``hcrbench run`` override the table.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ENGINES = ("local", "ray")
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


def parse_memory(value: int | str | None) -> int | None:
    """Bytes from ``2147483648``, ``"2GiB"`` or ``"512 MB"``; None stays None. ValueError on anything else."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"memory must be bytes or a size such as '2GiB', got {value!r}")
    if isinstance(value, int):
        n = value
    else:
        m = _SIZE.match(value)
        unit = m.group(2).lower() if m else ""
        if not m or unit not in _UNITS:
            raise ValueError(f"memory must be bytes or a size such as '2GiB' (units: KiB, MiB, GiB, KB, MB, GB), "
                             f"got {value!r}")
        n = int(float(m.group(1)) * _UNITS[unit])
    if n < 1:
        raise ValueError(f"memory must be at least 1 byte, got {value!r}")
    return n


class Resources(BaseModel):
    """What one system's (or one system type's) cells ask Ray for instead of the table's defaults."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)
    num_cpus: float | None = Field(None, ge=0)
    num_gpus: float | None = Field(None, ge=0)
    memory: int | str | None = None

    @field_validator("num_cpus", "num_gpus", mode="before")
    @classmethod
    def _number(cls, v: object) -> object:
        return float(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("memory")
    @classmethod
    def _memory(cls, v: int | str | None) -> int | str | None:
        parse_memory(v)
        return v


class ExecutionConfig(BaseModel):
    """How the cells of an experiment are executed (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)
    engine: Literal["local", "ray"] = "local"
    workers: int = Field(1, ge=0, le=1024)  # local only: cells in this many processes (0 = every core)
    address: str | None = None
    max_retries: int = Field(2, ge=0, le=100)
    num_cpus: float = Field(1.0, ge=0)
    num_gpus: float = Field(0.0, ge=0)
    memory: int | str | None = None
    encode_actors: int = Field(0, ge=0, le=1024)
    runtime_env: dict[str, Any] | None = None
    resources: dict[str, Resources] = Field(default_factory=dict)  # by system name (first) or type

    @field_validator("num_cpus", "num_gpus", mode="before")
    @classmethod
    def _number(cls, v: object) -> object:
        if isinstance(v, int) and not isinstance(v, bool):
            return float(v)  # strict mode would refuse `num_cpus = 1`
        return v

    @field_validator("memory")
    @classmethod
    def _memory(cls, v: int | str | None) -> int | str | None:
        parse_memory(v)
        return v

    @field_validator("address")
    @classmethod
    def _address(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("must not be empty (leave it out to start a local Ray)")
        return v

    @property
    def memory_bytes(self) -> int | None:
        return parse_memory(self.memory)

    def resources_for(self, name: str, type_: str) -> dict[str, Any]:
        """``num_cpus``, ``num_gpus`` and ``memory`` (bytes or None) for a cell of system ``name`` of ``type_``:
        the ``resources`` entry of its name, else of its type, over the table's defaults."""
        own = self.resources.get(name) or self.resources.get(type_) or Resources()
        return {"num_cpus": self.num_cpus if own.num_cpus is None else own.num_cpus,
                "num_gpus": self.num_gpus if own.num_gpus is None else own.num_gpus,
                "memory": parse_memory(self.memory if own.memory is None else own.memory)}

    def check_resources(self, systems: list[tuple[str, str]]) -> None:
        """Refuse a ``resources`` key that names no system and no system type (a typo would be ignored)."""
        from hcrbench.errors import InputError
        from hcrbench.experiment.tomlpos import did_you_mean

        known = {n for n, _ in systems} | {t for _, t in systems}
        for key in self.resources:
            if key not in known:
                raise InputError(f"{key!r} is neither a system name nor a system type of this experiment"
                                 f"{did_you_mean(key, known)}", field=f"execution.resources.{key}")

    def with_overrides(self, engine: str | None = None, address: str | None = None) -> ExecutionConfig:
        """This table with the ``--engine`` / ``--address`` flags of ``hcrbench run`` applied (None: keep)."""
        update: dict[str, object] = {}
        if engine is not None:
            update["engine"] = engine
        if address is not None:
            update["address"] = address
        return self.model_validate({**self.model_dump(), **update}) if update else self
