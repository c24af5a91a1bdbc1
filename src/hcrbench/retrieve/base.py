"""The ``Retriever`` protocol, the retriever registry and the plugin entry point.

A retriever indexes a :class:`~hcrbench.data.Corpus` once and answers :class:`~hcrbench.data.Queries` with a
:class:`~hcrbench.data.RunResult` (the run plus its :class:`~hcrbench.data.Costs`). Systems register under a short
name (``bm25``, ``dense``, ...); third-party systems plug in through the ``hcrbench.retrievers`` entry-point group:

    [project.entry-points."hcrbench.retrievers"]
    mysystem = "mypackage.module:MyRetriever"
"""

from __future__ import annotations

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


def available_retrievers() -> list[str]:
    """Names of built-in and plugged-in retrievers."""
    _load_builtins()
    return sorted(set(_REGISTRY) | set(_plugins()))


def make_retriever(name: str, **params: Any) -> Retriever:
    """Construct a retriever by registry name or plugin name with keyword parameters."""
    _load_builtins()
    factory = _REGISTRY.get(name)
    if factory is None:
        ep = _plugins().get(name)
        if ep is None:
            raise InputError(
                f"unknown system {name!r} (available: {', '.join(available_retrievers())})", field="system"
            )
        factory = ep.load()
    try:
        return factory(**params)
    except TypeError as e:
        raise InputError(f"bad parameters for system {name!r}: {e}", field="param") from None


def _load_builtins() -> None:
    """Import the built-in retriever modules so their ``@register_retriever`` lines run."""
    import importlib

    for mod in _BUILTIN_MODULES:
        try:
            importlib.import_module(mod)
        except ImportError:
            # An optional extra (e.g. dense) is not installed: its systems are simply unavailable.
            continue


_BUILTIN_MODULES: list[str] = []
