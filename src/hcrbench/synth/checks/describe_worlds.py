"""``hcrbench describe`` on a dataset of K worlds (``generate meridian --worlds K``): each world's own measure and
the pooled figures that hold the worlds together.

Per world: :func:`~hcrbench.synth.checks.describe.describe` on ``worlds/wNN`` (nothing is written there, so a world's
folder keeps its bytes). Pooled, measured from the pooled files on disk: the documents of each world against the
size asked for (worlds never grow), the worlds of each split, the independent topics of each split (clusters
re-derived within each world, :mod:`hcrbench.synth.questions.topics`: a topic never spans two worlds), ids that point
outside their own world, anything shared across splits, and whether the pooled files and the worlds still match
their manifests.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hcrbench.data import atomic_write_text, iter_jsonl
from hcrbench.data.hashing import sha256_file
from hcrbench.data.structured import read_json
from hcrbench.errors import InputError
from hcrbench.synth.checks.describe import describe
from hcrbench.synth.generate import SPLITS
from hcrbench.synth.questions.splits import leakage
from hcrbench.synth.questions.topics import MIN_DISTINCT_SHARE, NameIndex, clusters, split_topics, world_names
from hcrbench.synth.worlds import WORLDS_DIR, world_of, world_prefix


def _prop(name: str, measured: Any, target: str, met: bool) -> dict[str, Any]:
    return {"property": name, "measured": measured, "target": target, "met": bool(met)}


def _foreign(row: dict[str, Any]) -> int:
    """Ids of one pooled query row that do not carry the query's own world (documents, facts, entities)."""
    w = row.get("world")
    ids = [row["query_id"], *(row.get("qrels") or {}), *(row.get("qrels_topical") or {}),
           *(s.get("doc_id", "") for s in row.get("evidence") or []), *(row.get("facts") or []),
           *(row.get("expected_entities") or [])]
    return sum(world_of(i) != w for i in ids)


def names_across_splits(worlds: list[tuple[str, Mapping[str, Any], list[dict[str, Any]]]]) -> dict[str, int]:
    """Entity names the queries of two or more splits use, and query texts asked in two or more splits, over
    ``(split, world.json mapping, the world's own queries.meta rows)``.

    Different worlds hold different entities (their ids carry the world), but Meridian's lexicon is the same in
    every world: its teams, systems, products and project code names recur, some with the same facts (a system's
    owning team), so the same name, or the same question word for word, can reach a tune world and a test world.
    A name is an entity's first written form (:func:`~hcrbench.synth.questions.topics.world_names`), or its id for things
    text writes as ids (tickets, decisions)."""
    where_name: dict[str, set[str]] = defaultdict(set)
    where_text: dict[str, set[str]] = defaultdict(set)
    for split, world, metas in worlds:
        forms = world_names(world)
        index = NameIndex(forms)
        for m in metas:
            text = str(m.get("text", ""))
            where_text[" ".join(text.lower().split())].add(split)
            for eid in {*(m.get("expected_entities") or []), *index.named(text)}:
                where_name[(forms.get(eid) or [eid])[0]].add(split)
    return {"entity names": sum(len(s) > 1 for s in where_name.values()),
            "query texts": sum(len(s) > 1 for t, s in where_text.items() if t)}


