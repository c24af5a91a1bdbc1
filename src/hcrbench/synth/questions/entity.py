"""Entity-spanning queries as intents over the world: the question names the aspects of one entity it asks about
("their role, the meetings they attended and the incidents assigned to them"), and the needed facts are every
world fact of those aspects (every meeting, every incident), never a sample. An aspect with nothing in it is not
asked; a question whose complete answer would be too long (more than :data:`MAX_FACTS` facts) is not drawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hcrbench.synth.corpus.text import human_date
from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import World
from hcrbench.synth.world_model.facts import fact_value, subject_name

ENTITY_MIN_FACTS = 6  # entity-spanning: at least six facts
MAX_FACTS = 40
SPANNING_DOCS = 11  # ... that need more than ten documents (the design's "spans >10 documents"; a small world may
# lack such entities for a split, and the planner's last try at a slot drops this target)
Aspect = tuple[str, Callable[[World, str], list[str]]]
_BY: list = [None, {}]  # [the world indexed, {(kind, field): {value: items in world order}}]


def by_value(w: World, kind: str, key: str, value: str) -> list:
    """The items of ``w``'s list ``kind`` whose ``key`` is ``value`` (or holds it, for a list field), in world order:
    an index built once per world (the aspects below were scans of every ticket or meeting per entity)."""
    if _BY[0] is not w:
        _BY[0], _BY[1] = w, {}
    idx = _BY[1].get((kind, key))
    if idx is None:
        idx = _BY[1][(kind, key)] = {}
        for x in getattr(w, kind):
            v = x[key] if isinstance(x, dict) else getattr(x, key)
            for one in dict.fromkeys(v) if isinstance(v, list) else (v,):
                idx.setdefault(one, []).append(x)
    return idx.get(value, [])


PERSON: dict[str, Aspect] = {
    "role": ("their job title", lambda w, p: [f"per:{p}:role"]),
    "team": ("their team", lambda w, p: [f"per:{p}:team"]),
    "location": ("where they are based", lambda w, p: [f"per:{p}:location"]),
    "manager": ("who they report to", lambda w, p: [f"per:{p}:manager"] if w.get(p).manager else []),
    "projects": ("the projects they lead", lambda w, p: [f"prj:{x.id}:lead" for x in by_value(w, "projects", "lead", p)]),
    "meetings": ("every meeting they attended",
                 lambda w, p: [f"mtg:{m['id']}:attendee:{p}" for m in by_value(w, "meetings", "attendees", p)]),
    "decisions": ("every decision they approved",
                  lambda w, p: [f"dec:{d['id']}:approver" for d in by_value(w, "decisions", "approver", p)]),
    "assigned": ("every incident assigned to them",
                 lambda w, p: [f"tkt:{t['id']}:assignee" for t in by_value(w, "tickets", "assignee", p)]),
    "reported": ("every incident they reported",
                 lambda w, p: [f"tkt:{t['id']}:reporter" for t in by_value(w, "tickets", "reporter", p)]),
    "systems": ("the systems they administer", lambda w, p: [f"sys:{s.id}:admin" for s in by_value(w, "systems", "admin", p)]),
    "policies": ("the policies they approved",
                 lambda w, p: [f"pol:{x.id}:approver" for x in by_value(w, "policies", "approver", p)]),
    "reports": ("the people who report to them",
                lambda w, p: [f"per:{q.id}:manager" for q in by_value(w, "people", "manager", p)]),
}
PROJECT: dict[str, Aspect] = {
    "lead": ("who leads it", lambda w, x: [f"prj:{x}:lead"]),
    "sponsor": ("who sponsors it", lambda w, x: [f"prj:{x}:sponsor"]),
    "budget": ("its budget", lambda w, x: [f"prj:{x}:budget"]),
    "goal": ("its goal", lambda w, x: [f"prj:{x}:goal"]),
    "product": ("the product it changes", lambda w, x: [f"prj:{x}:product"]),
    "status": ("its status at the end of each quarter of 2024",
               lambda w, x: [f"prj:{x}:status:{q}" for q in lx.QUARTERS]),
    "milestones": ("the milestone it reached in each quarter of 2024",
                   lambda w, x: [f"prj:{x}:milestone:{q}" for q in lx.QUARTERS]),
    "decisions": ("what every decision taken on it decided",
                  lambda w, x: [f"dec:{d['id']}:option" for d in by_value(w, "decisions", "project", x)]),
}
SYSTEM: dict[str, Aspect] = {
    "kind": ("what kind of system it is", lambda w, s: [f"sys:{s}:kind"]),
    "vendor": ("which vendor supplies it", lambda w, s: [f"sys:{s}:vendor"]),
    "owner": ("which team owns it", lambda w, s: [f"sys:{s}:owner"]),
    "admin": ("who administers it", lambda w, s: [f"sys:{s}:admin"]),
    "users": ("how many people use it", lambda w, s: [f"sys:{s}:users"]),
    "incidents": ("every incident recorded against it",
                  lambda w, s: [f"tkt:{t['id']}:system" for t in by_value(w, "tickets", "system", s)]),
    "review": ("how many accounts its access review removed", lambda w, s: [f"sys:{s}:removed"]),
}
PRODUCT: dict[str, Aspect] = {
    "description": ("what it is", lambda w, p: [f"prd:{p}:description"]),
    "version": ("its current version", lambda w, p: [f"prd:{p}:version"]),
    "manager": ("who its product manager is", lambda w, p: [f"prd:{p}:manager"]),
    "projects": ("every project that changes it",
                 lambda w, p: [f"prj:{x.id}:product" for x in by_value(w, "projects", "product", p)]),
}


def _kind(eid: str) -> dict[str, Aspect]:
    if eid.startswith("PRJ"):
        return PROJECT
    if eid.startswith("SYS"):
        return SYSTEM
    if eid.startswith("PRD"):
        return PRODUCT
    return PERSON


def _join(parts: list[str]) -> str:
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def fact_line(c: Catalog, fid: str) -> str:
    """A fact as a short answer line ("Emeka Tanaka, location: Lisbon")."""
    parts = fid.split(":")
    attr = " ".join(p for p in parts[2:] if not p.startswith("P0")).replace("param", "parameter ")
    if parts[0] == "pol" and "param" in fid:
        pol = c.w.get(parts[1])
        attr = f"version {int(parts[2][1:]) + 1} {pol.params[int(parts[3][5:])]['name']}"
    elif parts[0] == "pol" and len(parts) > 3 and parts[2][:1] == "v" and parts[2][1:].isdigit():
        attr = f"version {int(parts[2][1:]) + 1} {' '.join(parts[3:])}"  # "version 1 effective", not "v0 effective"
    if parts[0] == "mtg":
        m = by_value(c.w, "meetings", "id", parts[1])[0]
        return f"{c.w.get(parts[3]).name} attended the {c.w.get(m['project']).code_name} meeting of " \
               f"{human_date(m['date'])} ({m['id']})"
    return f"{subject_name(c.w, fid)}, {attr}: {fact_value(c.w, fid)}"


def doc_cover(c: Catalog, facts: list[str]) -> int:
    """How many documents a greedy cover of ``facts`` takes (each step: the document stating most uncovered
    facts), an estimate of how many documents an answer needs."""
    left = set(facts)
    by_doc: dict[int, set[str]] = {}
    for f in facts:
        for d in c.docs_stating(f):
            by_doc.setdefault(d, set()).add(f)
    n = 0
    order = sorted(by_doc)  # (max keeps the first of equals: the lowest document, as before)
    while left:
        d = max(order, key=lambda d: len(by_doc[d] & left))
        if not by_doc[d] & left:
            break
        left -= by_doc[d]
        n += 1
    return n


def _available(c: Catalog, eid: str) -> dict[str, tuple[str, list[str]]]:
    """The aspects of ``eid`` with facts, every one of them stated (computed once per catalog)."""
    key = ("spanning_aspects", eid)
    if key not in c.cache:
        avail = {}
        for name, (words, facts_of) in _kind(eid).items():
            facts = facts_of(c.w, eid)
            if facts and all(c.stated(f) for f in facts):
                avail[name] = (words, facts)
        c.cache[key] = avail
    return c.cache[key]  # type: ignore[return-value]


def _can_span(c: Catalog, eid: str) -> bool:
    """Whether ``eid``'s stated aspects together reach :data:`SPANNING_DOCS` documents (no question about it can
    otherwise)."""
    key = ("can_span", eid)
    if key not in c.cache:  # (the world's, computed once per entity)
        docs = {d for _, facts in _available(c, eid).values() for f in facts for d in c.docs_stating(f)}
        c.cache[key] = len(docs) >= SPANNING_DOCS
    return c.cache[key]  # type: ignore[return-value]


def _pool(c: Catalog, r: random.Random, diff: str) -> list[str]:
    """The entities a question of ``diff`` draws from, less those already found unable to reach the document
    target (unless the planner relaxed it): each is tried once, not once per draw."""
    if "spanning_pools" not in c.cache:
        w = c.w
        people = [p.id for p in w.people[1:] if c.profile(p.id) is not None]
        projects = [p.id for p in c.projects]
        c.cache["spanning_pools"] = {"easy": people + projects, "key": list(w.key_entities),
                                     "all": projects + people + [s.id for s in w.systems] + [p.id for p in w.products]}
    pools = c.cache["spanning_pools"]
    which = "easy" if diff == "easy" else "key" if r.random() < 0.5 else "all"
    pool = pools[which]
    narrow = c.cache.setdefault("spanning_narrow", set())
    if c.state.relaxed or not narrow:
        return pool
    size, less = c.cache.get(("spanning_pool_less_narrow", which), (-1, None))
    if size != len(narrow):  # (the set only grows: one list per size, so pick's memo finds the same list)
        less = [e for e in pool if e not in narrow] or pool
        c.cache[("spanning_pool_less_narrow", which)] = (len(narrow), less)
    return less


def entity_spanning(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Several named aspects of one entity, each answered completely from the world."""
    w = c.w
    eid = c.pick(r, _pool(c, r, diff))
    table = _kind(eid)
    avail = _available(c, eid)
    if len(avail) < 2:
        return None
    if not c.state.relaxed and not _can_span(c, eid):
        c.cache.setdefault("spanning_narrow", set()).add(eid)  # type: ignore[union-attr]
        return None
    names = sorted(avail)
    r.shuffle(names)
    k = r.randint(2, min(5, len(names)))
    chosen = names[:k]
    if table is PERSON and "role" in avail and "role" not in chosen:
        chosen = ["role", *chosen[:-1]]  # a summary of a person starts from their job title
    chosen = [n for n in table if n in chosen]  # the table's order
    facts = [f for n in chosen for f in avail[n][1]]
    if not ENTITY_MIN_FACTS <= len(facts) <= MAX_FACTS or (not c.state.relaxed and doc_cover(c, facts) < SPANNING_DOCS):
        return None
    aspects = _join([avail[n][0] for n in chosen])
    e = w.get(eid)
    if table is PERSON:
        first = e.name.split()[0]
        team = w.get(e.team).name
        same = [p for p in by_value(w, "people", "team", e.team) if p.name.split()[0] == first]
        text = {"easy": f"Summarise what Meridian's documents say about {e.name}: {aspects}.",
                "medium": f"For {e.name}, give {aspects}.",
                "hard": f"About {first} from {team}: {aspects}?" if len(same) == 1 else ""}[diff]
    elif table is PROJECT:
        text = {"easy": f"Summarise project {e.code_name}: {aspects}.",
                "medium": f"Give an overview of project {e.code_name}: {aspects}.",
                "hard": f"Before I join {e.code_name}, tell me {aspects}."}[diff]
    elif table is SYSTEM:
        unique = sum(s.kind == e.kind for s in w.systems) == 1
        text = {"easy": f"For {e.name}, give {aspects}.", "medium": f"About {e.name}: {aspects}?",
                "hard": f"For our {e.kind}, tell me {aspects}." if unique else ""}[diff]
    else:
        text = {"easy": f"For {e.name}, give {aspects}.", "medium": f"About the product {e.name}: {aspects}?",
                "hard": f"For our {e.description}, tell me {aspects}."}[diff]
    if not text:
        return None
    plan = QueryPlan("entity_spanning", diff, "world", text, [fact_line(c, f) for f in facts],
                     list(dict.fromkeys(facts)), [eid])
    plan.intent = {id(PERSON): "person", id(PROJECT): "project", id(SYSTEM): "system",
                   id(PRODUCT): "product"}[id(table)] + "_aspects"
    plan.params = {"entity": eid, "aspects": chosen}
    return plan
