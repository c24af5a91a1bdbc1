"""Two checks of what the queries rely on, measured from the files (``hcrbench describe``).

**Anchors stated in the corpus, referents unique.** A query relies on the identifiers (``INC-25441``,
``MTG-00148``, ``HR-POL-011``), the dates ("26 March 2024", ``2024-03-26``) and the names (people, teams,
systems, products, project code names, policy titles: :func:`~hcrbench.synth.topics.world_names`) its words
give. Each is looked up in the corpus text: an anchor no document writes cannot be matched by any reader or
retriever. Each must also pick out one thing: a name the world gives to several entities is not unique (outside
the ambiguous category, where that is the point), and an identifier the corpus never writes can only be resolved
through the date beside it, which is unique only when one record of that kind (meeting, incident, decision) has
that date.

**Asides at the top grade.** A relevant document (grade >= 2) is an *aside* when every needed fact it states is
about something other than what the document is about: its subject is the first entity of its routing metadata
(a profile's person, an incident's ticket, a policy's id), or the record it writes up (a meeting's notes are about
the meeting). A policy signed "Sana Schneider, Director of Engineering" states her job title in passing; an
incident page mentioning "project Tundra, whose lead is Kofi Weber" states the lead in passing. Reported: the
share of the judgments at each query's top grade that are asides, and the share of all relevant judgments,
over all queries and the test split.

Queries without needed facts (out of distribution: they name what the world lacks on purpose) are not checked.
Both are reported with counts per query (``describe.json``: ``anchors``, ``asides``); 0 is the aim, not yet a gate.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hcrbench.data import iter_jsonl
from hcrbench.synth.text import MONTHS
from hcrbench.synth.topics import ID_PATTERN, NameIndex, world_names

HUMAN_DATE = re.compile(r"\b(\d{1,2}) (" + "|".join(MONTHS) + r") (\d{4})\b")
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
#: World records written up by one document each, by the prefix of their ids.
RECORDS = {"MTG": "meetings", "INC": "tickets", "DEC": "decisions"}
#: Categories whose names are shared on purpose.
SHARED_NAMES_OK = frozenset({"ambiguous"})


def dates_in(text: str) -> list[str]:
    """Every calendar date ``text`` writes, as ISO strings, in order."""
    out = [f"{y}-{MONTHS.index(m) + 1:02d}-{int(d):02d}" for d, m, y in HUMAN_DATE.findall(text)]
    out += ["-".join(g) for g in ISO_DATE.findall(text)]
    return list(dict.fromkeys(out))


class CorpusAnchors:
    """What the corpus writes: identifiers and dates (by pattern) and the world's names (by whole-word match)."""

    def __init__(self, texts: Iterable[str], names: NameIndex) -> None:
        self.ids: set[str] = set()
        self.dates: set[str] = set()
        self.names: set[str] = set()
        for t in texts:
            self.ids.update(ID_PATTERN.findall(t))
            self.dates.update(dates_in(t))
            self.names.update(names.written(t))


def query_anchors(meta: Mapping[str, Any], corpus: CorpusAnchors, names: NameIndex,
                  records: Mapping[str, Mapping[str, str]], dated: Mapping[tuple[str, str], int]) -> dict[str, Any]:
    """One query's anchors and which of them fail: ``missing`` (not written in any document) and ``not_unique``
    (a name several entities share; an identifier the corpus never writes whose date, if the query gives one,
    several records of its kind share)."""
    text = str(meta.get("text", ""))
    ids = list(dict.fromkeys(ID_PATTERN.findall(text)))
    dates = dates_in(text)
    written = [n for n in names.written(text) if not ID_PATTERN.fullmatch(n)]  # (ids are counted as ids)
    missing = [x for x in ids if x not in corpus.ids] + [d for d in dates if d not in corpus.dates] + \
        [n for n in written if n not in corpus.names]
    not_unique: list[str] = []
    if meta.get("category") not in SHARED_NAMES_OK:
        not_unique += [n for n in written if len(names.by_name[n]) > 1]
    for x in ids:
        kind = x.split("-")[0]
        if x in corpus.ids or kind not in RECORDS:
            continue
        when = records[kind].get(x)
        if when is None or when not in dates or dated[(kind, when)] > 1:
            not_unique.append(x)  # only its date could name it, and the query gives none or a shared one
    return {"anchors": len(ids) + len(dates) + len(written), "missing": missing,
            "not_unique": list(dict.fromkeys(not_unique))}


