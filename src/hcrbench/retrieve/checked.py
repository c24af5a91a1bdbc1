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
- more than ``k`` documents for a query: a warning, and the run is cut to ``k`` (what ``top_k`` keeps);
- a document twice in one query's ranking (``evaluate`` refuses such a run, so ``retrieve`` does not write it);
- ``sys.exit(...)`` inside ``index`` or ``search``: one line naming the plugin, not an exit of hcrbench.

A plugin is handed copies of the corpus and the queries (:func:`handed_copy`: new lists of the same string objects,
so a million documents cost a few list copies, not their text), and the copies are compared with the originals
after the call (:func:`refuse_edits`): an edit in place, a popped query or a blanked text, would otherwise reach
every system scored after it; it is refused naming the plugin and the method. The answer is checked against the
queries as they were before the call.

Built-in systems are not wrapped (:func:`plugin_value` is None for them): their contract is tested here.
"""

from __future__ import annotations

import copy
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
    except SystemExit as e:  # sys.exit in a plugin would end hcrbench with the plugin's code and no run
        path, line = _own_frame(e)
        raise InputError(f"called sys.exit({e.code!r}); a retriever must return or raise, not exit (plugin "
                         f"{name!r}, {plugin_value(name) or 'a plugin'})", path=path, line=line,
                         field=f"{name}.{what}") from None
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
    refuse_duplicate_entries(run, field)
    longest = int(run.lengths().max()) if len(run.query_ids) else 0
    if longest > k:
        import warnings

        from hcrbench.errors import HcrbenchWarning

        warnings.warn(f"{field}: returned up to {longest} documents for a query, more than k = {k}; kept the top "
                      f"{k}", HcrbenchWarning, stacklevel=2)
        result = RunResult(run.top_k(k), result.costs, getattr(result, "extras", {}))
    return result


def duplicate_entry(run: Any) -> tuple[str, str] | None:
    """The first (query id, doc id) listed twice in ``run`` (entries in stored order), or None."""
    import numpy as np

    if not run.n_entries:
        return None
    key = run.entry_query_index().astype(np.int64) * (len(run.doc_vocab) + 1) + run.doc_index
    if len(np.unique(key)) == len(key):
        return None
    order = np.argsort(key, kind="stable")
    again = np.flatnonzero(key[order][1:] == key[order][:-1])
    i = int(order[again + 1].min())
    return run.query_ids[int(run.entry_query_index()[i])], run.doc_vocab[int(run.doc_index[i])]


def refuse_duplicate_entries(run: Any, field: str) -> None:
    """An InputError naming ``field`` when ``run`` lists a document twice for one query (``evaluate`` refuses such
    a run: it is not written)."""
    dup = duplicate_entry(run)
    if dup is not None:
        raise InputError(f"doc {cut(dup[1])!r} appears twice for query {cut(dup[0])!r}: a document is ranked at "
                         "most once per query (evaluate refuses such a run)", field=field)


def first_non_finite(obj: Any, where: str = "") -> str | None:
    """The dotted place of the first NaN or infinite number in ``obj`` (dicts, lists, numbers), or None: JSON has
    no such numbers, and a manifest or costs file holding one is not valid JSON."""
    import math

    if isinstance(obj, float) or (hasattr(obj, "dtype") and getattr(obj, "ndim", 1) == 0):
        try:
            return None if math.isfinite(float(obj)) else f"{where or 'value'} = {float(obj)}"
        except (TypeError, ValueError):
            return None
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = ((f"[{i}]", v) for i, v in enumerate(obj))
    else:
        return None
    for k, v in items:
        sub = f"{where}{k}" if str(k).startswith("[") else f"{where}.{k}" if where else str(k)
        hit = first_non_finite(v, sub)
        if hit is not None:
            return hit
    return None


def check_params(name: str, params: Any) -> None:
    """An InputError naming ``NAME.params`` when a retriever's params hold NaN or an infinity."""
    hit = first_non_finite(params)
    if hit is not None:
        raise InputError(f"{hit} is not a finite number: params are recorded as JSON, which has no NaN or "
                         "infinity", field=f"{name}.params")


