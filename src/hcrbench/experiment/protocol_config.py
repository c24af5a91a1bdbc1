"""The experiment TOML's ``[gate]`` and ``[protocol]`` tables: the runner's gate step and the verdict step.

``[gate]`` makes ``hcrbench run`` gate its own runs (the four nulls, optionally the controls) and compare every
system with the baseline in the one declared Holm family (``OUT/gate.json``, the document ``hcrbench gate --json``
writes). ``[protocol]`` names the systems the design's checkpoints and hypotheses judge (``OUT/verdicts.json``,
see :mod:`hcrbench.protocol`)::

    [gate]
    metric = "nDCG@10"          # graded metric; strict single-gold R@5 too unless strict = false
    controls = true             # build and gate the positive / negative controls
    n_trials = 200              # trials per null (>= 80 for Holm to reach 0.05)
    # systems = ["hcr", ...]    # default: every system;  baseline = "..." (default: the experiment's)

    [protocol]
    system = "hcr"              # the system under test (required: never picked; its seed_group gives mean ± sd)
    kill_baseline = "rerank"    # hybrid + reranker: the single kill criterion (checked against the flat field)
    flat = "auto"               # flat retrieval without reranker (H1a's "matches flat at >= 600"): a system
                                # name, or "auto": the best flat first-stage system (bm25, dense, hybrid, any
                                # chunking) chosen on the dev split (hcrbench.protocol.field)
    full_size = true            # is this the full-size corpus? (default: Meridian "full" when generated)
    beam_only = "hcr-beam"      # H1b: the single paths the dual path must beat (optional)
    collapsed_only = "hcr-collapsed"
    no_links = "hcr-no-links"   # H1c: cross-links worth >= 15% on entity-spanning queries (optional)
    fail_fast = false           # stop at the first checkpoint that says stop and diagnose (--fail-fast)
    confidence = 0.95           # two-sided level of every rule's decision interval (a sequential look
                                # passes its own: hcrbench.protocol.sequential.level)
    tune = { hcr = { beam_width = [4, 8] } }  # grids chosen on the tune split (quickstart), see tuning.py
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from hcrbench.limits import MAX_DRAWS, MAX_SEED

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)  # nan / inf: refused


class GateConfig(BaseModel):
    """The runner's gate step (the options of ``hcrbench gate``; the Holm family is the experiment's)."""

    model_config = _STRICT
    enabled: bool = True
    metric: str = "nDCG@10"
    strict: bool = True
    controls: bool = True
    n_trials: int = Field(200, ge=1, le=MAX_DRAWS)
    tau: float = Field(0.01, ge=0.0)
    tau_rel: float = Field(0.1, ge=0.0, le=1.0)
    alpha: float = Field(0.05, gt=0.0, lt=1.0)
    min_delta: float = Field(0.01, gt=0.0)
    k: int | None = Field(None, ge=1)
    seed: int | None = Field(None, ge=0, le=MAX_SEED)  # default: the experiment's seed
    baseline: str | None = None  # default: the experiment's baseline
    systems: list[str] = Field(default_factory=list)  # default: every scored system


DEFAULT_CONFIDENCE = 0.95
AUTO = "auto"  # [protocol] flat = "auto": the best flat first-stage system, chosen on the dev split


class ProtocolConfig(BaseModel):
    """Which systems the fail-fast checkpoints and the hypothesis verdicts judge (names of ``[[systems]]``)."""

    model_config = _STRICT
    system: str = None  # type: ignore[assignment]  # required: check_roles refuses a table without it
    kill_baseline: str = "rerank"
    flat: str | None = None
    beam_only: str | None = None
    collapsed_only: str | None = None
    no_links: str | None = None
    metric: str = "nDCG@10"
    fail_fast: bool = False
    full_size: bool | None = None  # is this the full-size corpus? (default: Meridian "full" when generated)
    # the two-sided level every rule's decision interval is computed at (z, t, Wilson, Fisher, CR2, betting)
    confidence: float = Field(DEFAULT_CONFIDENCE, ge=0.5, lt=1.0)
    # tune -> lock -> test: per system, a small grid chosen on the tune split (hcrbench.protocol.tuning)
    tune: dict[str, dict[str, list[Any]]] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        # the design's level is left out of dumps, so manifests and cache keys of a default config stay as they
        # were before the key existed; any other level is recorded
        out = handler(self)
        if out.get("confidence") == DEFAULT_CONFIDENCE:
            out.pop("confidence")
        return out

    def names(self) -> dict[str, str]:
        """``{role: system name}`` of every role set (checked against the config's systems)."""
        roles = ("system", "kill_baseline", "flat", "beam_only", "collapsed_only", "no_links")
        return {r: getattr(self, r) for r in roles if getattr(self, r) not in (None, AUTO)}


def check_roles(cfg: Any, names: list[str], path: str | Path, text: str) -> None:
    """Every system named by ``[gate]`` or ``[protocol]`` must be one of ``[[systems]]`` (one-line error)."""
    from hcrbench.errors import InputError
    from hcrbench.experiment.tomlpos import did_you_mean, locate

    named: list[tuple[tuple[str, ...], str]] = []
    if cfg.gate is not None:
        named += [(("gate", "systems"), n) for n in cfg.gate.systems]
        if cfg.gate.baseline is not None:
            named.append((("gate", "baseline"), cfg.gate.baseline))
    if cfg.protocol is not None:
        named += [(("protocol", role), n) for role, n in cfg.protocol.names().items()]
        named += [(("protocol", "tune"), n) for n in cfg.protocol.tune]
    if cfg.protocol is not None and cfg.protocol.system is None:  # a run needs a named subject: none is picked
        raise InputError("no system under test: give system = NAME, one of "
                         f"{', '.join(names)} (the protocol judges the system it names, none is picked)",
                         path=path, line=locate(text, ("protocol",)), field="protocol.system")
    if cfg.protocol is not None and cfg.protocol.system == cfg.protocol.kill_baseline:
        raise InputError(f"the system under test cannot be its own kill baseline ({cfg.protocol.system!r})",
                         path=path, line=locate(text, ("protocol", "kill_baseline")), field="protocol.kill_baseline")
    for loc, n in named:
        if n not in names:
            raise InputError(f"{n!r} is not a system{did_you_mean(n, names)} (systems: {', '.join(names)})",
                             path=path, line=locate(text, loc), field=".".join(loc))
