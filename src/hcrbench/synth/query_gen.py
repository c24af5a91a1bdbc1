"""Query generators, one family per category. Each takes the catalog (world + fact provenance), a private RNG and a
design difficulty, and returns a :class:`QueryPlan` defined by the facts it needs, or ``None`` when the drawn
entities cannot support the query (a needed fact is stated nowhere, or the category's defining property fails:
see :mod:`hcrbench.synth.properties`). Qrels are never chosen here; they are derived from the provenance.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hcrbench.synth import lexicon as lx
from hcrbench.synth.catalog import Catalog, QueryPlan
from hcrbench.synth.facts import fact_entities, fact_value, subject_name
from hcrbench.synth.render_entities import qlabel
from hcrbench.synth.text import amount, human_date, money
from hcrbench.synth.world import CORE_PEOPLE, CORE_PROJECTS

SPANNING_MIN_DOCS = 10
ENTITY_MIN_FACTS = 6  # entity-spanning: at least six facts, each needing its own document (up to eleven)
Gen = Callable[[Catalog, random.Random, str], "QueryPlan | None"]


def _q(c: Catalog, cat: str, diff: str, origin: str, text: str, answer: str | list[str], facts: list[str],
       ents: list[str], chain: bool = False) -> QueryPlan | None:
    if not facts or any(not c.stated(f) for f in facts):
        return None
    return QueryPlan(cat, diff, origin, text, answer, list(dict.fromkeys(facts)), list(dict.fromkeys(ents)), chain)


def _alt(r: random.Random, pol) -> str:
    return r.choice([t for t in lx.SYNONYMS[pol.concept] if t.lower() not in pol.title.lower()
                     and t.lower() != pol.term.lower()])


def _fact_line(c: Catalog, fid: str) -> str:
    """A fact as a short answer line ("Emeka Tanaka, location: Lisbon")."""
    parts = fid.split(":")
    attr = " ".join(p for p in parts[2:] if not p.startswith("P0")).replace("param", "parameter ")
    if parts[0] == "pol" and "param" in fid:
        pol = c.w.get(parts[1])
        attr = f"version {int(parts[2][1:]) + 1} {pol.params[int(parts[3][5:])]['name']}"
    if parts[0] == "mtg":
        m = next(x for x in c.w.meetings if x["id"] == parts[1])
        return f"attended the {c.w.get(m['project']).code_name} meeting of {human_date(m['date'])}"
    return f"{subject_name(c.w, fid)}, {attr}: {fact_value(c.w, fid)}"


# ------------------------------------------------------------------------------------------- thematic
def thematic(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """How Meridian handles a topic (rules and ownership of a policy, its history, a system, a project's purpose):
    facts stated across several documents, not a single-page lookup."""
    w = c.w
    u = 0.0 if diff == "hard" else r.random()  # hard thematic queries are vocabulary-mismatch policy questions
    if u < 0.55:
        pol = r.choice(w.policies)
        if r.random() < 0.6:
            facts = [f"pol:{pol.id}:v2:param0", f"pol:{pol.id}:v2:param1", f"pol:{pol.id}:owner"]
            text = {"easy": f"What are the main rules in Meridian's {pol.title}, and which team owns it?",
                    "medium": f"What limits apply to {pol.term} at Meridian right now, and who is responsible?",
                    "hard": f"How does Meridian handle {_alt(r, pol)}?"}[diff]
        else:
            k = r.randrange(2)
            prm = pol.params[k]
            facts = [f"pol:{pol.id}:v{v}:param{k}" for v in range(3)] + [f"pol:{pol.id}:approver"]
            text = {"easy": f"What has the {pol.title} set as the {prm['name']} over its versions, and who approves "
                            "it?",
                    "medium": f"What is the history of the {prm['name']} rule for {pol.term}?",
                    "hard": f"Have the {_alt(r, pol)} figures been revised over time?"}[diff]
        return _q(c, "thematic", diff, "adversarial:vocabulary" if diff == "hard" else "template", text,
                  [_fact_line(c, f) for f in facts], facts, [pol.id])
    if u < 0.8:
        sy = r.choice(w.systems)
        if r.random() < 0.5:
            facts = [f"sys:{sy.id}:kind", f"sys:{sy.id}:vendor", f"sys:{sy.id}:owner", f"sys:{sy.id}:admin"]
            text = {"easy": f"What is {sy.name}, who supplies it and who runs it?",
                    "medium": f"How is Meridian's {sy.kind} provided and administered?",
                    "hard": f"Who makes the tool behind our {sy.kind.split()[-1]} setup and who looks after it?"}[diff]
        else:
            facts = [f"sys:{sy.id}:owner", f"sys:{sy.id}:admin", f"sys:{sy.id}:users"]
            text = {"easy": f"Who owns and administers {sy.name}, and how many people use it?",
                    "medium": f"How is {sy.name} run, and by whom?",
                    "hard": f"Who keeps our {sy.kind} running and how widely is it used?"}[diff]
        return _q(c, "thematic", diff, "template", text, [_fact_line(c, f) for f in facts], facts, [sy.id])
    p = w.projects[r.randrange(CORE_PROJECTS)]
    facts = [f"prj:{p.id}:goal", f"prj:{p.id}:lead", f"prj:{p.id}:budget"]
    text = {"easy": f"What is project {p.code_name} for, who leads it and what is its budget?",
            "medium": f"What is {p.code_name} trying to achieve, and with what resources?",
            "hard": f"Why does {p.code_name} exist and who is accountable for it?"}[diff]
    return _q(c, "thematic", diff, "template", text, [_fact_line(c, f) for f in facts], facts, [p.id])


# ------------------------------------------------------------------------------------------- entity-spanning
def _entity_facts(c: Catalog, eid: str) -> dict[str, list[str]]:
    """Facts about ``eid`` stated somewhere, grouped by kind (``per:role``, ``mtg:attendee``, ``prj:lead`` ...)."""
    index = c.cache.get("entity_facts")
    if index is None:
        index = {}
        for fid in sorted(c.prov):
            for e in dict.fromkeys(fact_entities(fid, c.w)):
                index.setdefault(e, []).append(fid)
        c.cache["entity_facts"] = index
    groups: dict[str, list[str]] = {}
    for fid in index.get(eid, []):
        parts = fid.split(":")
        groups.setdefault(f"{parts[0]}:{parts[2]}", []).append(fid)
    return groups


def _spread(c: Catalog, eid: str) -> int:
    """How many of ``eid``'s facts can each need a document of its own (greedy, fewest documents first)."""
    cache = c.cache.setdefault("spread", {})
    if eid not in cache:
        facts = sorted((f for fs in _entity_facts(c, eid).values() for f in fs),
                       key=lambda f: (len(c.docs_stating(f)), f))
        covered: set[int] = set()
        n = 0
        for f in facts:
            ds = c.docs_stating(f)
            if not ds & covered:
                covered |= ds
                n += 1
        cache[eid] = n
    return cache[eid]


_ASPECT = {"mtg": "the meetings they attended", "dec": "the decisions they were part of", "prj": "their projects",
           "tkt": "the incidents they handled", "pol": "the policies they approve", "sys": "the systems they run",
           "team": "the team they lead"}


def _aspects(facts: list[str], pid: str) -> str:
    """What a person summary asks for, named after the facts it needs (so the question promises no more)."""
    out: list[str] = []
    for f in sorted(facts, key=lambda f: not f.startswith(f"per:{pid}:")):  # their own facts first
        kind, subject, attr = f.split(":")[:3]
        if kind == "per" and subject == pid:
            words = {"role": "their role", "team": "their team", "manager": "their manager"}.get(attr, f"their {attr}")
        elif kind == "per":
            words = "the people who report to them" if attr == "manager" else "their colleagues"
        else:
            words = _ASPECT.get(kind, "other documents that name them")
        if words not in out:
            out.append(words)
    return ", ".join(out[:-1]) + (" and " if len(out) > 1 else "") + out[-1]


def entity_spanning(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Facts about one entity spread over several kinds of document; the answer is the list of those facts."""
    w = c.w
    need = {"easy": ENTITY_MIN_FACTS, "medium": ENTITY_MIN_FACTS + 1, "hard": ENTITY_MIN_FACTS + 2}[diff]
    if diff == "easy":
        pool = ([p.id for p in w.people[1:CORE_PEOPLE] if c.profile(p.id) is not None] +
                [p.id for p in w.projects[:CORE_PROJECTS]])
    elif r.random() < 0.5:
        pool = list(w.key_entities)
    else:
        pool = ([p.id for p in w.projects[:CORE_PROJECTS]] +
                [p.id for p in w.people[1:CORE_PEOPLE] if c.profile(p.id) is not None])
    pool = [e for e in pool if _spread(c, e) >= need]  # only entities whose facts reach enough documents
    if not pool:
        return None
    eid = r.choice(pool)
    groups = _entity_facts(c, eid)
    if len(groups) < 3:
        return None
    # Facts spread over the entity's documents: each chosen fact is stated in documents no earlier choice covers,
    # so the answer needs more than ten documents (the design's "spans >10 documents"), from several branches.
    cands = [f for g in sorted(groups) for f in groups[g]]
    r.shuffle(cands)
    cands.sort(key=lambda f: len(c.docs_stating(f)))
    if eid[1:].isdigit():  # a person: their own role and team first, so a summary of them starts there
        own = [f for f in (f"per:{eid}:role", f"per:{eid}:team") if f in cands]
        cands = own + [f for f in cands if f not in own]
    facts: list[str] = []
    covered: set[int] = set()
    kinds: set[str] = set()
    for f in cands:
        ds = c.docs_stating(f)
        if ds & covered:
            continue
        facts.append(f)
        covered |= ds
        kinds.add(f.split(":")[0] + ":" + f.split(":")[2])
        if len(facts) > SPANNING_MIN_DOCS:
            break
    if len(facts) < need or len(kinds) < 2:
        return None
    facts.sort()
    name = c.display(eid)
    e = w.get(eid)
    if eid[1:].isdigit():
        text = {"easy": f"Summarise what Meridian's documents say about {name}: {_aspects(facts, eid)}.",
                "medium": f"What has {name} been working on across Meridian?",
                "hard": f"What is {name.split()[0]} from {w.get(e.team).name} involved in across the company?"}[diff]
    elif eid.startswith("PRJ"):
        text = {"easy": f"Summarise what is known about project {name}.",
                "medium": f"Give an overview of project {name}: people, status history, incidents and decisions.",
                "hard": f"Everything I need to know about {name} before joining it."}[diff]
    elif eid.startswith("SYS"):
        text = {"medium": f"Which incidents, policies and reviews involve {name}?",
                "hard": f"What is the history of our {e.kind}?"}.get(diff, "")
    else:
        text = {"medium": f"Which projects, releases and documents involve {name}?",
                "hard": f"What is going on with our {e.description}?"}.get(diff, "")
    if not text:
        return None
    return _q(c, "entity_spanning", diff, "world", text, [_fact_line(c, f) for f in facts], facts, [eid])


# ------------------------------------------------------------------------------------------- detail / identifier
def detail(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """One identifier-bound fact."""
    w = c.w
    u = r.random()
    if u < 0.5:
        t = r.choice(c.core_tickets)
        sy = w.get(t["system"])
        if diff == "easy":
            text, fid = f"What was the root cause of {t['id']}?", f"tkt:{t['id']}:root_cause"
        elif diff == "medium":
            text, fid = f"How long did the disruption in {t['id']} last?", f"tkt:{t['id']}:duration"
        else:
            same = [x for x in w.tickets if x["system"] == t["system"] and x["date"] == t["date"]]
            if len(same) > 1:
                return None
            text = f"What caused the {sy.name} problem on {human_date(t['date'])}?"
            fid = f"tkt:{t['id']}:root_cause"
        ans = fact_value(w, fid) + (" minutes" if fid.endswith("duration") else "")
        return _q(c, "detail", diff, "template", text, ans, [fid], [t["id"], t["system"]])
    if u < 0.75:
        pol = r.choice(w.policies)
        v = r.randrange(3)
        if diff == "hard":
            k = r.randrange(2)
            fid = f"pol:{pol.id}:v{v}:param{k}"
            text = f"In version {v + 1} of {pol.id}, what is the {pol.params[k]['name']}?"
        elif diff == "easy":
            fid, text = f"pol:{pol.id}:v{v}:effective", f"When did version {v + 1} of {pol.id} take effect?"
        else:
            fid, text = f"pol:{pol.id}:approver", f"Who approved {pol.id}?"
        return _q(c, "detail", diff, "template", text, fact_value(w, fid), [fid], [pol.id])
    dec = r.choice(c.core_decisions)
    if diff == "easy":
        text, fid = f"What did {dec['id']} decide?", f"dec:{dec['id']}:option"
    else:
        text, fid = f"What is the expected cost of decision {dec['id']}?", f"dec:{dec['id']}:cost"
    return _q(c, "detail", diff, "template", text, fact_value(w, fid), [fid], [dec["id"], dec["project"]])


# ------------------------------------------------------------------------------------------- multi-hop
def two_hop(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A two-fact chain; :mod:`properties` rejects it when one document states both hops."""
    w = c.w
    u = r.random()
    if diff == "easy" and u < 0.3:
        per = w.people[r.randrange(17, CORE_PEOPLE)]
        team = w.get(per.team)
        return _q(c, "two_hop", diff, "world", f"Who leads the team that {per.name} works in?",
                  w.get(team.lead).name, [f"per:{per.id}:team", f"team:{team.id}:lead"], [per.id, team.id], True)
    if diff == "easy" and u < 0.55:
        sy = r.choice(w.systems)
        team = w.get(sy.owner_team)
        return _q(c, "two_hop", diff, "world", f"Who leads the team that owns {sy.name}?", w.get(team.lead).name,
                  [f"sys:{sy.id}:owner", f"team:{team.id}:lead"], [sy.id, team.id], True)
    if diff == "easy" and u < 0.8:
        t = r.choice(c.core_tickets)
        sy = w.get(t["system"])
        return _q(c, "two_hop", diff, "world", f"Which team owns the system affected by {t['id']}?",
                  w.get(sy.owner_team).name, [f"tkt:{t['id']}:system", f"sys:{sy.id}:owner"], [t["id"], sy.id], True)
    if diff == "easy":
        p = w.projects[r.randrange(CORE_PROJECTS)]
        prd = w.get(p.product)
        return _q(c, "two_hop", diff, "world", f"Who is the product manager for the product that {p.code_name} "
                  "changes?", w.get(prd.manager).name, [f"prj:{p.id}:product", f"prd:{prd.id}:manager"],
                  [p.id, prd.id], True)
    if diff == "medium" and u < 0.35:
        per = w.people[r.randrange(17, CORE_PEOPLE)]
        team = next((t for t in w.teams if t.lead == per.manager), None)
        if team is None:
            return None
        return _q(c, "two_hop", diff, "world", f"Which team does {per.name}'s manager lead?", team.name,
                  [f"per:{per.id}:manager", f"team:{team.id}:lead"], [per.id, team.id], True)
    if diff == "medium" and u < 0.7:
        p = w.projects[r.randrange(CORE_PROJECTS)]
        lead = w.get(p.lead)
        return _q(c, "two_hop", diff, "world", f"Where is the lead of project {p.code_name} based?", lead.location,
                  [f"prj:{p.id}:lead", f"per:{lead.id}:location"], [p.id, lead.id], True)
    if diff == "medium":
        sy = r.choice(w.systems)
        adm = w.get(sy.admin)
        return _q(c, "two_hop", diff, "world", f"In which office does the primary administrator of {sy.name} work?",
                  adm.location, [f"sys:{sy.id}:admin", f"per:{adm.id}:location"], [sy.id, adm.id], True)
    if u < 0.5:
        t = r.choice(c.core_tickets)
        rep = w.get(t["reporter"])
        return _q(c, "two_hop", diff, "adversarial:wrong-branch", f"What is the job title of the person who reported "
                  f"{t['id']}?", rep.role, [f"tkt:{t['id']}:reporter", f"per:{rep.id}:role"], [t["id"], rep.id], True)
    dec = r.choice(c.core_decisions)
    appr = w.get(dec["approver"])
    return _q(c, "two_hop", diff, "adversarial:wrong-branch", f"What is the job title of whoever signed off {dec['id']}?",
              appr.role, [f"dec:{dec['id']}:approver", f"per:{appr.id}:role"], [dec["id"], dec["project"], appr.id],
              True)


def multi_hop(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A three-fact chain that no single document shortcuts."""
    w = c.w
    if diff in ("easy", "medium") and r.random() < 0.5:
        per = w.people[r.randrange(17, CORE_PEOPLE)]
        mgr = w.get(per.manager)
        if mgr.manager is None:
            return None
        top = w.get(mgr.manager)
        text = (f"Where is the manager of {per.name}'s manager based?" if diff == "easy"
                else f"Two levels up from {per.name}, who is in charge and in which office?")
        return _q(c, "multi_hop", diff, "world", text, f"{top.name}, {top.location}",
                  [f"per:{per.id}:manager", f"per:{mgr.id}:manager", f"per:{top.id}:location"],
                  [per.id, mgr.id, top.id], True)
    if diff in ("easy", "medium"):
        p = w.projects[r.randrange(CORE_PROJECTS)]
        lead = w.get(p.lead)
        mgr = w.get(lead.manager)
        text = (f"Project {p.code_name}'s lead reports to someone: where is that manager based?" if diff == "easy"
                else f"In which city does the boss of the person running {p.code_name} work?")
        return _q(c, "multi_hop", diff, "world", text, f"{mgr.name}, {mgr.location}",
                  [f"prj:{p.id}:lead", f"per:{lead.id}:manager", f"per:{mgr.id}:location"], [p.id, lead.id, mgr.id],
                  True)
    t = r.choice(c.core_tickets)
    sy = w.get(t["system"])
    adm = w.get(sy.admin)
    if r.random() < 0.5:
        team = w.get(sy.owner_team)
        return _q(c, "multi_hop", diff, "world", f"Who leads the team that owns the system hit by {t['id']}?",
                  w.get(team.lead).name, [f"tkt:{t['id']}:system", f"sys:{sy.id}:owner", f"team:{team.id}:lead"],
                  [t["id"], sy.id, team.id], True)
    if adm.manager is None:
        return None
    return _q(c, "multi_hop", diff, "adversarial:deep+shallow",
              f"Who does the primary administrator of the system hit by {t['id']} report to?",
              w.get(adm.manager).name, [f"tkt:{t['id']}:system", f"sys:{sy.id}:admin", f"per:{adm.id}:manager"],
              [t["id"], sy.id, adm.id], True)


# ------------------------------------------------------------------------------------------- comparative
def comparative(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Two sides that both exist (no false premise)."""
    w = c.w
    if diff != "medium":
        pol = r.choice(w.policies)
        k = r.randrange(2)
        prm = pol.params[k]
        if prm["values"][0] == prm["values"][2]:
            return None
        text = (f"How did the {prm['name']} in {pol.id} change between version 1 and version 3?" if diff == "easy"
                else f"Relative to the first edition, how did the {_alt(r, pol)} numbers move?")
        ans = f"{amount(prm['values'][0], prm['unit'])} -> {amount(prm['values'][2], prm['unit'])}"
        return _q(c, "comparative", diff, "template" if diff == "easy" else "adversarial:vocabulary", text, ans,
                  [f"pol:{pol.id}:v0:param{k}", f"pol:{pol.id}:v2:param{k}"], [pol.id])
    if r.random() < 0.6:
        a, b = r.sample(w.projects[:CORE_PROJECTS], 2)
        if a.budget_k == b.budget_k:
            return None
        win = a if a.budget_k > b.budget_k else b
        return _q(c, "comparative", diff, "world", f"Which project has the larger approved budget, {a.code_name} or "
                  f"{b.code_name}?", f"{win.code_name} ({money(win.budget_k)})",
                  [f"prj:{a.id}:budget", f"prj:{b.id}:budget"], [a.id, b.id])
    s1, s2 = r.sample(w.systems, 2)
    if s1.users == s2.users:
        return None
    win = s1 if s1.users > s2.users else s2
    return _q(c, "comparative", diff, "world", f"Which has more users, {s1.name} or {s2.name}?",
              f"{win.name} ({max(s1.users, s2.users)} users against {min(s1.users, s2.users)})",
              [f"sys:{s1.id}:users", f"sys:{s2.id}:users"], [s1.id, s2.id])


# ------------------------------------------------------------------------------------------- aggregation
def aggregation(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """An exhaustive list; the list is the answer."""
    w = c.w
    u = r.random()
    if u < 0.12:
        team = w.get(r.choice(sorted({s.owner_team for s in w.systems})))
        owned = {s.id for s in w.systems if s.owner_team == team.id}
        items = [t for t in w.tickets if t["system"] in owned]
        text = {"easy": f"List every incident on systems owned by the {team.name} team.",
                "medium": f"Which outages hit the systems that {team.name} looks after?",
                "hard": f"How often did the tools run by {team.name} break, and which tickets were raised?"}[diff]
        facts = [f for t in items for f in (f"tkt:{t['id']}:system", f"sys:{t['system']}:owner")]
        ent, ans = [team.id], [t["id"] for t in items]
    elif u < 0.22:
        pid = r.choice(sorted({t["assignee"] for t in w.tickets}))
        items = [t for t in w.tickets if t["assignee"] == pid]
        name = w.get(pid).name
        text = {"easy": f"Which incidents were assigned to {name}?",
                "medium": f"List the tickets {name} handled as assignee.",
                "hard": f"What outages has {name.split()[0]} {name.split()[-1][0]}. been on the hook for?"}[diff]
        facts, ent, ans = [f"tkt:{t['id']}:assignee" for t in items], [pid], [t["id"] for t in items]
    elif u < 0.45:
        sy = r.choice(w.systems)
        items = [t for t in w.tickets if t["system"] == sy.id]
        text = {"easy": f"List every incident recorded against {sy.name}.",
                "medium": f"Which outages has {sy.name} had?",
                "hard": f"Give me the full outage history of our {sy.kind}."}[diff]
        facts, ent, ans = [f"tkt:{t['id']}:system" for t in items], [sy.id], [t["id"] for t in items]
    elif u < 0.6:
        months = sorted({int(t["date"][5:7]) for t in w.tickets})
        a = r.choice(months)
        b = min(months[-1], a + r.randrange(1, 3))
        items = [t for t in w.tickets if a <= int(t["date"][5:7]) <= b]
        ma, mb = (human_date(f"2024-{m:02d}-01")[2:] for m in (a, b))
        text = {"easy": f"List all incidents opened between {ma} and {mb}.",
                "medium": f"Which incident tickets were raised from {ma} to {mb}?",
                "hard": f"What went wrong operationally between {ma} and {mb}?"}[diff]
        facts, ent, ans = [f"tkt:{t['id']}:date" for t in items], [], [t["id"] for t in items]
    elif u < 0.75:
        sev = r.choice([1, 2])
        months = sorted({int(t["date"][5:7]) for t in w.tickets})
        month = r.choice(months)
        items = [t for t in w.tickets if t["severity"] == sev and int(t["date"][5:7]) >= month]
        mname = human_date(f"2024-{month:02d}-01")
        text = {"easy": f"List all severity {sev} incidents since {mname}.",
                "medium": f"Which incidents since {mname} were rated severity {sev}?",
                "hard": f"Which {'critical' if sev == 1 else 'major'} outages have we had since {mname}?"}[diff]
        facts = [f for t in items for f in (f"tkt:{t['id']}:severity", f"tkt:{t['id']}:date")]
        ent, ans = [], [t["id"] for t in items]
    elif u < 0.88:
        pid = r.choice([p for p in w.key_entities if p[1:].isdigit()])
        items = [m for m in w.meetings if pid in m["attendees"]]
        name = w.get(pid).name
        text = {"easy": f"Which meetings did {name} attend?", "medium": f"List all meeting notes where {name} was "
                f"present.", "hard": f"Which sessions has {name.split()[0]} sat in on, and for which projects?"}[diff]
        facts, ent = [f"mtg:{m['id']}:attendee:{pid}" for m in items], [pid]
        ans = [f"{w.get(m['project']).code_name} meeting, {human_date(m['date'])}" for m in items]
    else:
        pols = [p for p in w.policies if any(x["values"][2] != x["values"][1] for x in p.params)]
        facts = [f"pol:{p.id}:v{v}:param{k}" for p in pols for k, x in enumerate(p.params)
                 if x["values"][2] != x["values"][1] for v in (1, 2)]
        text = {"easy": "Which policies changed a figure in version 3?",
                "medium": "List every policy whose third version changed a limit or allowance.",
                "hard": "What got stricter or more generous in the latest round of rule updates?"}[diff]
        ent, ans = [], [p.id for p in pols]
    plan = _q(c, "aggregation", diff, "world", text, ans, facts, ent)
    if plan is None or len({d for f in plan.facts for d in c.docs_stating(f)}) <= SPANNING_MIN_DOCS:
        return None  # exhaustive by design: more than ten documents
    return plan


# ------------------------------------------------------------------------------------------- temporal
def temporal(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """As-of questions over quarterly reports and policy versions."""
    w = c.w
    if r.random() < 0.55:
        p = w.projects[r.randrange(CORE_PROJECTS)]
        qi = r.randrange(3) if diff != "hard" else r.choice([0, 1])
        q = lx.QUARTERS[qi]
        month = ["February", "May", "August"][qi]
        text = {"easy": f"What was the status of project {p.code_name} at the end of {qlabel(q)}?",
                "medium": f"How was {p.code_name} doing in {month} 2024?",
                "hard": f"Before the latest report, what status had {p.code_name} reported in "
                        f"{'the first' if qi == 0 else 'the second'} quarter?"}[diff]
        return _q(c, "temporal", diff, "adversarial:snapshot" if diff == "hard" else "template", text, p.status[q],
                  [f"prj:{p.id}:status:{q}"], [p.id])
    pol = r.choice(w.policies)
    k = r.randrange(3)
    y, m, dd = (int(x) for x in pol.effective[k].split("-"))
    date = f"{y}-{m:02d}-{min(28, dd + 3):02d}"
    facts = [f"pol:{pol.id}:v{k}:effective"] + ([f"pol:{pol.id}:v{k + 1}:effective"] if k < 2 else [])
    if diff == "easy":
        text, ans = f"Which version of {pol.id} was in effect on {human_date(date)}?", f"version {k + 1}"
    else:
        prm = pol.params[0]
        facts.append(f"pol:{pol.id}:v{k}:param0")
        if diff == "medium":
            text = f"What was the {prm['name']} under the {pol.title} on {human_date(date)}?"
        else:
            text = f"What did the {_alt(r, pol)} rules allow on {date}?"
        ans = amount(prm["values"][k], prm["unit"])
    origin = "adversarial:vocabulary" if diff == "hard" else "template"
    return _q(c, "temporal", diff, origin, text, ans, facts, [pol.id])


# ------------------------------------------------------------------------------------------- ambiguous
AMBIGUOUS_GROUPS = [("leave", ["leave", "parental", "sick"]), ("review", ["review", "codereview", "access"]),
                    ("pay", ["bonus", "referral", "oncall"]), ("security", ["password", "device", "training"]),
                    ("money", ["expenses", "travel", "gifts"])]


def ambiguous(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Two or more interpretations, complete over every matching entity, each with its own facts."""
    w = c.w
    if diff == "hard" or r.random() < 0.5:
        by_last: dict[str, list[str]] = {}
        for p in w.people[1:]:
            if c.stated(f"per:{p.id}:role"):
                by_last.setdefault(p.name.split()[-1], []).append(p.id)
        cands = sorted((k, v) for k, v in by_last.items() if len(v) > 1)
        if not cands:
            return None
        last, pids = r.choice(cands)
        text = {"hard": f"What does {last} do?", "medium": f"What is {last}'s job at Meridian?",
                "easy": f"Who is {last} at Meridian?"}[diff]
        interp = [{"label": w.get(p).name, "answer": w.get(p).role, "facts": [f"per:{p}:role"]} for p in pids]
    else:
        word, concepts = r.choice(AMBIGUOUS_GROUPS)
        pols = [p for p in w.policies if p.concept in concepts]
        text = {"easy": f"What is the current {word} policy?", "medium": f"What are the rules on {word}?"}[diff]
        interp = [{"label": p.title, "answer": amount(p.params[0]["values"][2], p.params[0]["unit"]),
                   "facts": [f"pol:{p.id}:v2:param0"]} for p in pols]
    plan = _q(c, "ambiguous", diff, "adversarial:ambiguous", text, [f"{i['label']}: {i['answer']}" for i in interp],
              [f for i in interp for f in i["facts"]], [e for i in interp for f in i["facts"] for e in [f.split(":")[1]]])
    if plan is not None:
        plan.interpretations = interp
    return plan


# ------------------------------------------------------------------------------------------- out of distribution
def out_of_distribution(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Mostly near-miss questions in the corpus's own vocabulary about things the world does not contain
    (a fourth policy version, a Q4 report, a decision number never issued); hard ones are absurd."""
    w = c.w
    if diff == "hard":
        text = r.choice(lx.OOD_TOPICS)
    else:
        u = r.random()
        if u < 0.3:
            pol = r.choice(w.policies)
            text = f"When did version 4 of {pol.id} take effect?"
        elif u < 0.55:
            p = r.choice(w.projects[:CORE_PROJECTS])
            text = f"What was the status of project {p.code_name} at the end of Q4 2024?"
        elif u < 0.8:
            top = max(int(d["id"][4:]) for d in w.decisions)
            text = f"What did DEC-{top + r.randint(50, 500):04d} decide?"
        else:
            sy = r.choice(w.systems)
            text = f"What caused the {sy.name} outage in {r.choice(['November', 'December'])} 2024?"
    return QueryPlan("out_of_distribution", diff, "adversarial:ood", text, "Not covered by the corpus.", [], [])


# category -> (count, generator)
CATEGORIES: dict[str, tuple[int, Gen]] = {
    "thematic": (50, thematic), "entity_spanning": (55, entity_spanning), "detail": (50, detail),
    "two_hop": (35, two_hop), "multi_hop": (15, multi_hop), "comparative": (25, comparative),
    "aggregation": (20, aggregation), "temporal": (20, temporal), "ambiguous": (15, ambiguous),
    "out_of_distribution": (15, out_of_distribution),
}
