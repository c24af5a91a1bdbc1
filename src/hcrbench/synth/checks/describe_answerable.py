"""Two checks of what the queries rely on, measured from the files (``hcrbench describe``).

**Anchors stated in the corpus, referents unique.** A query relies on the identifiers (``INC-25441``,
``MTG-00148``, ``HR-POL-011``), the dates ("26 March 2024", ``2024-03-26``) and the names (people, teams,
systems, products, project code names, policy titles: :func:`~hcrbench.synth.questions.topics.world_names`) its words
give. Each is looked up in the corpus text: an anchor no document writes cannot be matched by any reader or
retriever. Each must also pick out one thing:

- a name the world gives to several entities is not unique (outside the ambiguous category, where that is the
  point);
- an identifier the corpus never writes can only be resolved through the date beside it, which is unique only
  when one record of that kind (meeting, incident, decision) has that date;
- a date that names a record (meeting, incident, decision) without its written identifier ("the Atlas CRM
  incident opened on 9 May 2024", "the retrospective of 26 May 2024") is unique only when one record of the kind
  the query's words name (every kind when they name none) has that date among those tied to what the query names
  (the system or project it names; every record of that date when it names neither) and, for a meeting, whose
  notes' title writes the kind of meeting the query names.

The date a temporal question is asked *at* (its intent's ``date`` parameter: "which version was in effect on 10
July 2024?") names no record: it is a point in time, and what the answer needs (each version's effective date) is
a needed fact, stated by construction. It is not an anchor.

**Asides at the top grade.** A relevant document (grade >= 2) is an *aside* when every needed fact it states is
about something other than what the document is about (:mod:`hcrbench.synth.questions.grades`: its subject is the record it
writes up, else the first entity of its routing metadata). A policy signed "Sana Schneider, Director of
Engineering" states her job title in passing; an incident page mentioning "project Tundra, whose lead is Kofi
Weber" states the lead in passing. The generator grades asides 2 and subject pages 3, so an aside reaches a
query's top grade only when no page states a needed fact as its subject. Reported: the share of the judgments at
each query's top grade that are asides, and the share of all relevant judgments, over all queries and the test
split.

Queries without needed facts (out of distribution: they name what the world lacks on purpose) are not checked.
Both are reported with counts per query (``describe.json``: ``anchors``, ``asides``); the tests hold the anchors
at 0 and the asides at the top grade under :data:`ASIDES_TOP_MAX` on generated worlds.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hcrbench.data import iter_jsonl
from hcrbench.synth.corpus.meeting_refs import MEETING_KINDS
from hcrbench.synth.corpus.text import MONTHS
from hcrbench.synth.questions.grades import is_aside, subjects_from_files
from hcrbench.synth.questions.topics import ID_PATTERN, NameIndex, world_names

HUMAN_DATE = re.compile(r"\b(\d{1,2}) (" + "|".join(MONTHS) + r") (\d{4})\b")
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
#: World records written up by one document each, by the prefix of their ids.
RECORDS = {"MTG": "meetings", "INC": "tickets", "DEC": "decisions"}
#: The words a query names each kind of record by ("the retrospective of 26 May 2024"): a date picks among that kind.
RECORD_WORDS = {"MTG": ("meeting", *MEETING_KINDS), "INC": ("incident",), "DEC": ("decision",)}
#: What ties a record to the entities a query may name beside its date.
RECORD_LINKS = ("system", "project")
#: Categories whose names are shared on purpose.
SHARED_NAMES_OK = frozenset({"ambiguous"})
#: The most asides at the top grade, as a share of top-grade judgments, the design allows (the test split).
ASIDES_TOP_MAX = 0.05


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
                  records: Mapping[str, Mapping[str, Mapping[str, Any]]],
                  dated: Mapping[tuple[str, str], int]) -> dict[str, Any]:
    """One query's anchors and which of them fail: ``missing`` (not written in any document) and ``not_unique``
    (a name several entities share; an identifier the corpus never writes whose date, if the query gives one,
    several records of its kind share; a date that names a record which several records tied to what the query
    names share). ``records`` maps an id prefix (``MTG``) to its records by id."""
    text = str(meta.get("text", ""))
    ids = list(dict.fromkeys(ID_PATTERN.findall(text)))
    at = (meta.get("params") or {}).get("date")  # the point in time a temporal question is asked at: no anchor
    dates = [d for d in dates_in(text) if d != at]
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
        when = records[kind].get(x, {}).get("date")
        if when is None or when not in dates or dated[(kind, when)] > 1:
            not_unique.append(x)  # only its date could name it, and the query gives none or a shared one
    named = {e for n in written for e in names.by_name[n]}
    low = text.lower()
    said = {k for k, words in RECORD_WORDS.items() if any(x in low for x in words)} or set(records)
    kinds = [k for k in MEETING_KINDS if k in low]
    for d in dates:
        same = [r for k, recs in records.items() if k in said for r in recs.values() if r.get("date") == d]
        if not same or any(r["id"] in ids for r in same):
            continue  # the date names no record, or the query writes the id of the one it means (checked above)
        left = [r for r in same if any(r.get(f) in named for f in RECORD_LINKS)] or same
        if kinds:  # "the retrospective of ...": the meetings whose notes' title writes that kind
            left = [r for r in left if any(k in str(r.get("title", "")) for k in kinds)]
        if len(left) != 1:
            not_unique.append(d)
    return {"anchors": len(ids) + len(dates) + len(written), "missing": missing,
            "not_unique": list(dict.fromkeys(not_unique))}


def query_asides(meta: Mapping[str, Any], stated_in: Mapping[str, set[str]],
                 subjects: Mapping[str, str]) -> dict[str, int]:
    """Relevant judgments of one query, those at its top grade, and the asides among each (a document is an aside
    when no needed fact it states is about the document's subject: :func:`~hcrbench.synth.questions.grades.is_aside`)."""
    facts = set(meta.get("facts") or [])
    rel = {d: g for d, g in (meta.get("qrels") or {}).items() if g >= 2}
    top = max(rel.values(), default=0)
    out = {"relevant": len(rel), "top": 0, "asides": 0, "asides_top": 0}
    for d, g in rel.items():
        aside = is_aside(stated_in.get(d, set()) & facts, subjects.get(d, ""))
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
    titles: dict[str, str] = {}
    for _, obj in iter_jsonl(folder / "corpus.jsonl"):
        texts.append(str(obj.get("text", "")))
        titles[str(obj.get("_id"))] = str(obj.get("title", ""))
        rows.append((str(obj.get("_id")), list((obj.get("metadata") or {}).get("entities") or [])))
    corpus = CorpusAnchors(texts, names)
    records = {k: {r["id"]: {**r, "title": titles.get(f"MER-{r['doc']:06d}", "") if isinstance(r.get("doc"), int)
                               else ""} for r in world.get(kind, [])} for k, kind in RECORDS.items()}
    dated: Counter[tuple[str, str]] = Counter((k, r.get("date", "")) for k, recs in records.items()
                                              for r in recs.values())
    stated_in: dict[str, set[str]] = defaultdict(set)
    prov = folder / "provenance.jsonl"
    if prov.is_file():
        for _, row in iter_jsonl(prov):
            stated_in[row["doc_id"]].add(row["fact_id"])
    subjects = subjects_from_files(rows, world)

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
    top_test = _share(te["asides_top"], te["top"])
    props = [
        {"property": "queries relying on an identifier, date or name no document writes",
         "measured": {"queries": al["queries missing"], "anchors missing": al["missing"],
                      "anchors checked": al["anchors"], "test queries": te["queries missing"]},
         "target": "0 queries", "met": al["queries missing"] == 0},
        {"property": "queries whose identifier, date or name does not pick out one referent",
         "measured": {"queries": al["queries not unique"], "anchors": al["not_unique"],
                      "test queries": te["queries not unique"]},
         "target": "0 queries", "met": al["queries not unique"] == 0},
        {"property": "asides among top-grade relevant judgments (all; test)",
         "measured": [_share(al["asides_top"], al["top"]), top_test],
         "target": f"< {ASIDES_TOP_MAX:.0%} of the test split's", "met": top_test < ASIDES_TOP_MAX},
        {"property": "asides among relevant judgments (all; test)",
         "measured": [_share(al["asides"], al["relevant"]), _share(te["asides"], te["relevant"])],
         "target": "reported", "met": True},
    ]
    detail = {"anchors": {"counts": {k: dict(v) for k, v in tally.items()}, "queries": anchors},
              "asides": {"counts": {k: {x: v[x] for x in ("queries", "relevant", "top", "asides", "asides_top")}
                                    for k, v in tally.items()}, "queries": asides}}
    return props, detail
