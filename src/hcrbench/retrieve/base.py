"""The ``Retriever`` protocol, the retriever registry and the plugin entry point.

A retriever indexes a :class:`~hcrbench.data.Corpus` once and answers :class:`~hcrbench.data.Queries` with a
:class:`~hcrbench.data.RunResult` (the run plus its :class:`~hcrbench.data.Costs`). Systems register under a short
name (``bm25``, ``dense``, ...); third-party systems plug in through the ``hcrbench.retrievers`` entry-point group:

    [project.entry-points."hcrbench.retrievers"]
    mysystem = "mypackage.module:MyRetriever"
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

from hcrbench.data.types import Corpus, Queries, RunResult
from hcrbench.errors import InputError


@runtime_checkable
class Retriever(Protocol):
    """What every system implements. ``name`` is the run tag; ``params`` what the manifest records."""

    name: str

    def index(self, corpus: Corpus) -> None:
        """Build (or load from cache) whatever ``search`` needs for ``corpus``."""
        ...

    def search(self, queries: Queries, k: int = 100) -> RunResult:
        """Return the top ``k`` documents per query, with the costs spent."""
        ...

    @property
    def params(self) -> dict[str, Any]:
        """The parameters that define this system (recorded in manifests and cache keys)."""
        ...


_REGISTRY: dict[str, Callable[..., Retriever]] = {}


def register_retriever(name: str) -> Callable[[Callable[..., Retriever]], Callable[..., Retriever]]:
    """Class decorator: make a retriever constructible by name (``make_retriever(name, **params)``)."""

    def deco(factory: Callable[..., Retriever]) -> Callable[..., Retriever]:
        _REGISTRY[name] = factory
        return factory

    return deco


def _plugins() -> dict[str, metadata.EntryPoint]:
    try:
        eps = metadata.entry_points(group="hcrbench.retrievers")
    except TypeError:  # pragma: no cover - Python < 3.10 API
        eps = metadata.entry_points().get("hcrbench.retrievers", [])  # type: ignore[attr-defined]
    return {ep.name: ep for ep in eps}


def unknown_hint(name: str) -> str:
    """Why ``name`` may not be found: an entry point of that name in another ``hcrbench*`` group (a typo in the
    group), or a close name ("did you mean"); "" when neither."""
    import difflib

    try:
        every = [ep for dist in metadata.distributions() for ep in dist.entry_points]
    except Exception:  # pragma: no cover - a broken environment: no hint
        every = []
    for ep in every:
        group = getattr(ep, "group", "")
        if ep.name == name and group != "hcrbench.retrievers" and group.lower().startswith("hcrbench"):
            return (f": an entry point {name} = {ep.value} is in group {group!r}; the group is "
                    "'hcrbench.retrievers' (docs/plugins.md)")
    close = difflib.get_close_matches(name, available_retrievers(), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def is_builtin(name: str) -> bool:
    """Is ``name`` a built-in retriever type (constructed in-process, its parameters checked by signature)?"""
    _load_builtins()
    return name in _REGISTRY


def is_known(name: str) -> bool:
    """Is ``name`` a built-in or an installed plugin (without importing the plugin)?"""
    return is_builtin(name) or name in _plugins()


def check_params(name: str, params: dict[str, Any]) -> None:
    """An :class:`InputError` for the first parameter a built-in ``name`` does not accept; a plugin's are its own
    business until it is built (it is not imported here)."""
    _load_builtins()
    factory = _REGISTRY.get(name)
    if factory is not None:
        _check_params(name, factory, params)


def available_retrievers() -> list[str]:
    """Names of built-in and plugged-in retrievers."""
    _load_builtins()
    return sorted(set(_REGISTRY) | set(_plugins()))


def make_retriever(name: str, /, **params: Any) -> Retriever:
    r"""Construct a retriever by registry name or plugin name with keyword parameters.

    Unknown systems and unknown parameters are :class:`InputError`\ s naming what is accepted.
    """
    factory = load_factory(name)
    _check_params(name, factory, params)
    if name not in _REGISTRY:  # a plugin: its own exceptions are one line naming its file and line
        from hcrbench.retrieve.checked import make_plugin

        return make_plugin(name, factory, params)
    try:
        return factory(**params)
    except InputError:  # already one line naming its field (InputError is a ValueError)
        raise
    except (TypeError, ValueError, AttributeError) as e:  # construction only: a bad value cast in __init__
        raise InputError(f"bad parameters for system {name!r}: {type(e).__name__}: {e}", field="param") from None


def load_factory(name: str) -> Callable[..., Retriever]:
    """The class (or factory) registered or plugged in as ``name``; an InputError when there is none or a plugin
    fails to import (so a broken plugin is named before anything runs)."""
    _load_builtins()
    factory = _REGISTRY.get(name)
    if factory is not None:
        return factory
    ep = _plugins().get(name)
    if ep is None:
        raise InputError(f"unknown system {name!r}{unknown_hint(name)} (available: "
                         f"{', '.join(available_retrievers())})", field="system")
    try:
        return ep.load()
    except Exception as e:
        raise InputError(f"plugin {name!r} ({ep.value}) failed to load: {type(e).__name__}: {e}",
                         field="system") from None


def accepted_params(factory: Callable[..., Any]) -> list[str] | None:
    """Keyword parameters ``factory`` accepts, or None when it takes ``**kwargs`` (anything goes)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    names = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return None
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self":
            names.append(p.name)
    return names


def _check_params(name: str, factory: Callable[..., Any], params: dict[str, Any]) -> None:
    accepted = accepted_params(factory)
    if accepted is None:
        return
    for key in params:
        if key not in accepted:
            raise InputError(
                f"unknown parameter {key!r} for system {name!r} (accepted: {', '.join(accepted) or 'none'})",
                field="param",
            )


def _load_builtins() -> None:
    """Import the built-in retriever modules so their ``@register_retriever`` lines run."""
    import importlib

    for mod in _BUILTIN_MODULES:
        importlib.import_module(mod)  # built-ins import no optional dependency at module level


_BUILTIN_MODULES: list[str] = [
    "hcrbench.retrieve.bm25",
    "hcrbench.retrieve.dense",
    "hcrbench.retrieve.hybrid",
    "hcrbench.retrieve.rerank",
    "hcrbench.retrieve.runfile",
    "hcrbench.retrieve.hcr.retriever",
    "hcrbench.retrieve.raptor.retriever",
]
"""Built-in systems. They import heavy libraries inside methods, so importing them never fails for a missing
extra; asking for a system whose extra is missing raises a one-line InputError naming the extra."""
