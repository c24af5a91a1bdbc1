"""The experiment TOML: a pydantic model, and one-line errors that name the config file, line and key.

Schema (documented with examples in docs/experiments.md)::

    name = "scifact-baselines"          # required
    output_dir = "runs/scifact"         # relative to the config file (default runs/<name>)
    seed = 0
    metrics = ["nDCG@10", "R@100", "RR", "AP"]
    baseline = "bm25"                   # a system name (default: the first system)
    k = 100                             # depth of every run
    rel_threshold = 1
    n_resamples = 10000                 # permutation / bootstrap resamples of the comparisons
    family = "run"                      # Holm family: "run" = (baseline, metrics) per system (default, as
                                        # gate --baseline); "metric" = every system per metric; "all" pools
    strata = ["category"]               # query metadata copied into per_query.csv
    [dataset]
    path = "../shared/datasets/scifact" # BEIR folder, relative to the config file
    split = "test"
    locked = false                      # true: score this split once (see docs/experiments.md)
    # generate = "meridian"             # built-in corpus: generate `path` if missing (size, generate_seed,
    #                                   # generate_queries: the suite's query count, 300 when unset)
    budgets = [200, 400, 600, 800, 1200] # sufficiency@B (docs/context.md); plus unconstrained
    selection = "greedy"                # greedy | mmr | submodular
    [context]                           # optional: chunk_tokens, candidates, stop_at_overflow, mmr_lambda, ...
    [[systems]]
    name = "bm25"
    type = "bm25"
    params = { k1 = 0.9, b = 0.4 }      # a runfile's path / paths: relative to the config file, like every path
    # seed = 1; seed_group = "dense"    # one stochastic system run with several seeds: eval.json reports the
                                        # group's mean ± sd over seeds and tests its seed-averaged scores
    # policy = "2-hop@15"               # run the system under a retrieval policy (docs/policy.md)
    # policies = ["1-hop@15", "2-hop@15"]  (top level) crosses every system without a policy with each policy:
    #                                   # systems "bm25.1hop15", "bm25.2hop15"
    [execution]                         # optional: engine = "local" | "ray", address, max_retries, num_cpus,
                                        # num_gpus, memory (hcrbench.experiment.execution; docs/scale.md)
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from hcrbench.data.structured import MAX_TOML_BYTES, parse_toml, read_text
from hcrbench.errors import InputError
from hcrbench.experiment.execution import ExecutionConfig
from hcrbench.experiment.protocol_config import GateConfig, ProtocolConfig, check_roles
from hcrbench.experiment.tomlpos import did_you_mean, locate
from hcrbench.limits import MAX_DRAWS, MAX_SEED

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)  # nan / inf: refused
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$")


class ChunkingConfig(BaseModel):
    """Index chunks instead of whole documents; the run is mapped back to documents (max score per doc)."""

    model_config = _STRICT
    max_tokens: int = Field(256, ge=8)
    overlap: int = Field(32, ge=0)
    respect_sentences: bool = True
    structure_aware: bool = False
    token_counter: str | None = None
    depth: int | None = Field(None, ge=1)  # chunks retrieved per query before mapping (default 4 * k)

    @model_validator(mode="after")
    def _overlap_below_max(self) -> ChunkingConfig:
        if self.overlap >= self.max_tokens:
            raise ValueError("overlap must be smaller than max_tokens")
        return self


class ContextConfig(BaseModel):
    """How token-budgeted contexts are built and judged when ``budgets`` is set (see docs/context.md)."""

    model_config = _STRICT
    chunk_tokens: int = Field(128, ge=8)  # context chunks: sentence-respecting, no overlap
    candidates: int = Field(100, ge=1)  # chunks considered per query (the run expanded in rank order)
    stop_at_overflow: bool = False  # greedy: stop at the first chunk that does not fit (RAPTOR's code)
    mmr_lambda: float = Field(0.5, ge=0.0, le=1.0)
    # what mmr / submodular trade off: the ranking's rank gain against delivered overlap ("ranking"), or TF-IDF
    # cosine of query and chunks and between chunks ("tfidf", which drops fact-stating units: docs/context.md)
    selection_signals: Literal["ranking", "tfidf"] = "ranking"
    token_counter: str | None = None
    evidence: str | None = None  # evidence.jsonl (default: the dataset folder's, when it has one)
    reference_budget: int = Field(400, ge=1)  # the design's tight budget: failure rate, token efficiency


class SystemConfig(BaseModel):
    """One system: its run name, registry type and constructor parameters."""

    model_config = _STRICT
    name: str
    type: str
    params: dict[str, Any] = Field(default_factory=dict)
    chunking: ChunkingConfig | None = None
    seed: int | None = Field(None, ge=0, le=MAX_SEED)  # this system's own seed (default: the experiment's)
    seed_group: str | None = None  # systems sharing a group are seeds of one stochastic system (aggregated)
    policy: str | None = None  # "1-hop@15", "2-hop@15", "2-hop@15x1.5" (hcrbench.retrieve.policy)
    # context selection for this system (default: the experiment's `selection`); docs/context.md
    selection: Literal["greedy", "mmr", "submodular"] | None = None

    @field_validator("policy")
    @classmethod
    def _policy(cls, v: str | None) -> str | None:
        if v is not None:
            from hcrbench.retrieve.policy import Policy

            try:
                Policy.parse(v)
            except InputError as e:
                raise ValueError(e.problem) from None
        return v

    @field_validator("name")
    @classmethod
    def _safe_name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError("must be 1-100 characters of letters, digits, '.', '_', '+', '-' (used as a file name)")
        return v


class DatasetConfig(BaseModel):
    """Where the corpus, queries and judgments come from.

    Either ``path`` (a BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv) or the files one by one
    (``corpus``, ``queries``, ``qrels``); ``labelled`` (a labelled-substring JSONL) replaces the qrels.
    """

    model_config = _STRICT
    path: str | None = None
    split: str = "test"
    locked: bool = False
    corpus: str | None = None
    queries: str | None = None
    qrels: str | None = None
    labelled: str | None = None
    labelled_field: str = "title"
    # Built-in corpus: with generate = "meridian", `path` is generated (deterministically) when it does not exist.
    generate: Literal["meridian"] | None = None
    size: str | int = "small"
    generate_seed: int = Field(0, ge=0)
    # Queries in the generated suite (the design's category shares; 300 when unset): a power plan's test queries
    generate_queries: int | None = Field(None, ge=1)
    # Grow the generated world until its suite's queries fall in independent topics (Meridian 4's way). Off by
    # default: a world is the size asked for (small 500, medium 2,000, full 3,500 documents), so the size ladder
    # the corpus-size rule judges means what it says; more evidence comes from more queries or more worlds.
    grow: bool = False
    # Independent worlds generated into `path` (generate = "meridian"): 1 is one world whose queries are split
    # 60/20/20; K >= 3 gives world 0 to tune, world 1 to dev and every further world to test, each system built
    # and searched per world (a world's size stays its size). Adding worlds never changes one already there.
    worlds: int = Field(1, ge=1, le=100)
    # A later look at a verdict on such a dataset draws fresh test worlds (tune and dev stay): look 2, 3, ...
    look: int = Field(1, ge=1, le=1000)

    @model_validator(mode="after")
    def _source(self) -> DatasetConfig:
        if self.worlds == 2:
            raise ValueError("'worlds' must be 1 or at least 3 (tune, dev and test each need a world)")
        if self.worlds > 1 and self.grow:
            raise ValueError("'worlds' and 'grow' exclude each other: a world of several is never grown")
        if self.generate is not None and self.path is None:
            raise ValueError("'generate' needs 'path': the folder the corpus is generated into")
        if self.path is None:
            if self.corpus is None:
                raise ValueError("give 'path' (a BEIR folder) or 'corpus' (a corpus.jsonl)")
            if self.qrels is None and self.labelled is None:
                raise ValueError("without 'path', give 'qrels' or 'labelled'")
            if self.queries is None and self.labelled is None:
                raise ValueError("without 'path', give 'queries' (or 'labelled' queries with text)")
        return self


class ExperimentConfig(BaseModel):
    """A whole experiment; paths inside are relative to the config file's folder."""

    model_config = _STRICT
    name: str
    output_dir: str | None = None
    seed: int = Field(0, ge=0, le=MAX_SEED)
    metrics: list[str] = Field(default_factory=lambda: ["nDCG@10", "R@100", "RR", "AP"], min_length=1)
    baseline: str | None = None
    k: int = Field(100, ge=1)
    rel_threshold: int = 1
    n_resamples: int = Field(10_000, ge=1, le=MAX_DRAWS)
    family: Literal["metric", "run", "all"] = "run"
    strata: list[str] = Field(default_factory=lambda: ["category"])  # checked against the queries: check_strata
    dataset: DatasetConfig
    systems: list[SystemConfig] = Field(min_length=1)
    policies: list[str] = Field(default_factory=list)

    @field_validator("policies")
    @classmethod
    def _policies(cls, v: list[str]) -> list[str]:
        from hcrbench.retrieve.policy import Policy

        for p in v:
            try:
                Policy.parse(p)
            except InputError as e:
                raise ValueError(e.problem) from None
        return v
    budgets: list[int] = Field(default_factory=list)  # token budgets for sufficiency@B (empty: no context step)
    selection: Literal["greedy", "mmr", "submodular"] = "greedy"
    context: ContextConfig = Field(default_factory=ContextConfig)
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)  # where cells run (not what they compute)
    gate: GateConfig | None = None  # [gate]: the runner gates its runs (gate.json); see protocol_config.py
    protocol: ProtocolConfig | None = None  # [protocol]: checkpoints and verdicts (verdicts.json)

    @field_validator("budgets")
    @classmethod
    def _budgets(cls, v: list[int]) -> list[int]:
        if any(b < 1 for b in v):
            raise ValueError("every budget must be a positive number of tokens")
        if len(set(v)) != len(v):
            raise ValueError("budgets must not repeat")
        return sorted(v)

    @field_validator("name")
    @classmethod
    def _safe_name(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator("strata")
    @classmethod
    def _strata(cls, v: list[str]) -> list[str]:
        for i, s in enumerate(v):
            if not s.strip():
                raise ValueError("a stratum name must not be empty")
            if s in v[:i]:
                raise ValueError(f"{s!r} is listed twice")
        return v

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, v: list[str]) -> list[str]:
        from hcrbench.metrics import parse_measures

        try:
            return [m.name for m in parse_measures(list(v))]
        except ValueError as e:
            raise ValueError(getattr(e, "problem", str(e))) from None

    @property
    def baseline_name(self) -> str:
        return self.baseline or self.systems[0].name


