"""Generate a Meridian folder: BEIR files plus metadata, evidence, world model and a hashed manifest.

The schedule plans every document (cheap, no text); documents are rendered one at a time and streamed to
``corpus.jsonl`` while every fact statement they contain is recorded (``provenance.jsonl``: doc, span, fact id).
Queries are then drawn from the world and defined by the facts they need; their qrels and evidence are derived
from the provenance, so they are exhaustive. Documents never sit in memory as text, only their fact statements.
Same seed and generator version => identical bytes.
"""

from __future__ import annotations

import json
import math
import os
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

from hcrbench.data import Qrels, atomic_open, atomic_write_text, write_beir_qrels, write_jsonl
from hcrbench.data.evidence import write_evidence
from hcrbench.data.hashing import sha256_file
from hcrbench.data.structured import read_json
from hcrbench.data.tokens import default_counter
from hcrbench.errors import InputError
from hcrbench.synth.checks.describe_topics import topic_props
from hcrbench.synth.corpus.render import render
from hcrbench.synth.questions.catalog import Catalog
from hcrbench.synth.questions.suite import DESIGN_QUERIES, SuiteTooLarge, plan_queries, query_rows
from hcrbench.synth.questions.topics import MIN_DISTINCT_SHARE
from hcrbench.synth.world_model.entities import CORE_DOCS, build_world
from hcrbench.synth.world_model.facts import Statement, key_facts
from hcrbench.synth.world_model.schedule import iter_specs

GENERATOR_VERSION = "5.2.0"  # 5.0: meetings named by what their notes write, asides graded below the pages about
# a fact; a believable year (events spread, load and severity mixes); text that keeps to its page's subject.
# 5.1: document kinds (chat and mail threads, minutes, how-tos, long specifications, superseded copies) and noise;
# queries worded as a person would (incidents, decisions and policies named by what they are, several
# phrasings per intent, greetings and thanks now and then), incident fan-outs over one system's or team's incidents.
# 5.2: passing mentions (synth/corpus/mentions.py): a page may end with "See also: ..." / "Last edited by ..." naming, with
# no fact, entities of its own team that earlier pages wrote about (an incident an earlier incident of its system),
# so a name no longer occurs only in the pages a question about it judges relevant (describe's rarest-word row);
# a page naming a query entity in passing is judged 0 in the topical view (looked at, states no needed fact)
SIZES = {"small": 500, "medium": 2000, "full": 3500}
MAX_DOCS = 1_000_000
MIN_QUERIES, MAX_QUERIES = 10, 20_000
#: (queries, documents) points where a world of Meridian's kinds first held a suite with two thirds of each split's
#: queries in distinct clusters (benchmarks/meridian_topics.py; below the first point the size asked for is tried
#: first). :func:`docs_hint` interpolates them; a world that still misses grows by GROWTH_FACTOR.
DOCS_PER_QUERY = ((0, 0), (300, 1500), (900, 6000), (3000, 24000))
GROWTH_FACTOR = Fraction(5, 4)
MAX_GROWTH_STEPS = 8
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


