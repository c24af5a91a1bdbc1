"""What each system paid per query, side by side: ``eval.json["cost"][system]``.

For every system (flat ones too), per query: ``chunks_scored`` (chunks the retriever scored: the whole chunked
corpus for an exhaustive flat scorer), ``nodes_scored`` (tree nodes scored while routing; 0 without a tree),
``reranker_calls`` (candidates the reranker scored: ``top_n`` for flat + reranker, whose first stage's
chunks are ``chunks_scored``), ``context_tokens``
(mean tokens of the context selected at the reference budget, and unconstrained: ``context_tokens_all``, when
the config sets budgets) and ``depth`` (mean documents returned per query: depth-sensitive measures such as R@100
are not comparable between runs of different depth). Read from each system's manifest entry (``costs.counters``).

Milliseconds per query (the system's wall time, index + search, over its queries): every row has the key
``ms_per_query`` with the value ``null`` in eval.json, which is byte-identical across fresh runs (wall clocks
differ between runs, so they live in the manifest only), and ``eval.json["cost_timing"]`` (:data:`COST_TIMING`) says where the figures
are; :func:`with_timing` fills them from ``manifest.json`` for the report's cost table and the console.
"""

from __future__ import annotations

from typing import Any

from hcrbench.retrieve.system_traits import traits

#: eval.json["cost_timing"]: where the ms per query of eval.json["cost"] (null there) are
COST_TIMING = "manifest.json: systems.<name>.seconds / n_queries (wall clock, index + search; not in eval.json, " \
              "which is byte-identical across fresh runs)"
#: counter names that mean "chunks scored", most specific first (bm25 and dense count docs_scored over chunks)
CHUNK_COUNTERS = ("chunks_scored", "docs_scored")


def scored_unit(kind: str | None, chunked: bool, counters: Any = ()) -> str:
    """What a system's ``chunks_scored`` per query counts: ``"chunks"`` when it ranks chunks (a ``[chunking]``
    table, a type that declares a unit below the document (:class:`~hcrbench.retrieve.Traits`), or its own
    ``chunks_scored`` counter), else ``"documents"`` (a retriever over whole documents counting ``docs_scored``,
    e.g. bm25-doc or a plugin): the sentences that quote the count say which."""
    return "chunks" if chunked or "chunks_scored" in counters or traits(kind).unit != "document" else "documents"


def system_cost(entry: dict[str, Any], run: Any = None, sufficiency: dict[str, Any] | None = None,
                name: str | None = None) -> dict[str, Any]:
    """One system's cost per query (see the module docstring); a figure that was not counted is None."""
    counters = ((entry.get("costs") or {}).get("counters") or {})
    nq = int(entry.get("n_queries") or counters.get("queries") or 0)

    def per_q(key: str | None) -> float | None:
        if key is None or key not in counters or not nq:
            return None
        return round(float(counters[key]) / nq, 3)

    chunk_key = next((k for k in CHUNK_COUNTERS if k in counters), None)
    out: dict[str, Any] = {
        "queries": nq,
        "chunks_scored": per_q(chunk_key),
        "nodes_scored": per_q("nodes_scored") if "nodes_scored" in counters else (0.0 if nq else None),
        "reranker_calls": per_q("reranked") if "reranked" in counters else (0.0 if nq else None),
        "context_tokens": None,
        "context_tokens_all": None,
        "depth": None,
        "ms_per_query": None,  # wall clock: manifest.json (COST_TIMING); with_timing fills it
    }
    params = {**(entry.get("config_params") or {}), **(entry.get("params") or {})}
    # a reranking stage counts its first stage and its reranked candidates together in docs_scored: split them
    reranks = traits(entry.get("type")).stage == "rerank"
    if reranks and "reranked" not in counters and nq and params.get("top_n_from") \
            and "chunks_indexed" in counters and chunk_key is not None:
        # matched to HCR per query (fairness): the exhaustive first stage scores every chunk, the reranker the
        # rest of docs_scored
        first = _first_stage_chunks(entry, float(counters["chunks_indexed"]), nq)
        out["chunks_scored"] = round(first, 3)
        out["reranker_calls"] = round(float(counters[chunk_key]) / nq - first, 3)
    elif reranks and "reranked" not in counters and nq:
        # flat + reranker: the first stage scores the chunked corpus, the reranker its top_n candidates per query
        # (docs_scored counts both)
        top_n = params.get("top_n")
        if isinstance(top_n, (int, float)) and not isinstance(top_n, bool):
            out["reranker_calls"] = float(top_n)
            if out["chunks_scored"] is not None:
                out["chunks_scored"] = round(out["chunks_scored"] - float(top_n), 3)
    if run is not None and len(run.query_ids):
        out["depth"] = round(sum(len(run[q]) for q in run.query_ids) / len(run.query_ids), 3)
    sys_suff = ((sufficiency or {}).get("systems") or {}).get(name or "") or {}
    tokens = sys_suff.get("mean_tokens") or {}
    ref = str((sufficiency or {}).get("reference_budget", 400))
    out["context_tokens"] = tokens.get(ref)
    out["context_tokens_all"] = tokens.get("all")
    return out