# ------------------------------------------------------------------------------------------------ errors


def _dotted(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _problem(err: dict[str, Any], model_keys: dict[str, list[str]]) -> str:
    kind, msg = err.get("type", ""), err.get("msg", "")
    loc = tuple(err.get("loc", ()))
    got = err.get("input")
    if kind == "extra_forbidden":
        allowed = model_keys.get(_dotted(tuple(p for p in loc[:-1] if not isinstance(p, int))), [])
        return "unknown key" + (f" (allowed: {', '.join(allowed)})" if allowed else "") + did_you_mean(
            str(loc[-1]) if loc else "", allowed)
    if kind == "missing":
        return "missing required key"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if kind.endswith("_type") or kind.endswith("_parsing") or kind in ("model_type", "dict_type"):
        return f"{msg.rstrip('.').lower()}, got {type(got).__name__} {got!r}"
    return msg


def check_strata(cfg: ExperimentConfig, fields: set[str], path: str | Path, text: str) -> None:
    """Refuse a stratum no query has in its metadata (a typo would otherwise drop the per-stratum tables).

    Only strata the config names are checked: the default (``["category"]``) is skipped quietly on datasets
    without categories.
    """
    if "strata" not in cfg.model_fields_set:
        return
    for s in cfg.strata:
        if s not in fields:
            have = f"query metadata fields: {', '.join(sorted(fields))}" if fields else "the queries have no metadata"
            raise InputError(f"no query has the metadata field {s!r}{did_you_mean(s, fields)} ({have})",
                             path=path, line=locate(text, ("strata",)), field="strata")


def _model_keys() -> dict[str, list[str]]:
    return {
        "": sorted(ExperimentConfig.model_fields),
        "dataset": sorted(DatasetConfig.model_fields),
        "systems": sorted(SystemConfig.model_fields),
        "systems.chunking": sorted(ChunkingConfig.model_fields),
        "context": sorted(ContextConfig.model_fields),
        "execution": sorted(ExecutionConfig.model_fields),
        "execution.resources": ["memory", "num_cpus", "num_gpus"],
        "gate": sorted(GateConfig.model_fields),
        "protocol": sorted(ProtocolConfig.model_fields),
    }


def policy_tag(policy: str) -> str:
    """``"2-hop@15"`` -> ``"2hop15"`` (``"2-hop@15x1.5"`` -> ``"2hop15x1.5"``): the suffix of a crossed system."""
    return policy.strip().replace("-hop@", "hop")


def _cross_policies(cfg: ExperimentConfig) -> ExperimentConfig:
    """Each system without its own ``policy`` becomes one system per entry of ``policies``."""
    if not cfg.policies:
        return cfg
    systems: list[SystemConfig] = []
    first: dict[str, str] = {}
    for s in cfg.systems:
        if s.policy is not None:
            systems.append(s)
            continue
        for p in cfg.policies:
            name = f"{s.name}.{policy_tag(p)}"
            first.setdefault(s.name, name)
            systems.append(s.model_copy(update={"name": name, "policy": p}))
    baseline = first.get(cfg.baseline, cfg.baseline) if cfg.baseline is not None else None
    return cfg.model_copy(update={"systems": systems, "baseline": baseline})


def parse_config(text: str, path: str | Path = "<config>") -> ExperimentConfig:
    """Parse TOML text into an :class:`ExperimentConfig`; the first problem raises a one-line InputError."""
    raw = parse_toml(text, path=path)  # nesting, BOM and syntax: one line naming the line (data.structured)
    try:
        cfg = ExperimentConfig.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        loc = tuple(err.get("loc", ()))
        loc = tuple(p for p in loc if not (isinstance(p, str) and ("[" in p or p.startswith("function-"))))
        raise InputError(_problem(err, _model_keys()), path=path, line=locate(text, loc),
                         field=_dotted(loc) or None) from None
    cfg = _cross_policies(cfg)
    names = [s.name for s in cfg.systems]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise InputError(f"duplicate system name {n!r}", path=path, line=locate(text, ("systems", i, "name")),
                             field=f"systems[{i}].name")
    if cfg.baseline is not None and cfg.baseline not in names:
        raise InputError(f"{cfg.baseline!r} is not a system (systems: {', '.join(names)})", path=path,
                         line=locate(text, ("baseline",)), field="baseline")
    check_roles(cfg, names, path, text)
    if str(path) != "<config>":
        resolve_system_paths(cfg, Path(path).expanduser().absolute().parent)
    return cfg


#: The system parameters that name files, by system type: resolved against the config file's folder like
#: ``output_dir`` and ``[dataset]`` (a plugin's own parameters are handed over as written).
PATH_PARAMS = {"runfile": ("path", "paths")}


def _against(value: Any, base: Path) -> Any:
    if not isinstance(value, str) or not value:
        return value
    p = Path(value).expanduser()
    return os.path.normpath(p if p.is_absolute() else base / p)


def resolve_system_paths(cfg: ExperimentConfig, base: Path) -> None:
    """Every file a system's parameters name (:data:`PATH_PARAMS`) made absolute against ``base`` (the config
    file's folder), in place: the same config scores the same files from any working directory."""
    for s in cfg.systems:
        for key in PATH_PARAMS.get(s.type, ()):
            value = s.params.get(key)
            if isinstance(value, dict):
                s.params[key] = {k: _against(v, base) for k, v in value.items()}
            elif value is not None:
                s.params[key] = _against(value, base)


def load_config(path: str | Path) -> tuple[ExperimentConfig, str]:
    """Read and validate the TOML at ``path``; returns the config and the verbatim text."""
    path = Path(path)
    if not path.is_file():
        raise InputError("config file not found" if not path.exists() else "config path is not a file", path=path)
    text = read_text(path, max_bytes=MAX_TOML_BYTES, what="config file")  # a BOM is dropped, size capped
    return parse_config(text, path), text
