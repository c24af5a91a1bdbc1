"""A plugin's ``index`` / ``search`` called so that its mistakes are one line naming its file and line.

A third-party retriever (the ``hcrbench.retrievers`` entry point, docs/plugins.md) is code hcrbench did not write:
an exception it raises, an answer that is not a ``RunResult``, document ids the corpus does not hold or queries it
was not asked would otherwise surface as a traceback deep in hcrbench, or, worse, as a score of 0 nobody
explains. :func:`call_plugin` turns an exception into an :class:`InputError` naming the plugin's own frame
(``FILE:LINE: NAME.search: ValueError: ...``) and :func:`check_result` refuses what the docs' contract refuses:

- a return value that is not a ``RunResult`` holding a ``Run``;
- a query id that is not one of the queries asked, or a query asked and missing (an empty ranking is allowed);
- document ids none of which is a corpus document (the run would score 0 and say nothing); some unknown ids are
  refused too, naming the first and how many;
- more than ``k`` documents for a query: a warning, and the run is cut to ``k`` (what ``top_k`` keeps).

Built-in systems are not wrapped (:func:`plugin_value` is None for them): their contract is tested here.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hcrbench.errors import InputError, cut

T = TypeVar("T")
_PACKAGE = Path(__file__).resolve().parents[1]  # src/hcrbench


def plugin_value(name: str) -> str | None:
    """``module:Class`` of the entry point ``name`` when it is a plugin (not a built-in), else None."""
    from hcrbench.retrieve.base import _REGISTRY, _load_builtins, _plugins

    _load_builtins()
    if name in _REGISTRY:
        return None
    ep = _plugins().get(name)
    return ep.value if ep is not None else None


def _own_frame(exc: BaseException) -> tuple[str | None, int | None]:
    """The innermost frame of ``exc``'s traceback outside hcrbench (the plugin's own line), else the innermost."""
    frames = traceback.extract_tb(exc.__traceback__)
    for fr in reversed(frames):
        try:
            inside = Path(fr.filename).resolve().is_relative_to(_PACKAGE)
        except (OSError, ValueError):
            inside = False
        if not inside:
            return fr.filename, fr.lineno
    return (frames[-1].filename, frames[-1].lineno) if frames else (None, None)


def call_plugin(name: str, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` for plugin ``name``'s method ``what``; an exception becomes one InputError line."""
    try:
        return fn(*args, **kwargs)
    except InputError:
        raise
    except Exception as e:  # the plugin's own bug: name its line, not hcrbench's
        path, line = _own_frame(e)
        message = str(e) or "(no message)"
        raise InputError(f"{type(e).__name__}: {cut(' '.join(message.split()), 300)} (plugin {name!r}, "
                         f"{plugin_value(name) or 'a plugin'})", path=path, line=line,
                         field=f"{name}.{what}") from None


def make_plugin(name: str, factory: Callable[..., Any], params: dict[str, Any]) -> Any:
    """Construct plugin ``name``; what it returns must have ``index`` and ``search``."""
    obj = call_plugin(name, "__init__", factory, **params)
    missing = [m + "()" for m in ("index", "search") if not callable(getattr(obj, m, None))]
    if not missing:
        got = call_plugin(name, "params", getattr, obj, "params", None)
        if not isinstance(got, dict):
            missing.append("params (a dict)" if got is None else f"params as a dict (it is a {type(got).__name__})")
    if missing:
        raise InputError(f"{plugin_value(name)} gave an object of type {type(obj).__name__} with no "
                         f"{' and no '.join(missing)}: a retriever is a class with name, a params property, "
                         "index(corpus) and search(queries, k) (docs/plugins.md)", field=f"system {name}")
    return obj


def check_result(name: str, result: Any, queries: Any, corpus: Any, k: int) -> Any:
    """``result`` when it keeps docs/plugins.md's contract (cut to ``k`` per query, with a warning), else an
    InputError naming ``NAME.search`` and what is wrong."""
    from hcrbench.data.types import Run, RunResult

    field = f"{name}.search"
    if not isinstance(result, RunResult) or not isinstance(getattr(result, "run", None), Run):
        got = type(result).__name__
        if isinstance(result, RunResult):
            got = f"RunResult whose run is a {type(result.run).__name__}"
        raise InputError(f"returned a {got}; search must return RunResult(Run.from_ranked(...), costs) "
                         "(docs/plugins.md)", field=field)
    run = result.run
    asked = set(queries.query_ids)
    extra = [q for q in run.query_ids if q not in asked]
    if extra:
        raise InputError(f"ranked {len(extra)} query id(s) it was not asked, e.g. {cut(extra[0])!r} "
                         f"(queries.query_ids holds the {len(asked)} asked)", field=field)
    present = set(run.query_ids)
    missing = [q for q in queries.query_ids if q not in present]
    if missing:
        raise InputError(f"returned no ranking for {len(missing)} of {len(asked)} queries, e.g. "
                         f"{cut(missing[0])!r}: every query must be present (an empty ranking is allowed)",
                         field=field)
    if run.n_entries:
        used = sorted(set(run.doc_index.tolist()))
        unknown = [run.doc_vocab[c] for c in used if run.doc_vocab[c] not in corpus]
        if unknown:
            how = (f"none of its {len(used)} document ids is an id" if len(unknown) == len(used)
                   else f"{len(unknown)} of its {len(used)} document ids are not ids")
            raise InputError(f"{how} of the corpus ({len(corpus)} documents), e.g. {cut(unknown[0])!r} "
                             "(return ids from corpus.doc_ids)", field=field)
    longest = int(run.lengths().max()) if len(run.query_ids) else 0
    if longest > k:
        import warnings

        from hcrbench.errors import HcrbenchWarning

        warnings.warn(f"{field}: returned up to {longest} documents for a query, more than k = {k}; kept the top "
                      f"{k}", HcrbenchWarning, stacklevel=2)
        result = RunResult(run.top_k(k), result.costs, getattr(result, "extras", {}))
    return result


def index(retriever: Any, name: str, corpus: Any) -> None:
    """``retriever.index(corpus)``; for a plugin, an exception is one line naming its file and line."""
    if plugin_value(name) is None:
        retriever.index(corpus)
    else:
        call_plugin(name, "index", retriever.index, corpus)


def search(retriever: Any, name: str, queries: Any, k: int, corpus: Any) -> Any:
    """``retriever.search(queries, k)``; for a plugin, checked by :func:`check_result` against ``corpus``."""
    if plugin_value(name) is None:
        return retriever.search(queries, k=k)
    result = call_plugin(name, "search", retriever.search, queries, k=k)
    return check_result(name, result, queries, corpus, k)
