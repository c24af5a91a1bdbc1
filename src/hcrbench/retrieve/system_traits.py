"""What a retriever *is*, declared on its class and read through :func:`traits`.

The upper stages (the gate, the protocol's field and checkpoints, the cost table, the experiment's fingerprints)
need to know a few facts about a system: does it build a tree and write a routing log, is it a flat first stage,
which parameter names its encoder, what unit its ``chunks_scored`` counter counts, which fixes to its code change
its runs. A retriever states them once, as a class attribute::

    @register_retriever("mine")
    class Mine:
        traits = Traits(stage="first", encoder_param="backend")

so adding a system never means editing lists of type names elsewhere. A plugin that declares nothing gets
:data:`DEFAULT` (no tree, no declared stage: it is never taken for a flat baseline or a tree, and it is counted by
its own counters), the safe reading of a system hcrbench knows nothing about.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from hcrbench.errors import InputError

Stage = Literal["first", "rerank", "replay"]
Unit = Literal["document", "chunk", "node"]
STAGES = ("first", "rerank", "replay")
UNITS = ("document", "chunk", "node")


@dataclass(frozen=True)
class Traits:
    """The facts about a retriever type that the stages above ``retrieve`` read.

    - ``tree``: it builds a tree and writes a routing log (the tree checkpoints and the tree-only rules apply).
    - ``stage``: ``"first"`` ranks the corpus on its own (a flat first stage, a candidate for the protocol's flat
      field when it is not a tree); ``"rerank"`` reorders the candidates of a first stage it runs itself (its
      ``docs_scored`` counts both, its ``top_n`` the reranked ones); ``"replay"`` replays a run made elsewhere;
      None: not declared.
    - ``flat_param``: a tree retriever's boolean parameter that, when true, runs it without its tree (then it is a
      flat system, e.g. HCR's ``flat = true`` cascade).
    - ``encoder_param``: the parameter that chooses its dense encoder's backend (``"hash"``, ``"onnx"``, ...).
    - ``reranker_param``: ``(parameter, default)`` naming the reranker it uses, so two systems can be checked to
      rerank alike; ``reranker_model_param``: the parameter that names the reranker's weights (a cross-encoder's
      folder or name), so one set of weights can be configured for every system that reranks.
    - ``unit``: what its ranking scores: whole documents, chunks, or tree nodes.
    - ``code_version``: named versions of its own code whose fixes change its runs, each an int or the part of
      the code that carries it as a ``version`` attribute (read when a fingerprint is made, so the class attribute
      stays the one place the version lives); a version above 1 enters the run's fingerprint (at 1 it is left
      out, so fingerprints made before the version existed still hold).
    - ``ablation_roles``: ``[protocol]`` roles that name ablations of this retriever (kept only when the subject
      is of this type).
    - ``ranking_neutral``: parameters that cannot change its ranking (only what it delivers as context), each as
      ``{param: {"when": {other_param: value, ...}, "why": "..."}}``: under those settings (a parameter not given
      takes the class's default) every value of ``param`` gives the same run, so a tuning grid over it cannot move
      a ranking metric and is not run (:func:`ranking_neutral`).
    """

    tree: bool = False
    stage: Stage | None = None
    flat_param: str | None = None
    encoder_param: str | None = None
    reranker_param: tuple[str, str] | None = None
    reranker_model_param: str | None = None
    unit: Unit = "document"
    code_version: Mapping[str, Any] = field(default_factory=dict)
    ablation_roles: tuple[str, ...] = ()
    ranking_neutral: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stage is not None and self.stage not in STAGES:
            raise InputError(f"stage must be one of {', '.join(STAGES)} or None, got {self.stage!r}", field="stage")
        if self.unit not in UNITS:
            raise InputError(f"unit must be one of {', '.join(UNITS)}, got {self.unit!r}", field="unit")

    def runs_tree(self, params: Mapping[str, Any] | None = None) -> bool:
        """Does a system of this type with ``params`` route through its tree (a tree, not switched flat)?"""
        return self.tree and not (self.flat_param is not None and (params or {}).get(self.flat_param) is True)

    def is_flat_first_stage(self) -> bool:
        """A flat system that ranks the corpus on its own, with no reranker and no tree."""
        return self.stage == "first" and not self.tree

    def is_simple(self, params: Mapping[str, Any] | None = None) -> bool:
        """A flat retriever (first stage or reranking cascade, or a tree switched flat): a simple comparator."""
        return self.stage in ("first", "rerank") and not self.runs_tree(params)

    def fingerprint(self) -> dict[str, int]:
        """The code versions above 1 (see ``code_version``)."""
        versions = {k: v if isinstance(v, int) else v.version for k, v in sorted(self.code_version.items())}
        return {k: v for k, v in versions.items() if v != 1}


DEFAULT = Traits()


def traits(type_name: str | None) -> Traits:
    """The declared traits of the retriever type ``type_name`` (built-in or plugged in through the
    ``hcrbench.retrievers`` entry points). A type that declares none, an unknown name and a plugin that fails to
    import get :data:`DEFAULT` (those problems are reported where the system is built, with its config line).

    A class declares ``traits = Traits(...)`` or a plain mapping of the same fields (a plugin need not import
    hcrbench to declare them); anything else is an :class:`InputError` naming the type."""
    from hcrbench.retrieve.base import is_known, load_factory

    if not type_name or not is_known(type_name):
        return DEFAULT
    try:
        factory = load_factory(type_name)
    except InputError:
        return DEFAULT
    declared = getattr(factory, "traits", None)
    if declared is None:
        return DEFAULT
    if isinstance(declared, Traits):
        return declared
    if isinstance(declared, Mapping):
        known = {f.name for f in fields(Traits)}
        unknown = sorted(set(declared) - known)
        if unknown:
            raise InputError(f"retriever {type_name!r} declares unknown traits {', '.join(map(str, unknown))} "
                             f"(known: {', '.join(sorted(known))})", field="traits")
        values = dict(declared)
        if isinstance(values.get("reranker_param"), list):  # a mapping read from JSON or TOML
            values["reranker_param"] = tuple(values["reranker_param"])
        if not isinstance(values.get("ranking_neutral", {}), Mapping):
            raise InputError(f"retriever {type_name!r}: ranking_neutral must be a mapping of parameter to "
                             "{when, why}", field="traits")
        if isinstance(values.get("ablation_roles"), list):
            values["ablation_roles"] = tuple(values["ablation_roles"])
        try:
            return Traits(**values)
        except InputError as e:
            raise InputError(f"retriever {type_name!r}: {e.problem}", field="traits") from None
    raise InputError(f"retriever {type_name!r} declares traits as {type(declared).__name__}: give a "
                     "hcrbench.retrieve.Traits or a mapping of its fields", field="traits")


def ranking_neutral(type_name: str | None, params: Mapping[str, Any] | None = None) -> dict[str, str]:
    """``{param: why}``: the parameters of a ``type_name`` system with ``params`` that cannot change its ranking
    (``Traits.ranking_neutral`` whose conditions hold; a condition on a parameter not in ``params`` reads the
    class's default, and one with no default does not hold)."""
    declared = traits(type_name).ranking_neutral
    if not declared:
        return {}
    import inspect

    from hcrbench.retrieve.base import load_factory

    try:
        sig = inspect.signature(load_factory(str(type_name)))
        defaults = {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}
    except (InputError, TypeError, ValueError):
        defaults = {}
    given = {**defaults, **(params or {})}
    out = {}
    for name, rule in declared.items():
        when = rule.get("when") or {}
        if all(k in given and given[k] == v for k, v in when.items()):
            out[str(name)] = str(rule.get("why") or "it cannot change the ranking")
    return out
