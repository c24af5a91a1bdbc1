"""Template wording in a query set: repeated skeletons, degenerate ranges and pasted parameter names.

A query's **skeleton** is its text with what varies between instances of one template masked: dates (ISO dates,
month names with their day and year, quarters, years) become ``<date>``, identifier-like tokens (letters and
digits mixed: ``INC-21201``, ``HR-POL-026``) ``<id>``, other numbers ``<num>``, and capitalised words after the
first word (names: people, teams, systems, projects) ``<name>``; adjacent masks merge into one, and a list of
masks ("A, B and C", "A and B") becomes ``<list>``; the rest is lower-cased with its spacing normalised. A query
**repeats a skeleton** when another query of its group (a Meridian category; the whole set for a collection
without categories) has the same skeleton. Shares are of the group's queries.

A **degenerate range** names the same bound twice: "from September 2024 to September 2024", "between version 1
and version 1". A **pasted parameter name** is a code-style token a person would not type: ``snake_case``,
``camelCase`` (``docType``), a ``{placeholder}`` or ``<placeholder>``, ``%s``, ``key=value``. (A label pasted as plain words,
"What is the days to remove access", reads as ordinary words to a pattern and is not counted.)
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)")
DATES = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"
    rf"|\b(?:\d{{1,2}}(?:st|nd|rd|th)? (?:of )?)?{_MONTH}\b(?: \d{{1,2}}(?:st|nd|rd|th)?\b)?,?(?: \d{{4}}\b)?"
    r"|\bQ[1-4](?: \d{4})?\b|\b(?:19|20)\d{2}\b")
TOKEN = re.compile(r"\b[A-Za-z0-9]+(?:[-./][A-Za-z0-9]+)*\b")
NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")
NAME = re.compile(r"(?<=[\s(\"'/-])[A-Z][\w'&.-]*")
MASK = r"<(?:date|id|num|name|list)>"
_RUN = re.compile(rf"{MASK}(?:\s+(?:of\s+)?{MASK})+")  # "Aurora 3", "R. Castillo", "Harbor Registry"
_LIST = re.compile(rf"{MASK}(?:\s*,\s*{MASK})*,?\s+(?:and|or)\s+{MASK}")
_ANY = re.compile(MASK)

_BOUND = r"(?:the\s+(?:start|beginning|end|first|last)(?:\s+day)?\s+of\s+)?"
DEGENERATE = re.compile(
    rf"\b(?:from|between)\s+{_BOUND}(\w[\w ,./-]{{0,40}}?)\s+(?:to|and|until|till|through|thru)\s+{_BOUND}\1"
    r"(?=\s*(?:inclusive\b|[?.!,;:)]|$)|\s+[a-z])", re.IGNORECASE)
PASTED = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]{2,}[A-Z][a-z]+[A-Za-z]*\b|\{[^{}\s]*\}|<[a-z_]+>|%[sd]\b"
                    r"|\b\w+=\S+")


def skeleton(query: str) -> str:
    """The query with dates, identifiers, numbers and names masked (module docstring)."""
    s = " ".join(query.split())
    s = DATES.sub("<date>", s)
    s = TOKEN.sub(_identifier, s)
    s = NUMBER.sub("<num>", s)
    s = NAME.sub("<name>", s)
    s = _RUN.sub(lambda m: _ANY.findall(m.group())[0], s)
    s = _LIST.sub("<list>", s)
    return s.lower()


def _identifier(m: re.Match) -> str:
    t = m.group()
    return "<id>" if any(c.isdigit() for c in t) and any(c.isalpha() for c in t) else t


def degenerate_range(query: str) -> bool:
    """True when the query names a range whose two bounds are the same."""
    return DEGENERATE.search(" ".join(query.split())) is not None


def pasted_parameters(query: str) -> list[str]:
    """The code-style tokens of the query (module docstring); empty for wording a person would type."""
    # the skeleton's own masks never reach here: the raw text is searched
    return PASTED.findall(query)


def template_summary(queries: Mapping[str, str], groups: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Skeleton repeats, degenerate ranges and pasted names of ``queries`` (id -> text), per group
    (``groups``: id -> group; one group ``all`` when None) and over all queries.

    ``repeat_share``: share of queries whose skeleton another query of the group has; ``top_skeleton_share``:
    share of the group's queries in its most common skeleton; ``skeletons``: distinct skeletons."""
    by: dict[str, list[str]] = defaultdict(list)
    for qid in queries:
        by[groups.get(qid, "") if groups is not None else "all"].append(qid)
    skel = {q: skeleton(t) for q, t in queries.items()}
    per_group = {g: _group(ids, skel) for g, ids in sorted(by.items())}
    repeats = sum(r["repeating"] for r in per_group.values())
    degenerate = [q for q, t in queries.items() if degenerate_range(t)]
    pasted = {q: p for q, t in queries.items() if (p := pasted_parameters(t))}
    n = len(queries)
    return {
        "queries": n,
        "repeat_share": round(repeats / n, 3) if n else None,
        "by_group": per_group,
        "degenerate_ranges": len(degenerate),
        "degenerate_examples": [queries[q] for q in degenerate[:3]],
        "pasted_parameters": len(pasted),
        "pasted_examples": [queries[q] for q in list(pasted)[:3]],
    }