def describe_worlds(folder: str | Path, *, write: bool = True) -> dict[str, Any]:
    """Per-world and pooled properties of a multi-world Meridian folder; writes ``folder/describe.json`` unless
    ``write`` is false."""
    folder = Path(folder)
    try:
        man = read_json(folder / "manifest.json")
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read the manifest ({e})", path=folder / "manifest.json") from None
    entries = man.get("world_list")
    if not isinstance(entries, list) or not entries:
        raise InputError("manifest lists no worlds (world_list)", path=folder / "manifest.json", field="world_list")
    for name in ("corpus.jsonl", "queries.meta.jsonl"):
        if not (folder / name).is_file():
            raise InputError(f"not a Meridian folder: missing {name}", path=folder)

    per_world = []
    stale = []
    cluster_of: dict[str, str] = {}
    by_world: list[tuple[str, Any, list[dict[str, Any]]]] = []
    for e in entries:
        wf = folder / WORLDS_DIR / e["name"]
        if not (wf / "manifest.json").is_file():
            raise InputError(f"world {e['name']} is missing (no {WORLDS_DIR}/{e['name']}/manifest.json)", path=folder)
        wman = read_json(wf / "manifest.json")
        if sha256_file(wf / "manifest.json") != e.get("manifest") or any(
                sha256_file(wf / f) != h for f, h in wman.get("files", {}).items()):
            stale.append(e["name"])
        res = describe(wf, write=False)
        p = world_prefix(e["world"])
        wmetas = [m for _, m in iter_jsonl(wf / "queries.meta.jsonl")]
        wjson = read_json(wf / "world.json")
        own = clusters(wmetas, NameIndex(world_names(wjson)))
        cluster_of.update({p + q: p + c for q, c in own.items()})
        by_world.append((e["split"], wjson, wmetas))
        per_world.append({"world": e["world"], "name": e["name"], "seed": e["seed"], "split": e["split"],
                          "n_docs": res["n_docs"], "n_queries": res["n_queries"], "all_met": res["all_met"],
                          "missed": res["missed"]})

    docs: Counter[str] = Counter()
    unprefixed = 0
    for _, row in iter_jsonl(folder / "corpus.jsonl"):
        w = world_of(str(row.get("_id", "")))
        unprefixed += w is None
        docs[f"w{w:02d}" if w is not None else "none"] += 1
    metas = [row for _, row in iter_jsonl(folder / "queries.meta.jsonl")]
    splits_of: dict[str, set[str]] = defaultdict(set)
    for m in metas:
        splits_of[f"w{m['world']:02d}"].add(m["split"])
    by_split = {s: sorted(n for n, ss in splits_of.items() if s in ss) for s in SPLITS}
    size_docs = man.get("size_docs")
    want = {e["name"]: size_docs for e in entries}
    foreign = sum(_foreign(m) for m in metas)
    leaks = leakage(metas)
    topics = split_topics(metas, cluster_of) if all(m["query_id"] in cluster_of for m in metas) else {}
    worst = min((t["distinct_share"] for t in topics.values()), default=0.0)
    shared_names = names_across_splits(by_world)
    pooled_ok = all(sha256_file(folder / f) == h for f, h in man.get("files", {}).items())
    props = [
        _prop("documents per world", dict(sorted(docs.items())),
              f"{man.get('size')} {size_docs:,} each (worlds never grow)", dict(docs) == want and not unprefixed),
        _prop("worlds per split", by_split, "each split its own worlds (>= 1 each)",
              all(by_split[s] for s in SPLITS) and all(len(ss) == 1 for ss in splits_of.values())),
        _prop("queries per split", {s: sum(m["split"] == s for m in metas) for s in SPLITS}, "reported", True),
        _prop("independent topics per split of worlds (clusters / queries, effective topics)",
              {s: {k: t[k] for k in ("queries", "clusters", "distinct_share", "effective_topics", "largest_cluster")}
               for s, t in topics.items()},
              f">= {MIN_DISTINCT_SHARE:.0%} of each split's queries in distinct clusters",
              bool(topics) and worst >= MIN_DISTINCT_SHARE),
        _prop("ids outside their query's world (documents, facts, entities)", foreign, "0", foreign == 0),
        _prop("shared across splits", leaks, "all 0", not any(leaks.values())),
        _prop("names and query texts shared across splits (Meridian's lexicon recurs in every world)",
              shared_names, "all 0", not any(shared_names.values())),
        _prop("files matching the manifests (pooled; worlds)", [pooled_ok, [n for n in want if n not in stale]],
              "all", pooled_ok and not stale),
    ]
    missed_in = Counter(p for w in per_world for p in w["missed"])
    result = {"folder": str(folder), "worlds": len(entries), "n_docs": sum(docs.values()), "n_queries": len(metas),
              "all_met": all(p["met"] for p in props), "missed": [p["property"] for p in props if not p["met"]],
              "properties": props, "topics": topics, "per_world": per_world,
              "missed_in_worlds": dict(sorted(missed_in.items()))}
    if write:
        atomic_write_text(folder / "describe.json", json.dumps(result, indent=1) + "\n")
    return result


__all__ = ["describe_worlds", "names_across_splits"]
