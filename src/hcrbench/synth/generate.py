"""Generate a Meridian folder: BEIR files plus metadata, evidence, world model and a hashed manifest.

Two passes: the schedule plans every document (cheap, no text), queries are drawn from that plan, then documents
are rendered one at a time and streamed to ``corpus.jsonl`` while the evidence spans the queries need are
captured. 100,000 documents never sit in memory as text. Same seed and generator version => identical bytes.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from hcrbench.data import Qrels, atomic_open, atomic_write_text, write_beir_qrels, write_jsonl
from hcrbench.data.hashing import sha256_file
from hcrbench.data.tokens import default_counter
from hcrbench.errors import InputError
from hcrbench.synth.catalog import Catalog
from hcrbench.synth.queries import plan_queries, query_rows
from hcrbench.synth.render import render
from hcrbench.synth.schedule import iter_specs
from hcrbench.synth.world import CORE_DOCS, build_world

GENERATOR_VERSION = "1.1.0"
SIZES = {"small": 500, "medium": 2000, "full": 3500}
MAX_DOCS = 1_000_000
SPLITS = ("tune", "dev", "test")


def resolve_size(size: str | int) -> int:
    """``small``/``medium``/``full`` or a document count (at least 500, the core block that holds the world)."""
    if isinstance(size, int) and not isinstance(size, bool):
        n = size
    elif isinstance(size, str) and size.strip().lower() in SIZES:
        return SIZES[size.strip().lower()]
    elif isinstance(size, str) and size.strip().isdecimal():
        try:
            n = int(size.strip())
        except ValueError:  # a decimal digit int() still refuses: one line, not a traceback
            raise InputError(f"must be small, medium, full or a document count, got {size!r}",
                             field="size") from None
    else:
        raise InputError(f"must be small, medium, full or a document count, got {size!r}", field="size")
    if not CORE_DOCS <= n <= MAX_DOCS:
        raise InputError(f"document count must be between {CORE_DOCS} and {MAX_DOCS:,}, got {n}", field="size")
    return n


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InputError(f"must be a non-negative integer, got {seed!r}", field="seed")
    return seed


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise InputError("output path exists and is not a folder", path=out, field="out")
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(f"cannot write here ({probe} is not writable)", path=out, field="out")
    if out.is_dir() and any(out.iterdir()) and not _is_meridian(out):
        raise InputError("folder is not empty and holds no Meridian manifest.json; refusing to write into it "
                         "(choose an empty or new folder)", path=out, field="out")


def _is_meridian(folder: Path) -> bool:
    """True when ``folder`` holds a manifest.json written by this generator (regenerating there is allowed)."""
    try:
        man = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(man, dict) and man.get("name") == "meridian"


def generate_meridian(out: str | Path, size: str | int = "small", seed: int = 0) -> dict[str, Any]:
    """Write the Meridian corpus of ``size`` documents for ``seed`` into ``out``; returns the manifest."""
    n = resolve_size(size)
    seed = _check_seed(seed)
    out = Path(out)
    _check_out(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create folder ({e.strerror})", path=out, field="out") from None

    world = build_world(seed, n)
    specs = list(iter_specs(world))
    cat = Catalog(world, specs)
    plans = plan_queries(cat, seed)
    needed: dict[int, set[str]] = defaultdict(set)
    for p in plans:
        for d, key in p.evidence:
            needed[d].add(key)

    spans: dict[tuple[int, str], tuple[int, int, str]] = {}
    with atomic_open(out / "corpus.jsonl", "w") as fh:
        for spec in specs:
            doc = render(world, spec)
            fh.write(json.dumps(doc.row(), ensure_ascii=False) + "\n")
            for key in sorted(needed.get(spec.index, ())):
                spans[(spec.index, key)] = _resolve(doc, key, cat)

    counter = default_counter()
    q_rows, meta_rows, ev_rows = query_rows(plans, cat, spans, counter.count)
    write_jsonl(out / "queries.jsonl", q_rows)
    write_jsonl(out / "queries.meta.jsonl", meta_rows)
    write_jsonl(out / "evidence.jsonl", ev_rows)
    for split in SPLITS:
        rows = {m["query_id"]: m["qrels"] for m in meta_rows if m["split"] == split and m["qrels"]}
        write_beir_qrels(Qrels.from_dict(rows, name=split), out / "qrels" / f"{split}.tsv")
    atomic_write_text(out / "world.json", json.dumps(world.to_json(), ensure_ascii=False, indent=1) + "\n")

    files = ["corpus.jsonl", "queries.jsonl", "queries.meta.jsonl", "evidence.jsonl",
             *(f"qrels/{s}.tsv" for s in SPLITS), "world.json"]
    manifest = {
        "name": "meridian", "generator_version": GENERATOR_VERSION, "seed": seed,
        "size": size.strip().lower() if isinstance(size, str) and not size.strip().isdecimal() else n,
        "n_docs": n,
        "n_queries": len(plans), "token_counter": counter.name,
        "files": {f: sha256_file(out / f) for f in files},
    }
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return manifest


def _resolve(doc, key: str, cat: Catalog) -> tuple[int, int, str]:
    if key == "@@head":
        span = doc.pieces[0]
    elif key.startswith("@"):
        eid = key[1:]
        span = doc.mention(cat.display(eid))
        if span is None and eid in cat.w.index and hasattr(cat.w.get(eid), "concept"):
            span = doc.mention(cat.w.get(eid).title)
    else:
        span = doc.spans.get(key)
    if span is None:  # a generator asked for a fact its document does not state: a bug, not a user error
        raise RuntimeError(f"meridian: {doc.doc_id} has no span for {key!r}")
    return span[0], span[1], doc.text[span[0]:span[1]]