def _first_stage_chunks(entry: dict[str, Any], pooled: float, nq: int) -> float:
    """Chunks an exhaustive first stage scores per query. Over K worlds the pooled counter sums every world's
    index, while a query searches only its own world's: the mean over queries of their world's chunks (from each
    world's own count; an older manifest without it: the pooled count over K)."""
    worlds = entry.get("worlds") or {}
    if len(worlds) <= 1:
        return pooled
    if all(isinstance(w, dict) and "chunks_indexed" in w and "n_queries" in w for w in worlds.values()):
        return sum(float(w["n_queries"]) * float(w["chunks_indexed"]) for w in worlds.values()) / max(nq, 1)
    return pooled / len(worlds)


def cost_table(systems: dict[str, dict[str, Any]], runs: dict[str, Any], sufficiency: dict | None = None
               ) -> dict[str, dict[str, Any]]:
    """``{system: cost per query}`` for every scored system (manifest entries and runs by name)."""
    return {n: system_cost(systems.get(n) or {}, runs.get(n), sufficiency, n) for n in runs}


def depth_mismatch(cost: dict[str, dict[str, Any]], a: str, b: str, tol: float = 0.5) -> bool:
    """Do runs ``a`` and ``b`` return different depths (mean documents per query)?"""
    da, db = (cost.get(a) or {}).get("depth"), (cost.get(b) or {}).get("depth")
    return da is not None and db is not None and abs(da - db) > tol


def with_timing(cost: dict[str, dict[str, Any]], manifest: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """``cost`` with ``ms_per_query`` from each system's manifest entry (``seconds`` over its queries)."""
    systems = (manifest or {}).get("systems") or {}
    out = {}
    for n, c in cost.items():
        e = systems.get(n) or {}
        nq = c.get("queries") or e.get("n_queries")
        ms = round(1000.0 * float(e["seconds"]) / nq, 3) if nq and e.get("seconds") is not None else None
        out[n] = {**c, "ms_per_query": ms}
    return out


def cost_drift(folder: Any) -> list[str]:
    """``eval.json``'s ``cost`` block against one re-derived from the manifest's system entries, the runs and the
    stored sufficiency (what the runner derived it from); one line per differing figure, empty when it matches
    or the folder holds no cost block. ``lock`` refuses and ``verify`` flags what this names."""
    from pathlib import Path

    from hcrbench.data import read_run
    from hcrbench.data.structured import read_json
    from hcrbench.errors import InputError
    from hcrbench.gate.rederive import _named, _walk

    d = Path(folder)
    try:
        ev = read_json(d / "eval.json")
        manifest = read_json(d / "manifest.json")
    except (InputError, OSError, ValueError):
        return []  # the lock's own checks name an unreadable eval.json or manifest
    if not isinstance(ev, dict) or "cost" not in ev or not isinstance(manifest, dict):
        return []
    systems = manifest.get("systems") if isinstance(manifest.get("systems"), dict) else {}
    names = list((ev.get("runs") or {}) if isinstance(ev.get("runs"), dict) else {})
    try:
        runs = {n: read_run(d / systems[n]["run"], name=n) if (d / systems[n]["run"]).stat().st_size else None
                for n in names if isinstance(systems.get(n), dict) and systems[n].get("run")}
    except (InputError, OSError, KeyError, TypeError, ValueError) as e:
        return [f"{d / 'eval.json'}: cannot re-derive the cost block: {e}"]
    suff = ev.get("sufficiency") if isinstance(ev.get("sufficiency"), dict) else None
    fresh = {n: system_cost(systems.get(n) or {}, runs.get(n), suff, n) for n in names}
    lines: list[str] = []
    _walk(ev.get("cost"), fresh, "cost", lines)
    return _named(d / "eval.json", lines)