def _group(ids: Iterable[str], skel: Mapping[str, str]) -> dict[str, Any]:
    ids = list(ids)
    counts = Counter(skel[q] for q in ids)
    repeating = sum(k for k in counts.values() if k >= 2)
    top, top_n = counts.most_common(1)[0] if counts else ("", 0)
    n = len(ids)
    return {"queries": n, "repeating": repeating, "repeat_share": round(repeating / n, 3) if n else None,
            "skeletons": len(counts), "top_skeleton_share": round(top_n / n, 3) if n else None,
            "top_skeleton": top}


def meridian_templates(folder: str | Path) -> dict[str, Any]:
    """:func:`template_summary` of a Meridian folder's queries, grouped by category."""
    from hcrbench.data import iter_jsonl

    metas = [m for _, m in iter_jsonl(Path(folder) / "queries.meta.jsonl")]
    return template_summary({m["query_id"]: m["text"] for m in metas},
                            {m["query_id"]: m.get("category", "") for m in metas})


#: The most queries of a suite that may repeat a skeleton of their category. Real collections repeat none
#: (docs/meridian.md's meridian-lexical table); a generated suite asks each category's few intents many times
#: over, so some skeletons recur (an out-of-distribution question about a decision number never issued, an
#: ambiguous surname asked about one aspect): 0.06-0.17 measured on 5.1.0's suites, 0.65-0.67 on 4.3.0's.
MAX_REPEAT_SHARE = 0.25


def template_props(folder: Path) -> list[dict[str, Any]]:
    """``describe``'s rows: skeleton repeats (overall, bounded by :data:`MAX_REPEAT_SHARE`, and the worst
    category), degenerate ranges and pasted names (none wanted)."""
    s = meridian_templates(folder)
    worst = max(s["by_group"].items(), key=lambda kv: (kv[1]["repeat_share"] or 0, kv[0]), default=("-", {}))
    measured = {"all": s["repeat_share"], f"highest ({worst[0]})": worst[1].get("repeat_share")}
    return [
        {"property": "queries repeating a template skeleton of their category", "measured": measured,
         "target": f"<= {MAX_REPEAT_SHARE} of all queries", "met": (s["repeat_share"] or 0) <= MAX_REPEAT_SHARE},
        {"property": "degenerate ranges; pasted parameter names (queries)",
         "measured": [s["degenerate_ranges"], s["pasted_parameters"]], "target": "0; 0",
         "met": s["degenerate_ranges"] == 0 and s["pasted_parameters"] == 0},
    ]
