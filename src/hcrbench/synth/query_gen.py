"""Query generators, one family per category. Each takes the catalog, a private RNG and a difficulty, and returns a
:class:`QueryPlan` with exact evidence, or ``None`` when the drawn entities cannot support the query.

Difficulty is designed, not measured: easy queries reuse the document's words, medium ones paraphrase, hard ones
use a synonym the answering document never uses, skip the identifier, or point at the obvious-but-wrong branch.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hcrbench.synth import lexicon as lx
from hcrbench.synth.catalog import Catalog, QueryPlan
from hcrbench.synth.render_entities import qlabel
from hcrbench.synth.text import amount, human_date, money
from hcrbench.synth.world import CORE_PEOPLE, CORE_PROJECTS

SPANNING_MIN_DOCS = 10
Gen = Callable[[Catalog, random.Random, str], "QueryPlan | None"]


def _q(cat: str, diff: str, origin: str, text: str, answer: str, ev: list[tuple[int, str]], grades: dict[int, int],
       ents: list[str]) -> QueryPlan:
    for d, _ in ev:
        grades[d] = max(grades.get(d, 0), 2)
    return QueryPlan(cat, diff, origin, text, answer, ev, grades, [], ents)


def _alt(r: random.Random, pol) -> str:
    return r.choice([t for t in lx.SYNONYMS[pol.concept] if t.lower() not in pol.title.lower()
                     and t.lower() != pol.term.lower()])


def _related(c: Catalog, grades: dict[int, int], eid: str, cap: int = 30) -> None:
    for d in c.mentions(eid)[:cap]:
        grades.setdefault(d, 1)


def _core_ticket(c: Catalog, r: random.Random) -> dict:
    return r.choice(c.core_tickets)


def _profiled(c: Catalog, pid: str | None) -> bool:
    return pid is not None and c.profile(pid) is not None


# ------------------------------------------------------------------------------------------- thematic
def thematic(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    w = c.w
    if r.random() < 0.75:
        pol = r.choice(w.policies)
        d3 = c.policy_doc[(pol.id, 2)]
        text = {"easy": f"What are the main rules in Meridian's {pol.title}?",
                "medium": f"What limits apply to {pol.term} at Meridian right now?",
                "hard": f"How do {_alt(r, pol)} work here and what are the limits?"}[diff]
        ans = "; ".join(f"{p['name']}: {amount(p['values'][2], p['unit'])}" for p in pol.params)
        g = {c.policy_doc[(pol.id, 0)]: 1, c.policy_doc[(pol.id, 1)]: 1}
        q = _q("thematic", diff, "adversarial:vocabulary" if diff == "hard" else "template", text, ans,
               [(d3, "param0"), (d3, "param1")], {d3: 3, **g}, [pol.id])
        _related(c, q.grades, pol.id)
        return q
    sy = r.choice(w.systems)
    d = c.single[("system_overview", sy.id)]
    text = {"easy": f"What is {sy.name} and who supplies it?",
            "medium": f"Which vendor provides Meridian's {sy.kind}?",
            "hard": f"Who makes the tool behind our {sy.kind.split()[-1]} setup and how many staff use it?"}[diff]
    q = _q("thematic", diff, "template", text, f"{sy.name}: {sy.kind}, supplied by {sy.vendor} ({sy.users} users)",
           [(d, "kind"), (d, "vendor")], {d: 3}, [sy.id])
    return q


# ------------------------------------------------------------------------------------------- entity-spanning
def entity_spanning(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    w = c.w
    keys = w.key_entities
    if diff == "easy":
        eid = r.choice([p.id for p in w.people[1:CORE_PEOPLE] if _profiled(c, p.id)] +
                       [p.id for p in w.projects[:CORE_PROJECTS]])
    elif r.random() < 0.5:
        eid = r.choice(keys)
    else:
        eid = r.choice([p.id for p in w.projects[:CORE_PROJECTS]] +
                       [p.id for p in w.people[1:CORE_PEOPLE] if _profiled(c, p.id)])
    if len(c.mentions(eid)) <= SPANNING_MIN_DOCS:
        return None  # entity-spanning by design: the answer is spread over more than ten documents
    e = w.get(eid)
    name = c.display(eid)
    if eid[1:].isdigit():
        text = {"easy": f"Summarise everything {name} is involved in: projects, meetings, incidents and decisions.",
                "medium": f"What has {name} been working on across Meridian?",
                "hard": f"What is {name.split()[0]} from {w.get(e.team).name} involved in across the company?"}[diff]
        answer_doc = c.profile(eid)
    elif eid.startswith("PRJ"):
        text = {"easy": f"Summarise all documents about project {name}.",
                "medium": f"Give an overview of project {name}: people, status history, incidents and decisions.",
                "hard": f"Everything I need to know about {name} before joining it."}.get(diff, "")
        answer_doc = c.charter(eid)
    elif eid.startswith("SYS"):
        text = {"medium": f"Which incidents, policies and reviews involve {name}?",
                "hard": f"What is the history of our {e.kind}?"}.get(diff, "")
        answer_doc = c.single.get(("system_overview", eid))
    else:
        text = {"medium": f"Which projects, releases and documents involve {name}?",
                "hard": f"What is going on with our {e.description}?"}.get(diff, "")
        answer_doc = c.single.get(("product_spec", eid))
    docs = c.mentions(eid)
    if not text or not docs:
        return None
    ev = [(d, k) for d in docs for k in ("@@head", "@" + eid)]
    grades = {d: 2 for d in docs}
    if answer_doc is not None:
        grades[answer_doc] = 3
    return _q("entity_spanning", diff, "world", text, f"{name} appears in {len(docs)} documents.", ev, grades, [eid])


# ------------------------------------------------------------------------------------------- detail / identifier
def detail(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    w = c.w
    u = r.random()
    if u < 0.5:
        t = _core_ticket(c, r)
        sy, d = w.get(t["system"]), t["doc"]
        if diff == "easy":
            text, key, ans = f"What was the root cause of {t['id']}?", "root_cause", lx.ROOT_CAUSES[t["root_cause"]]
        elif diff == "medium":
            text, key, ans = f"How long did the disruption in {t['id']} last?", "duration", f"{t['duration_min']} minutes"
        else:
            same = [x for x in w.tickets if x["system"] == t["system"] and x["date"] == t["date"]]
            if len(same) > 1:
                return None
            text = f"What caused the {sy.name} problem on {human_date(t['date'])}?"
            key, ans = "root_cause", lx.ROOT_CAUSES[t["root_cause"]]
        g = {d: 3}
        for dd in c.by_type["ops_digest"]:
            if t["id"] in c.specs[dd].ref.get("incidents", []):
                g[dd] = 1
        ents = [t["id"], t["system"]] + ([t["project"]] if t["project"] else [])
        return _q("detail", diff, "template", text, ans, [(d, key)], g, ents)
    if u < 0.75:
        pol = r.choice(w.policies)
        v = r.randrange(3)
        d = c.policy_doc[(pol.id, v)]
        if diff == "hard":
            k = r.randrange(2)
            prm = pol.params[k]
            text = f"In version {v + 1} of {pol.id}, what is the figure for {prm['name'].split()[-1]}?"
            return _q("detail", diff, "template", text, amount(prm["values"][v], prm["unit"]), [(d, f"param{k}")],
                      {d: 3}, [pol.id])
        text = (f"When did version {v + 1} of {pol.id} take effect?" if diff == "easy"
                else f"Who approved {pol.id}, and in which role?")
        key, ans = ("effective", human_date(pol.effective[v])) if diff == "easy" else \
            ("approver", f"{w.get(pol.approver).name}, {w.get(pol.approver).role}")
        return _q("detail", diff, "template", text, ans, [(d, key)], {d: 3}, [pol.id])
    dec = r.choice(c.core_decisions)
    d = dec["doc"]
    if diff == "easy":
        from hcrbench.synth.render_events import DECISION_OPTIONS
        text, key, ans = f"What did {dec['id']} decide?", "decision", DECISION_OPTIONS[dec["option"]]
    else:
        text, key, ans = f"What is the expected cost of decision {dec['id']}?", "cost", money(dec["cost_k"])
    return _q("detail", diff, "template", text, ans, [(d, key)], {d: 3}, [dec["id"], dec["project"]])


# ------------------------------------------------------------------------------------------- multi-hop
def two_hop(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    w = c.w
    if diff == "easy" and r.random() < 0.5:
        per = w.people[r.randrange(17, CORE_PEOPLE)]
        d1, team = c.profile(per.id), w.get(per.team)
        if d1 is None or per.id in w.key_entities:
            return None
        d2 = c.single[("team_page", team.id)]
        return _q("two_hop", diff, "world", f"Who leads the team that {per.name} works in?", w.get(team.lead).name,
                  [(d1, "team"), (d2, "lead")], {d2: 3}, [per.id, team.id])
    if diff == "easy":
        sy = r.choice(w.systems)
        team = w.get(sy.owner_team)
        d1, d2 = c.single[("system_overview", sy.id)], c.single[("team_page", team.id)]
        return _q("two_hop", diff, "world", f"Who leads the team that owns {sy.name}?", w.get(team.lead).name,
                  [(d1, "owner"), (d2, "lead")], {d2: 3}, [sy.id, team.id])
    if diff == "medium" and r.random() < 0.5:
        per = w.people[r.randrange(17, CORE_PEOPLE)]
        d1 = c.profile(per.id)
        team = next((t for t in w.teams if t.lead == per.manager), None)
        if d1 is None or team is None:
            return None
        d2 = c.single[("team_page", team.id)]
        return _q("two_hop", diff, "world", f"Which team does {per.name}'s manager lead?", team.name,
                  [(d1, "manager"), (d2, "lead")], {d2: 3}, [per.id, team.id])
    if diff == "medium":
        p = w.projects[r.randrange(CORE_PROJECTS)]
        d1, d2 = c.charter(p.id), c.profile(p.lead)
        if d2 is None:
            return None
        lead = w.get(p.lead)
        return _q("two_hop", diff, "world", f"Where is the lead of project {p.code_name} based?", lead.location,
                  [(d1, "lead"), (d2, "location")], {d2: 3}, [p.id, lead.id])
    dec = r.choice(c.core_decisions)
    d2 = c.profile(dec["approver"])
    if d2 is None:
        return None
    appr = w.get(dec["approver"])
    return _q("two_hop", diff, "adversarial:wrong-branch", f"What is the job title of whoever signed off {dec['id']}?",
              f"{appr.name}: {appr.role}", [(dec["doc"], "approver"), (d2, "role")], {d2: 3},
              [dec["id"], dec["project"], appr.id])


def multi_hop(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    w = c.w
    if diff in ("easy", "medium") and r.random() < 0.5:
        per = w.people[r.randrange(17, CORE_PEOPLE)]
        d1 = c.profile(per.id)
        mgr = w.get(per.manager)
        d2 = c.profile(mgr.id)
        top = w.get(mgr.manager) if mgr.manager else None
        d3 = c.profile(top.id) if top else None
        if d1 is None or d2 is None or d3 is None or per.id in w.key_entities:
            return None
        text = (f"Where is the manager of {per.name}'s manager based?" if diff == "easy"
                else f"Two levels up from {per.name}, who is in charge and in which office?")
        return _q("multi_hop", diff, "world", text, f"{top.name}, {top.location}",
                  [(d1, "manager"), (d2, "manager"), (d3, "location")], {d3: 3}, [per.id, mgr.id, top.id])
    if diff in ("easy", "medium"):
        p = w.projects[r.randrange(CORE_PROJECTS)]
        lead = w.get(p.lead)
        d2, d3 = c.profile(lead.id), c.profile(lead.manager)
        if d2 is None or d3 is None:
            return None
        mgr = w.get(lead.manager)
        text = (f"Project {p.code_name}'s lead reports to someone: where is that manager based?" if diff == "easy"
                else f"In which city does the boss of the person running {p.code_name} work?")
        return _q("multi_hop", diff, "world", text, f"{mgr.name}, {mgr.location}",
                  [(c.charter(p.id), "lead"), (d2, "manager"), (d3, "location")], {d3: 3}, [p.id, lead.id, mgr.id])
    t = _core_ticket(c, r)
    sy = w.get(t["system"])
    adm = w.get(sy.admin)
    d3 = c.profile(adm.id)
    if d3 is None or adm.manager is None:
        return None
    return _q("multi_hop", diff, "adversarial:deep+shallow",
              f"Who does the primary administrator of the system hit by {t['id']} report to?",
              w.get(adm.manager).name,
              [(t["doc"], "summary"), (c.single[("system_overview", sy.id)], "admin"), (d3, "manager")], {d3: 3},
              [t["id"], sy.id, adm.id])


# ------------------------------------------------------------------------------------------- comparative
def comparative(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    w = c.w
    if diff != "medium":
        pol = r.choice(w.policies)
        k = r.randrange(2)
        prm = pol.params[k]
        if prm["values"][0] == prm["values"][2]:
            return None
        d1, d3 = c.policy_doc[(pol.id, 0)], c.policy_doc[(pol.id, 2)]
        text = (f"How did the {prm['name']} in {pol.id} change between version 1 and version 3?" if diff == "easy"
                else f"Compared with January, how has the {prm['name'].split()[-1]} rule for {_alt(r, pol)} moved?")
        ans = f"{amount(prm['values'][0], prm['unit'])} -> {amount(prm['values'][2], prm['unit'])}"
        return _q("comparative", diff, "template" if diff == "easy" else "adversarial:vocabulary", text, ans,
                  [(d1, f"param{k}"), (d3, f"param{k}")], {d1: 3, d3: 3, c.policy_doc[(pol.id, 1)]: 1}, [pol.id])
    if r.random() < 0.6:
        a, b = r.sample(w.projects[:CORE_PROJECTS], 2)
        if a.budget_k == b.budget_k:
            return None
        win = a if a.budget_k > b.budget_k else b
        da, db = c.charter(a.id), c.charter(b.id)
        return _q("comparative", diff, "world", f"Which project has the larger approved budget, {a.code_name} or "
                  f"{b.code_name}?", f"{win.code_name} ({money(win.budget_k)})", [(da, "budget"), (db, "budget")],
                  {da: 3, db: 3}, [a.id, b.id])
    s1, s2 = r.sample(w.systems[:6], 2)
    d1, d2 = c.sys_status[(s1.id, "2024-Q2")], c.sys_status[(s2.id, "2024-Q2")]
    return _q("comparative", diff, "world", f"Which had better availability in Q2 2024, {s1.name} or {s2.name}?",
              "see availability figures", [(d1, "uptime"), (d2, "uptime")], {d1: 3, d2: 3}, [s1.id, s2.id])


# ------------------------------------------------------------------------------------------- aggregation
def aggregation(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    w = c.w
    u = r.random()
    if u < 0.4:
        sy = r.choice(w.systems)
        docs = [t["doc"] for t in w.tickets if t["system"] == sy.id]
        text = {"easy": f"List every incident recorded against {sy.name}.",
                "medium": f"How many outages has {sy.name} had, and what were they?",
                "hard": f"Give me the full outage history of our {sy.kind}."}[diff]
        ev, ent, ans = [(d, "summary") for d in docs], [sy.id], f"{len(docs)} incidents"
    elif u < 0.6:
        a = r.randrange(1, 8)
        b = min(9, a + r.randrange(1, 4))
        docs = [t["doc"] for t in w.tickets if a <= int(t["date"][5:7]) <= b]
        ma, mb = (human_date(f"2024-{m:02d}-01")[2:] for m in (a, b))
        text = {"easy": f"List all incidents opened between {ma} and {mb}.",
                "medium": f"Which incident tickets were raised from {ma} to {mb}?",
                "hard": f"What went wrong operationally between {ma} and {mb}?"}[diff]
        ev, ent, ans = [(d, "assignee") for d in docs], [], f"{len(docs)} incidents"
    elif u < 0.75:
        sev = r.choice([1, 2])
        month = r.randrange(1, 10)
        docs = [t["doc"] for t in w.tickets if t["severity"] == sev and int(t["date"][5:7]) >= month]
        mname = human_date(f"2024-{month:02d}-01")
        text = {"easy": f"List all severity {sev} incidents since {mname}.",
                "medium": f"Which incidents since {mname} were rated severity {sev}?",
                "hard": f"How many {'critical' if sev == 1 else 'major'} outages have we had since {mname}, and "
                        f"which systems did they hit?"}[diff]
        ev, ent, ans = [(d, "severity") for d in docs], [], f"{len(docs)} incidents"
    elif u < 0.88:
        pid = r.choice([p for p in w.key_entities if p[1:].isdigit()])
        docs = [m["doc"] for m in w.meetings if pid in m["attendees"]]
        name = w.get(pid).name
        text = {"easy": f"Which meetings did {name} attend?", "medium": f"List all meeting notes where {name} was "
                f"present.", "hard": f"How many sessions has {name.split()[0]} sat in on, and for which projects?"}[diff]
        ev, ent, ans = [(d, "attendees") for d in docs], [pid], f"{len(docs)} meetings"
    else:
        pols = [p for p in w.policies if p.params[0]["values"][2] != p.params[0]["values"][1]
                or p.params[1]["values"][2] != p.params[1]["values"][1]]
        docs = [c.policy_doc[(p.id, 2)] for p in pols]
        text = {"easy": "Which policies changed a figure in version 3?",
                "medium": "List every policy whose third version changed a limit or allowance.",
                "hard": "What got stricter or more generous in the latest round of rule updates?"}[diff]
        ev, ent, ans = [(d, "change") for d in docs], [], ", ".join(p.id for p in pols)
    if len(docs) <= SPANNING_MIN_DOCS:
        return None  # exhaustive by design: more than ten documents
    return _q("aggregation", diff, "world", text, ans, ev, {d: 3 for d in docs}, ent)


# ------------------------------------------------------------------------------------------- temporal
def temporal(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
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
        d = c.status_doc[(p.id, q)]
        g = {c.status_doc[(p.id, x)]: 1 for x in lx.QUARTERS}
        g[d] = 3
        return _q("temporal", diff, "adversarial:snapshot" if diff == "hard" else "template", text, p.status[q],
                  [(d, "status")], g, [p.id])
    pol = r.choice(w.policies)
    k = r.randrange(3)
    start = pol.effective[k]
    y, m, dd = (int(x) for x in start.split("-"))
    date = f"{y}-{m:02d}-{min(28, dd + 3):02d}"
    d = c.policy_doc[(pol.id, k)]
    ev = [(d, "effective")]
    if k < 2:
        ev.append((c.policy_doc[(pol.id, k + 1)], "effective"))
    if diff == "easy":
        text, ans = f"Which version of {pol.id} was in effect on {human_date(date)}?", f"version {k + 1}"
    else:
        prm = pol.params[0]
        ev.append((d, "param0"))
        term = pol.title if diff == "medium" else _alt(r, pol)
        text = f"What was the {prm['name']} under the {term} rules on {human_date(date)}?"
        ans = amount(prm["values"][k], prm["unit"])
    g = {c.policy_doc[(pol.id, x)]: 1 for x in range(3)}
    g[d] = 3
    origin = "adversarial:vocabulary" if diff == "hard" else "template"
    return _q("temporal", diff, origin, text, ans, ev, g, [pol.id])


# ------------------------------------------------------------------------------------------- ambiguous
AMBIGUOUS_GROUPS = [("leave", ["leave", "parental", "sick"]), ("review", ["review", "codereview", "access"]),
                    ("pay", ["bonus", "referral", "oncall"]), ("security", ["password", "device", "training"]),
                    ("money", ["expenses", "travel", "gifts"])]


def ambiguous(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    w = c.w
    if diff == "hard" or r.random() < 0.5:
        by_last: dict[str, list[str]] = {}
        for (kind, pid), _ in c.single.items():
            if kind == "profile" and pid not in w.key_entities:
                by_last.setdefault(w.get(pid).name.split()[-1], []).append(pid)
        cands = sorted((k, v) for k, v in by_last.items() if len(v) > 1)
        if not cands:
            return None
        last, pids = r.choice(cands)
        text = {"hard": f"What does {last} do?", "medium": f"Which team is {last} in?",
                "easy": f"Who is {last} at Meridian?"}[diff]
        docs = [c.profile(p) for p in pids]
        return _q("ambiguous", diff, "adversarial:ambiguous", text,
                  "Ambiguous: " + "; ".join(f"{w.get(p).name} ({w.get(p).role})" for p in pids),
                  [(d, "role") for d in docs], {d: 3 for d in docs}, pids)
    word, concepts = r.choice(AMBIGUOUS_GROUPS)
    pols = [p for p in w.policies if p.concept in concepts]
    text = {"easy": f"What is the {word} policy?", "medium": f"What are the rules on {word}?"}[diff]
    docs = [c.policy_doc[(p.id, 2)] for p in pols]
    return _q("ambiguous", diff, "adversarial:ambiguous", text,
              "Ambiguous: " + "; ".join(p.title for p in pols), [(d, "param0") for d in docs],
              {d: 3 for d in docs}, [p.id for p in pols])


def out_of_distribution(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    text = r.choice(lx.OOD_TOPICS)
    return QueryPlan("out_of_distribution", diff, "adversarial:ood", text, "Not covered by the corpus.", [], {}, [], [])


# category -> (count, generator)
CATEGORIES: dict[str, tuple[int, Gen]] = {
    "thematic": (50, thematic), "entity_spanning": (55, entity_spanning), "detail": (50, detail),
    "two_hop": (35, two_hop), "multi_hop": (15, multi_hop), "comparative": (25, comparative),
    "aggregation": (20, aggregation), "temporal": (20, temporal), "ambiguous": (15, ambiguous),
    "out_of_distribution": (15, out_of_distribution),
}