def _check_queries(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not MIN_QUERIES <= n <= MAX_QUERIES:
        raise InputError(f"must be an integer between {MIN_QUERIES} and {MAX_QUERIES:,}, got {n!r}", field="queries")
    return n


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
        man = read_json(folder / "manifest.json")
    except (OSError, ValueError):
        return False
    return isinstance(man, dict) and man.get("name") == "meridian"


def start_docs(n_docs: int, n_queries: int) -> int:
    """The document count a suite of ``n_queries`` is first tried on: ``n_docs`` (the size asked for) or, when
    larger, :func:`docs_hint` (the least world that held such a suite on the calibration seeds)."""
    return max(n_docs, docs_hint(n_queries))


def docs_hint(n_queries: int) -> int:
    """Documents a world of Meridian's kinds needed to hold ``n_queries`` queries over independent topics
    (:data:`DOCS_PER_QUERY`, interpolated linearly between its points, extended with the last slope)."""
    pts = DOCS_PER_QUERY
    for (q0, d0), (q1, d1) in pairwise(pts):
        if n_queries <= q1:
            return round(d0 + (d1 - d0) * (n_queries - q0) / (q1 - q0))
    (q0, d0), (q1, d1) = pts[-2], pts[-1]
    return round(d1 + (d1 - d0) * (n_queries - q1) / (q1 - q0))


def grown_docs(n_docs: int) -> int:
    """The next document count when a world cannot hold its suite (:data:`GROWTH_FACTOR`, at most MAX_DOCS)."""
    return min(MAX_DOCS, -(-n_docs * GROWTH_FACTOR.numerator // GROWTH_FACTOR.denominator))


def topic_check(meta_rows: list[dict[str, Any]], world: Any) -> tuple[list[str], int]:
    """The topic properties ``describe`` checks that a suite misses (:func:`~hcrbench.synth.checks.describe_topics.
    topic_props`: two thirds of each split's queries in distinct clusters, no relevant-document or fact set
    repeated within a split, no entity in two splits ...; empty when all hold) and the suite's **gap** to them,
    in queries: clusters missing to reach two thirds of each split plus relevant-document and fact sets repeated
    within a split plus entities in two splits. A growth step that does not shrink the gap stops the growth (a gap
    the world's size cannot close, such as a kind capped by the lexicon, would otherwise grow the world to its
    last step). One pass of ``topic_props`` serves both (it indexes every name of the world)."""
    props, table = topic_props(meta_rows, world.to_json())
    p = {x["property"]: x["measured"] for x in props}
    missing = sum(max(0, math.ceil(MIN_DISTINCT_SHARE * t["queries"] - 1e-9) - t["clusters"]) for t in table.values())
    gap = (missing + p["relevant-document sets repeated within a split"] + p["fact sets repeated within a split"]
           + p["entities (expected or named in the text) in two or more splits"])
    return [x["property"] for x in props if not x["met"]], gap


def _write_corpus(out: Path, seed: int, n_docs: int) -> tuple[Any, Catalog, str]:
    """Render the world of ``n_docs`` documents into ``corpus.jsonl`` and ``provenance.jsonl`` (streamed);
    returns the world, the catalog the planner draws from and the token counter's name."""
    world = build_world(seed, n_docs)
    specs = list(iter_specs(world))
    counter = default_counter()
    statements: list[Statement] = []
    titles: list[str] = []
    with atomic_open(out / "corpus.jsonl", "w") as fh, atomic_open(out / "provenance.jsonl", "w") as ph:
        for spec in specs:
            doc = render(world, spec)
            fh.write(json.dumps(doc.row(), ensure_ascii=False) + "\n")
            titles.append(doc.title)
            for st in doc_statements(world, spec, doc):
                statements.append(st)
                ph.write(json.dumps({"doc_id": doc.doc_id, "start": st.start, "end": st.end,
                                     "fact_id": st.fact_id, "text": st.text}, ensure_ascii=False) + "\n")
    cat = Catalog(world, specs, statements, counter.count, titles, lambda i: render(world, specs[i]).text)
    return world, cat, counter.name


def generate_meridian(out: str | Path, size: str | int = "small", seed: int = 0,
                      n_queries: int = DESIGN_QUERIES, grow: bool = False) -> dict[str, Any]:
    """Write the Meridian corpus of ``size`` documents for ``seed`` into ``out`` with a suite of ``n_queries``
    queries in the design's category shares (300 by default: the design's counts); returns the manifest.

    **The world is ``size`` documents by default** (the design's 500 / 2,000 / 3,500), whatever its suite's topics
    (``describe`` reports a miss). **With ``grow=True`` the world grows the entities its suite needs**: independent
    topics cost entities, and each entity costs documents, so the suite is first tried on a world of
    :func:`start_docs` documents (``size``, or more when the suite is larger than ``size`` held on the
    calibration seeds) and, while any split has fewer than two thirds of its queries in distinct clusters (or a
    slot cannot be filled), on a world :data:`GROWTH_FACTOR` times larger (at most :data:`MAX_GROWTH_STEPS`
    times, and only while each step shrinks :func:`topic_check`'s gap). The manifest's ``n_docs`` is the world
    written and ``size_docs`` the size asked for.

    A suite the world cannot hold (a query slot no draw fills) is an :class:`InputError` naming ``queries``;
    the corpus files already written are removed, so no half-written folder remains."""
    n = resolve_size(size)
    seed = _check_seed(seed)
    n_queries = _check_queries(n_queries)
    out = Path(out)
    _check_out(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create folder ({e.strerror})", path=out, field="out") from None

    docs = start_docs(n, n_queries) if grow else n
    best_gap = math.inf
    for step in range(MAX_GROWTH_STEPS + 1):
        world, cat, counter_name = _write_corpus(out, seed, docs)
        last = not grow or step == MAX_GROWTH_STEPS or docs >= MAX_DOCS
        try:
            plans = plan_queries(cat, seed, n_queries)
        except SuiteTooLarge as e:
            if not last:
                docs = grown_docs(docs)
                continue
            for name in ("corpus.jsonl", "provenance.jsonl", "manifest.json"):  # no half-written folder
                (out / name).unlink(missing_ok=True)
            raise InputError(f"a world of {docs:,} documents cannot hold {n_queries:,} queries with Meridian's "
                             f"label rules ({e}); ask for fewer queries or a larger --size", field="queries") from None
        q_rows, meta_rows, ev_rows = query_rows(plans, cat)
        short, gap = topic_check(meta_rows, world)
        if not short or last or gap >= best_gap:  # met, out of steps, or growing did not help (it will not)
            break
        best_gap = gap
        docs = grown_docs(docs)
    write_jsonl(out / "queries.jsonl", q_rows)
    write_jsonl(out / "queries.meta.jsonl", meta_rows)
    write_evidence(out / "evidence.jsonl", ev_rows)
    for split in SPLITS:
        rows = {m["query_id"]: m["qrels"] for m in meta_rows if m["split"] == split and m["qrels"]}
        write_beir_qrels(Qrels.from_dict(rows, name=split), out / "qrels" / f"{split}.tsv")
        topical = {m["query_id"]: {**m["qrels_topical"], **{d: g for d, g in m["qrels"].items() if g >= 2}}
                   for m in meta_rows if m["split"] == split and m["qrels"]}
        write_beir_qrels(Qrels.from_dict(topical, name=f"{split}-topical"), out / "qrels-topical" / f"{split}.tsv")
    atomic_write_text(out / "world.json", json.dumps(world.to_json(), ensure_ascii=False, indent=1) + "\n")

    files = ["corpus.jsonl", "provenance.jsonl", "queries.jsonl", "queries.meta.jsonl", "evidence.jsonl",
             *(f"qrels/{s}.tsv" for s in SPLITS), *(f"qrels-topical/{s}.tsv" for s in SPLITS), "world.json"]
    manifest = {
        "name": "meridian", "generator_version": GENERATOR_VERSION, "seed": seed,
        "size": _manifest_size(size),
        "n_docs": docs,
        "n_queries": len(plans), "token_counter": counter_name,
        "size_docs": n, "grow": grow,
        "files": {f: sha256_file(out / f) for f in files},
    }
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return manifest


def ensure_meridian(out: str | Path, size: str | int = "small", seed: int = 0,
                    n_queries: int | None = None, grow: bool = False) -> str:
    """Make ``out`` hold this generator's Meridian for ``size``, ``seed`` and ``n_queries`` (the design's suite when
    None); returns what was done: ``"kept"``, ``"generated"`` or ``"regenerated: <why>"``.

    Why: a folder generated by an earlier generator version (or for another size, seed or suite) was reused as it
    was, so after an upgrade a quickstart or config scored the old corpus while its manifest, the README and the docs
    described the new one. A folder this generator wrote is a cache of ``(version, size, seed, n_queries)``: on any
    difference it is written again, its manifest first replaced by a "regenerating" one (an interrupted regeneration
    leaves that, so the next call regenerates instead of trusting half-new files)."""
    out = Path(out)
    want_q = DESIGN_QUERIES if n_queries is None else n_queries
    try:
        man = read_json(out / "manifest.json")
    except (OSError, ValueError):
        man = None
    if not isinstance(man, dict):
        generate_meridian(out, size=size, seed=seed, n_queries=want_q, grow=grow)
        return "generated"
    if isinstance(man.get("worlds"), int) and man["worlds"] > 1:  # generate_worlds' folder: not one world's cache
        raise InputError(f"holds {man['worlds']} Meridian worlds (generate meridian --worlds); refusing to keep or "
                         "regenerate it as one world (choose another folder, or generate it again with "
                         "generate meridian)", path=out, field="out")
    want = {"generator_version": GENERATOR_VERSION, "size": _manifest_size(size), "seed": _check_seed(seed),
            "n_queries": _check_queries(want_q), "grow": grow}
    diff = [f"{k} {man.get(k)!r} -> {v!r}" for k, v in want.items() if man.get(k) != v]
    if not diff:
        return "kept"
    if man.get("name") != "meridian":
        raise InputError("holds a manifest.json that is not Meridian's; refusing to write into it (choose an empty "
                         "or new folder)", path=out, field="out")
    atomic_write_text(out / "manifest.json", json.dumps({"name": "meridian", "generator_version": "regenerating"}))
    generate_meridian(out, size=size, seed=seed, n_queries=want_q, grow=grow)
    return "regenerated: " + ", ".join(diff)


def _manifest_size(size: str | int) -> str | int:
    """The manifest's ``size`` field for ``size`` (a name as written, lower case; a number as the document count)."""
    n = resolve_size(size)
    return size.strip().lower() if isinstance(size, str) and not size.strip().isdecimal() else n


def doc_statements(world, spec, doc) -> list[Statement]:
    """Every fact statement of one rendered document, in text order (keys state the facts in ``facts.key_facts``)."""
    out = []
    for key, (start, end) in sorted(doc.spans.items(), key=lambda kv: (kv[1], kv[0])):
        text = doc.text[start:end]
        for fid in key_facts(world, spec, key):
            out.append(Statement(spec.index, start, end, fid, text))
    return out
