"""``hcrbench retrieve``: run one baseline system over a BEIR folder and write a TREC run any tool can score."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer

from hcrbench.errors import InputError, cut


def parse_value(text: str) -> Any:
    """A ``--param`` value: JSON object/list, bool (true/false), none, int, float, else the string itself."""
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    if t[:1] in "{[":
        try:
            from hcrbench.data.structured import parse_json

            return parse_json(t, field="--param")
        except InputError as e:
            raise InputError(f"value {cut(t)!r} is not valid JSON ({e.problem})", field="--param") from None
    for cast in (int, float):
        try:
            return cast(t)
        except ValueError:
            pass
    return t


def parse_params(items: list[str]) -> dict[str, Any]:
    """``["k1=1.2", "stemmer=none"]`` -> ``{"k1": 1.2, "stemmer": "none"}``; malformed or repeated keys are errors."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE, got {item!r}", field="--param")
        if key in out:
            raise InputError(f"parameter {key!r} given twice", field="--param")
        out[key] = parse_value(value)
        from hcrbench.retrieve.checked import first_non_finite

        hit = first_non_finite(out[key], key)
        if hit is not None:
            raise InputError(f"{hit} is not a finite number (params are recorded as JSON, which has no NaN or "
                             "infinity)", field="--param")
    return out


def register(app: typer.Typer) -> None:
    @app.command("retrieve")
    def retrieve(
        dataset: Path = typer.Option(..., "--dataset", help="BEIR folder (corpus.jsonl, queries.jsonl, qrels/)."),
        split: str = typer.Option("test", "--split", help="Qrels split whose queries are run."),
        system: str = typer.Option(..., "--system", help="bm25 | dense | hybrid | rerank | runfile | a plugin."),
        param: list[str] = typer.Option(
            [], "--param", help="System parameter KEY=VALUE (repeatable), e.g. k1=1.2, backend=onnx."
        ),
        k: int = typer.Option(100, "--k", help="Documents per query."),
        out: Path = typer.Option(..., "--out", help="Run file to write, in the format its suffix names: .trec / .run / .txt (TREC), .json (ranx), .parquet; .gz compresses."),
        name: str | None = typer.Option(None, "--name", help="Run tag (default: the system name)."),
        costs_json: Path | None = typer.Option(None, "--costs-json", help="Also write params and costs here."),
    ) -> None:
        """Index the corpus with one system, retrieve the split's queries, write a run (TREC, ranx JSON or parquet)."""
        from hcrbench.data import atomic_write_text, load_beir
        from hcrbench.data.outputs import ensure_parent
        from hcrbench.data.run_writers import check_run_path, write_any_run
        from hcrbench.retrieve import checked, make_retriever

        if k < 1:
            raise InputError(f"--k must be >= 1, got {k}", field="--k")
        check_run_path(out, field="--out")
        ensure_parent(out, field="--out")  # before the slow part: a typo in the folder fails now
        if costs_json is not None:
            ensure_parent(costs_json, field="--costs-json")
        params = parse_params(param)
        if name is not None:
            params.setdefault("name", name)
        retriever = make_retriever(system, **params)
        checked.check_params(system, retriever.params)  # before the slow part; again after search
        ds = load_beir(dataset, split)
        if system == "rerank" and params.get("method", "maxsim") == "maxsim":
            typer.echo("note: rerank method=maxsim is zero-shot late interaction over MiniLM token vectors, "
                       "not a trained cross-encoder", err=True)
        t0 = time.perf_counter()
        checked.index(retriever, system, ds.corpus)
        t1 = time.perf_counter()
        result = checked.search(retriever, system, ds.queries, k, ds.corpus)
        t2 = time.perf_counter()
        checked.check_params(system, retriever.params)
        checked.refuse_duplicate_entries(result.run, f"{system}.search")  # evaluate would refuse the file
        doc = None
        if costs_json is not None:
            doc = {"system": system, "params": retriever.params, "dataset": str(dataset), "split": split,
                   "k": k, "index_seconds": t1 - t0, "search_seconds": t2 - t1,
                   "index_costs": getattr(retriever, "index_costs", None) and retriever.index_costs.to_dict(),
                   "search_costs": result.costs.to_dict()}
            hit = checked.first_non_finite(doc)
            if hit is not None:
                raise InputError(f"{hit} is not a finite number: JSON has no NaN or infinity",
                                 field=f"{system} costs")
        write_any_run(result.run, out, k=k, field="--out")
        if getattr(retriever, "routing_log", None):  # tree retrievers (hcr): routing log + tree beside the run
            from hcrbench.data.tree import routing_log_path, tree_path_beside

            retriever.write_log(routing_log_path(out), tree_path_beside(out))
            typer.echo(f"routing log -> {routing_log_path(out)}, tree -> {tree_path_beside(out)}", err=True)
        if costs_json is not None:
            atomic_write_text(costs_json, json.dumps(doc, indent=2, default=str, allow_nan=False) + "\n")
        typer.echo(
            f"{system}: {len(ds.queries)} queries, {result.run.n_entries} lines -> {out} "
            f"(index {t1 - t0:.1f}s, search {t2 - t1:.1f}s)", err=True,
        )
