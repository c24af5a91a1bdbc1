"""Passing mentions: a page names, without a fact, other entities of its own team that earlier pages wrote about.

Until 5.1 an entity's name occurred only in the pages about it and in the pages stating a fact about it, so a
question naming a project code name, a system, a ticket or a person had that name as its rarest word, and that
word occurred only in relevant documents far more often than in any real collection (the
``rarest word only in relevant`` row of ``describe``). On an intranet a name also occurs in passing: a status
page links its team's other projects, an incident page cites an earlier incident of the same system, a decision
record links earlier decisions of its project, a wiki page shows who last edited it.

Since generator 5.2 a document may end with such lines (:func:`mention_lines`):

- **what is named**: entities of the document's own team (the team of its subject: a project's team, a system's
  owner, a person's team, an incident's system's owner, a decision's or meeting's project's team): its projects
  (code names), systems, people and policies (titles), earlier incidents of the same system and earlier decisions
  of the same project (written before it and dated before it); never one of the document's own routing entities, never a name whose words speak of a
  subject the document is not about (:mod:`hcrbench.synth.corpus.subjects`);
- **only what earlier documents wrote about** (their routing metadata), so a grown world keeps every earlier
  document byte for byte;
- **identifiers** (tickets, decisions) only in a document whose own text already writes one, so the share of
  documents carrying an identifier stays the design's;
- **no fact**: "See also: ...", "Last edited by ..."; no key, so no provenance: such a page is not relevant to a
  question about the entity. What it names is listed in ``metadata.mentions``, not in ``metadata.entities`` (the
  routing entities: what the page is about), so it is not topical either (grade 1 in ``qrels-topical/`` stays
  "about a query entity by its routing metadata"); a judged negative is still checked to name no query entity in
  its text, so a mention page is never judged.

Near-duplicate clusters (which share their wording), threads and minutes (written as they are) and documents
whose routing metadata names a policy get none: the vocabulary-mismatch questions are all about policies, and
their relevant documents must not gain words ("page", "edited") a question can use.
"""

from __future__ import annotations

from typing import Any

from hcrbench.synth.corpus.subjects import OFF_SUBJECT, template_subjects
from hcrbench.synth.questions.grades import RECORD_DOCS
from hcrbench.synth.world_model.seeds import rng

#: how many earlier items of each pool a document may name (the most recent ones: a page links its neighbours)
RECENT = 6
SEE_ALSO = ("See also: {}.", "Related pages: {}.", "Linked pages: {}.", "Related: {}.")
EDITED = ("Last edited by {}.", "Page owner: {}.", "Last updated by {}.", "Maintained by {}.")
#: how a mention line starts (tests and readers find the lines by it)
MENTION_PREFIXES = tuple(t.split("{")[0] for t in SEE_ALSO + EDITED)


def _team(world: Any, eid: str) -> str | None:
    e = world.index.get(eid)
    if e is None:
        return None
    for attr in ("team", "owner_team"):
        if hasattr(e, attr):
            return getattr(e, attr)
    return e.id if hasattr(e, "department") else None


class MentionTracker:
    """Walks the specs in order; :meth:`take` gives a spec its mentions, then records what the spec is about."""

    def __init__(self, world: Any) -> None:
        self.w = world
        self.by_team: dict[str, dict[str, list[str]]] = {}
        self.incidents: dict[str, list[str]] = {}  # system -> earlier ticket ids
        self.decisions: dict[str, list[str]] = {}  # project -> earlier decision ids
        self.dates: dict[str, str] = {}  # ticket or decision id -> its date

    def _record(self, spec: Any) -> tuple[str, dict[str, Any] | None]:
        rec = RECORD_DOCS.get(spec.doc_type)
        if rec is not None and rec[1] in spec.ref:
            return rec[0], getattr(self.w, rec[0])[spec.ref[rec[1]]]
        return "", None

    def _home(self, spec: Any) -> str | None:
        kind, rec = self._record(spec)
        if rec is not None:
            owner = rec.get("system") if kind == "tickets" else rec.get("project")
            return _team(self.w, owner) if owner else None
        return _team(self.w, spec.entities[0]) if spec.entities else None

    def take(self, spec: Any) -> tuple[str, ...]:
        """The entity ids (and ticket/decision ids) ``spec`` may name in passing, then ``spec`` recorded."""
        out: list[str] = []
        if not spec.cluster and not any(hasattr(self.w.index.get(e), "concept") for e in spec.entities):
            kind, rec = self._record(spec)
            team = self._home(spec)
            pools = dict(self.by_team.get(team, {})) if team else {}
            if kind == "tickets":  # earlier in the schedule and dated before this one
                pools["incident"] = [i for i in self.incidents.get(rec["system"], []) if self.dates[i] < rec["date"]]
            elif kind == "decisions":
                pools["decision"] = [i for i in self.decisions.get(rec["project"], []) if self.dates[i] < rec["date"]]
            own = set(spec.entities) | ({rec["id"]} if rec else set())
            r = rng(self.w.seed, "mentions", spec.index)
            for k in sorted(pools):
                cands = [e for e in pools[k][-RECENT:] if e not in own]
                if cands and r.random() < 0.6:
                    out.append(r.choice(cands))
        self._add(spec)
        return tuple(out)

    def _add(self, spec: Any) -> None:
        kind, rec = self._record(spec)
        if rec is not None:
            self.dates[rec["id"]] = rec.get("date") or ""
        if kind == "tickets":
            _push(self.incidents.setdefault(rec["system"], []), rec["id"])
        elif kind == "decisions" and rec.get("project"):
            _push(self.decisions.setdefault(rec["project"], []), rec["id"])
        for eid in spec.entities:
            e = self.w.index.get(eid)
            team = _team(self.w, eid)
            if e is None or team is None or hasattr(e, "department"):
                continue
            pool = ("project" if hasattr(e, "code_name") else "system" if hasattr(e, "admin")
                    else "policy" if hasattr(e, "concept") else "person" if hasattr(e, "manager") and
                    hasattr(e, "email") else None)
            if pool is not None:
                _push(self.by_team.setdefault(team, {}).setdefault(pool, []), eid)


def _push(pool: list[str], eid: str) -> None:
    if eid in pool:
        pool.remove(eid)
    pool.append(eid)


def mention_lines(world: Any, spec: Any, text: str) -> tuple[list[str], list[str]]:
    """The lines ``spec``'s mentions add at the end of its text (``text``: what it writes so far) and the ids of
    what they name (``metadata.mentions``)."""
    from hcrbench.synth.checks.describe_lexical import identifiers

    if not spec.mentions:
        return [], []
    has_id = bool(identifiers(text))
    off = OFF_SUBJECT.get()
    links, people, named = [], [], []
    for eid in spec.mentions:
        e = world.index.get(eid)
        if e is None:  # a ticket or decision id
            if has_id:
                links.append(eid)
                named.append(eid)
            continue
        if hasattr(e, "email"):
            name = e.name
        elif hasattr(e, "code_name"):
            name = f"project {e.code_name}"
        elif hasattr(e, "concept"):
            name = e.title
        else:
            name = e.name
        if template_subjects(name) & off:
            continue
        if hasattr(e, "email"):
            if people:
                continue
            people.append(name)
        else:
            links.append(name)
        named.append(eid)
    r = rng(world.seed, "mention-lines", spec.index)
    out = []
    if links:
        out.append(r.choice(SEE_ALSO).format(", ".join(links)))
    if people:
        out.append(r.choice(EDITED).format(people[0]))
    return out, named