_FIELDS = {"corpus": ("doc_ids", "texts", "titles", "metadata"), "queries": ("query_ids", "texts", "metadata")}
_SCALARS = frozenset((str, int, float, bool, bytes, type(None)))


def _meta_copy(m: Any) -> Any:
    """A metadata dict whose mutable values are copies (scalars, the usual case, are shared: they cannot change)."""
    if type(m) is not dict:
        return copy.deepcopy(m)
    out = m.copy()
    for k, v in m.items():
        if type(v) not in _SCALARS:
            out[k] = copy.deepcopy(v)
    return out


def handed_copy(obj: Any) -> Any:
    """A copy of a ``Corpus`` or ``Queries`` for a plugin: its own lists (and metadata dicts), the same strings."""
    kind = "corpus" if hasattr(obj, "doc_ids") else "queries"
    out = copy.copy(obj)
    for f in _FIELDS[kind]:
        value = getattr(obj, f)
        setattr(out, f, [_meta_copy(m) for m in value] if f == "metadata" else list(value))
    if isinstance(getattr(obj, "_pos", None), dict):
        out._pos = dict(obj._pos)
    return out


def _ids(obj: Any) -> list[Any]:
    return obj.doc_ids if hasattr(obj, "doc_ids") else obj.query_ids


def refuse_edits(name: str, what: str, original: Any, handed: Any) -> None:
    """An InputError naming ``NAME.WHAT`` when the plugin changed ``handed`` (its copy of ``original``)."""
    kind = "corpus" if hasattr(original, "doc_ids") else "queries"
    for f in _FIELDS[kind]:
        before, after = getattr(original, f), getattr(handed, f, None)
        if type(after) is list and after == before:
            continue
        ids = _ids(original)
        if type(after) is not list:
            how = f"replaced its {f} list with a {type(after).__name__}"
        elif len(after) != len(before):
            kept = {i for i in after if isinstance(i, str)} if f == _FIELDS[kind][0] else set()
            gone = [i for i in ids if i not in kept] if kept or not after else []
            how = f"{len(after)} {f} where it was handed {len(before)}" + (
                f", e.g. {cut(str(gone[0]))!r} removed" if gone else "")
        else:
            changed = [ids[i] for i, (a, b) in enumerate(zip(after, before)) if a != b]
            how = f"changed the {f} of {len(changed)} of {len(before)} entries, e.g. {cut(str(changed[0]))!r}"
        raise InputError(f"edited the {kind} it was handed ({how}); a retriever must not change its inputs, since "
                         f"every system scored after it reads them (plugin {name!r}, "
                         f"{plugin_value(name) or 'a plugin'}; docs/plugins.md)", field=f"{name}.{what}")


def call_guarded(name: str, what: str, fn: Callable[..., T], inputs: tuple[Any, ...], **kwargs: Any) -> T:
    """``fn(*copies, **kwargs)`` for plugin ``name``: each of ``inputs`` (a Corpus or Queries) is handed as a copy
    that must come back unchanged (:func:`refuse_edits`); an exception or exit is one line (:func:`call_plugin`)."""
    copies = tuple(handed_copy(x) for x in inputs)
    result = call_plugin(name, what, fn, *copies, **kwargs)
    for original, mine in zip(inputs, copies):
        refuse_edits(name, what, original, mine)
    return result


def index(retriever: Any, name: str, corpus: Any) -> None:
    """``retriever.index(corpus)``; for a plugin, on a copy that must stay unchanged, and an exception is one line
    naming its file and line."""
    if plugin_value(name) is None:
        retriever.index(corpus)
    else:
        call_guarded(name, "index", retriever.index, (corpus,))


def search(retriever: Any, name: str, queries: Any, k: int, corpus: Any) -> Any:
    """``retriever.search(queries, k)``; for a plugin, on a copy of ``queries`` that must stay unchanged, and
    checked by :func:`check_result` against the queries as asked and ``corpus``."""
    if plugin_value(name) is None:
        return retriever.search(queries, k=k)
    result = call_guarded(name, "search", retriever.search, (queries,), k=k)
    return check_result(name, result, queries, corpus, k)
