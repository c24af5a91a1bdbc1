"""``hcrbench convert smart``: turn a classic SMART collection (Cranfield, CISI) into a BEIR folder.

The folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``) is what every other command reads. It is built
in a temporary sibling folder and renamed into place, so a failed or interrupted conversion leaves nothing
half-written. The loaders' warnings (renumbered queries, unjudged queries, damaged records) are printed.
"""

from __future__ import annotations

from pathlib import Path

import typer

from hcrbench.errors import InputError

convert_app = typer.Typer(help="Convert other collection formats to BEIR folders.", no_args_is_help=True)


def write_beir_folder(dataset, out: Path, *, overwrite: bool = False) -> None:
    """Write ``dataset`` (a BeirDataset) to ``out`` as a BEIR folder, atomically (temp folder + rename)."""
    import os
    import shutil
    import tempfile

    from hcrbench.data import write_beir_qrels, write_corpus, write_queries

    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", path=out, field="--out")
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise InputError("folder exists and is not empty (pass --overwrite to replace it)", path=out,
                         field="--out")
    from hcrbench.data.outputs import ensure_parent

    ensure_parent(out, field="--out")  # at most one missing folder level above --out
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    try:
        tmp.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result is an ordinary folder
        write_corpus(dataset.corpus, tmp / "corpus.jsonl")
        write_queries(dataset.queries, tmp / "queries.jsonl")
        (tmp / "qrels").mkdir()
        write_beir_qrels(dataset.qrels, tmp / "qrels" / f"{dataset.split}.tsv")
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            out.rename(old / out.name)
        tmp.rename(out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@convert_app.command("smart")
def smart_command(
    collection: str = typer.Option(..., "--collection", help="cranfield | cisi"),
    src: Path = typer.Option(..., "--in", help="Folder with the SMART files (e.g. cran.all.1400, cran.qry, ...)."),
    out: Path = typer.Option(..., "--out", help="BEIR folder to write."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists."),
    minus_one: str = typer.Option("0", "--cranfield-minus-one",
                                  help="Cranfield only: grade for cranqrel's undocumented -1 rows (an integer, "
                                       "or 'drop'); see docs/datasets.md."),
) -> None:
    """Read a SMART collection, say what was fixed up, write a BEIR folder (split 'test')."""
    from hcrbench.data.smart import COLLECTIONS

    loader = COLLECTIONS.get(collection.lower())
    if loader is None:
        raise InputError(f"unknown collection {collection!r} (expected one of: {', '.join(COLLECTIONS)})",
                         field="--collection")
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise InputError("exists and is not an empty folder (pass --overwrite to replace it)", path=out,
                         field="--out")
    kwargs = {}
    if minus_one != "0":
        if collection.lower() != "cranfield":
            raise InputError("only applies to --collection cranfield", field="--cranfield-minus-one")
        try:
            kwargs["minus_one"] = None if minus_one == "drop" else int(minus_one)
        except ValueError:
            raise InputError(f"expected an integer or 'drop', got {minus_one!r}",
                             field="--cranfield-minus-one") from None
    ds = loader(src, **kwargs)  # its warnings go to stderr, once each (hcrbench.cli)
    write_beir_folder(ds, out, overwrite=overwrite)
    n_rel = int((ds.qrels.grades >= 1).sum())
    typer.echo(f"{collection}: {len(ds.corpus)} docs, {len(ds.queries)} queries ({len(ds.qrels)} judged), "
               f"{int(ds.qrels.grades.size)} judgments ({n_rel} relevant) -> {out}", err=True)


@convert_app.command("multihop-rag")
def multihop_rag_command(
    src: Path = typer.Option(..., "--in", help="Folder with MultiHop-RAG's corpus.json and MultiHopRAG.json."),
    out: Path = typer.Option(..., "--out", help="BEIR folder to write."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists."),
) -> None:
    """Read MultiHop-RAG (articles, queries with evidence facts), write a BEIR folder with qrels by article."""
    import warnings

    from hcrbench.data.multihop_rag import load_multihop_rag
    from hcrbench.errors import HcrbenchWarning

    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise InputError("exists and is not an empty folder (pass --overwrite to replace it)", path=out,
                         field="--out")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HcrbenchWarning)
        ds = load_multihop_rag(src)
    for w in caught:
        if issubclass(w.category, HcrbenchWarning):
            typer.echo(f"warning: {w.message}", err=True)
    write_beir_folder(ds, out, overwrite=overwrite)
    types: dict[str, int] = {}
    for q in ds.qrels.query_ids:
        c = ds.queries.meta(q)["category"]
        types[c] = types.get(c, 0) + 1
    typer.echo(f"multihop-rag: {len(ds.corpus)} articles, {len(ds.queries)} queries ({len(ds.qrels)} with evidence: "
               f"{', '.join(f'{k} {v}' for k, v in sorted(types.items()))}) -> {out}; next: hcrbench policy-compare "
               f"--dataset {out} --system bm25 --budget 15", err=True)


@convert_app.command("qasper")
def qasper_command(
    src: Path = typer.Option(..., "--in", help="A QASPER JSON file (e.g. qasper-test-v0.3.json)."),
    out: Path = typer.Option(..., "--out", help="BEIR folder to write (plus evidence.jsonl)."),
    split: str = typer.Option("test", "--split", help="Split name for qrels/<split>.tsv."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace --out if it exists."),
) -> None:
    """QASPER papers -> paragraph documents, questions -> queries, evidence paragraphs -> qrels + evidence.jsonl."""
    from hcrbench.data.evidence import write_evidence
    from hcrbench.data.qasper import load_qasper

    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise InputError("exists and is not an empty folder (pass --overwrite to replace it)", path=out,
                         field="--out")
    ds = load_qasper(src, split=split)
    write_beir_folder(ds, out, overwrite=overwrite)
    write_evidence(out / "evidence.jsonl", ds.evidence)
    unans = ds.n_unanswerable
    typer.echo(f"qasper: {len(ds.corpus)} paragraphs, {len(ds.queries)} questions ({len(ds.qrels)} with evidence "
               f"paragraphs, {unans} unanswerable, {len(ds.evidence)} with evidence records), "
               f"{ds.unmatched_evidence} evidence quotes matched no paragraph (figures/tables) -> {out}; "
               f"next: a config with budgets = [...] over this folder, then hcrbench run", err=True)


def register(app: typer.Typer) -> None:
    app.add_typer(convert_app, name="convert")