def _subjects(corpus_rows: Iterable[tuple[str, list[str]]], world: Mapping[str, Any]) -> dict[str, set[str]]:
    """What each document is about: the first entity of its routing metadata, and the record it writes up."""
    out: dict[str, set[str]] = defaultdict(set)
    for doc_id, ents in corpus_rows:
        if ents:
            out[doc_id].add(ents[0])
    for kind in RECORDS.values():
        for rec in world.get(kind, []):
            if isinstance(rec.get("doc"), int):
                out[f"MER-{rec['doc']:06d}"].add(rec["id"])
    return out


def query_asides(meta: Mapping[str, Any], stated_in: Mapping[str, set[str]],
                 subjects: Mapping[str, set[str]]) -> dict[str, int]:
    """Relevant judgments of one query, those at its top grade, and the asides among each (a document is an aside
    when no needed fact it states is about the document's subject)."""
    facts = set(meta.get("facts") or [])
    rel = {d: g for d, g in (meta.get("qrels") or {}).items() if g >= 2}
    top = max(rel.values(), default=0)
    out = {"relevant": len(rel), "top": 0, "asides": 0, "asides_top": 0}
    for d, g in rel.items():
        own = subjects.get(d, set())
        aside = not any(f.split(":")[1] in own for f in stated_in.get(d, set()) & facts)
        out["asides"] += aside
        out["top"] += g == top
        out["asides_top"] += aside and g == top
    return out


def _share(a: int, b: int) -> float:
    return round(a / b, 3) if b else 0.0


def answerable_props(folder: Path, metas: list[dict[str, Any]], world: Mapping[str, Any]
                     ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The two checks' properties (reported) and their per-query detail for ``describe.json``."""
    names = NameIndex(world_names(world))
    texts: list[str] = []
    rows: list[tuple[str, list[str]]] = []
    for _, obj in iter_jsonl(folder / "corpus.jsonl"):
        texts.append(str(obj.get("text", "")))
        rows.append((str(obj.get("_id")), list((obj.get("metadata") or {}).get("entities") or [])))
    corpus = CorpusAnchors(texts, names)
    records = {k: {r["id"]: r.get("date", "") for r in world.get(kind, [])} for k, kind in RECORDS.items()}
    dated: Counter[tuple[str, str]] = Counter((k, d) for k, recs in records.items() for d in recs.values())
    stated_in: dict[str, set[str]] = defaultdict(set)
    prov = folder / "provenance.jsonl"
    if prov.is_file():
        for _, row in iter_jsonl(prov):
            stated_in[row["doc_id"]].add(row["fact_id"])
    subjects = _subjects(rows, world)

    anchors: dict[str, Any] = {}
    asides: dict[str, Any] = {}
    tally = {s: Counter() for s in ("all", "test")}
    for m in metas:
        if not m.get("facts"):
            continue  # unanswerable by construction (out of distribution): naming what the world lacks is the point
        qid = str(m.get("query_id"))
        a = query_anchors(m, corpus, names, records, dated)
        s = query_asides(m, stated_in, subjects)
        if a["missing"] or a["not_unique"]:
            anchors[qid] = a
        if s["asides"]:
            asides[qid] = s
        for split in ("all", m.get("split")):
            if split in tally:
                t = tally[split]
                t["queries"] += 1
                t["anchors"] += a["anchors"]
                t["missing"] += len(a["missing"])
                t["not_unique"] += len(a["not_unique"])
                t["queries missing"] += bool(a["missing"])
                t["queries not unique"] += bool(a["not_unique"])
                for k, v in s.items():
                    t[k] += v
    al, te = tally["all"], tally["test"]
    props = [
        {"property": "queries relying on an identifier, date or name no document writes",
         "measured": {"queries": al["queries missing"], "anchors missing": al["missing"],
                      "anchors checked": al["anchors"], "test queries": te["queries missing"]},
         "target": "reported (0 is the aim)", "met": True},
        {"property": "queries whose identifier, date or name does not pick out one referent",
         "measured": {"queries": al["queries not unique"], "anchors": al["not_unique"],
                      "test queries": te["queries not unique"]},
         "target": "reported (0 is the aim)", "met": True},
        {"property": "asides among top-grade relevant judgments (all; test)",
         "measured": [_share(al["asides_top"], al["top"]), _share(te["asides_top"], te["top"])],
         "target": "reported (< 5% is the aim)", "met": True},
        {"property": "asides among relevant judgments (all; test)",
         "measured": [_share(al["asides"], al["relevant"]), _share(te["asides"], te["relevant"])],
         "target": "reported", "met": True},
    ]
    detail = {"anchors": {"counts": {k: dict(v) for k, v in tally.items()}, "queries": anchors},
              "asides": {"counts": {k: {x: v[x] for x in ("queries", "relevant", "top", "asides", "asides_top")}
                                    for k, v in tally.items()}, "queries": asides}}
    return props, detail
