"""Query generators, one family per category. Each takes the catalog (world + fact provenance), a private RNG and a
design difficulty, and returns a :class:`QueryPlan`, or ``None`` when the drawn entities cannot support the query
(a needed fact is stated nowhere, or the category's defining property fails: see :mod:`hcrbench.synth.questions.properties`).

A query is an intent evaluated over the world (``plan.intent`` + ``plan.params``): its words fix the complete set
of facts it needs (every incident of the system, every figure of the version, both sides of a comparison), and
its answer lists every one of them. Qrels are never chosen here; they are derived from the provenance.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hcrbench.synth.corpus.render_entities import qlabel
from hcrbench.synth.corpus.render_events import SEVERITY
from hcrbench.synth.corpus.text import amount, human_date, money
from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.questions.category import RegistryView
from hcrbench.synth.questions.entity import by_value, fact_line
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.facts import fact_value

SPANNING_MIN_DOCS = 10
MAX_RELEVANT = 100  # R@100 = 1 must be reachable: no query has more relevant documents than that
Gen = Callable[[Catalog, random.Random, str], "QueryPlan | None"]


def _q(c: Catalog, cat: str, diff: str, origin: str, text: str, answer: str | list[str], facts: list[str],
       ents: list[str], chain: bool = False, intent: str = "", **params) -> QueryPlan | None:
    if not facts or any(not c.stated(f) for f in facts):
        return None
    plan = QueryPlan(cat, diff, origin, text, answer, list(dict.fromkeys(facts)), list(dict.fromkeys(ents)), chain)
    plan.intent, plan.params = intent, params
    return plan


def _alt(r: random.Random, pol) -> str:
    return r.choice([t for t in lx.SYNONYMS[pol.concept] if t.lower() not in pol.title.lower()
                     and t.lower() != pol.term.lower()])


# ------------------------------------------------------------------------------------------- thematic
def thematic(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """How Meridian handles a topic (a policy's figures and owner, its history, a system's provision and
    administration, a project's purpose): facts stated across several documents, each named by the question."""
    w = c.w
    u = 0.0 if diff == "hard" else r.random()  # hard thematic queries are vocabulary-mismatch policy questions
    if u < 0.55:
        pol = c.pick(r, w.policies)
        p0, p1 = (x["name"] for x in pol.params[:2])
        if diff == "hard":  # vocabulary mismatch: the words cannot name a figure, so they ask for both
            who, whom = r.choice([("owner", "which group is in charge of them"), ("approver", "who signed them off")])
            if r.random() < 0.4:
                facts = [f"pol:{pol.id}:v2:param0", f"pol:{pol.id}:v2:param1", f"pol:{pol.id}:{who}"]
                text = f"For {_alt(r, pol)}, what two figures are in force today, and {whom}?"
                intent = f"policy_current_figures_and_{who}"
            else:
                facts = [f"pol:{pol.id}:v{v}:param{k}" for k in range(2) for v in range(3)] + [f"pol:{pol.id}:{who}"]
                text = f"Across every edition of the {_alt(r, pol)} arrangements, what were both figures, and {whom}?"
                intent = f"policy_history_and_{who}"
        elif r.random() < 0.6:
            facts = [f"pol:{pol.id}:v2:param0", f"pol:{pol.id}:v2:param1", f"pol:{pol.id}:owner"]
            text = {"easy": f"What are the {p0} and the {p1} in the current {pol.title}, and which team owns it?",
                    "medium": f"Under today's rules on {pol.term}, what are the {p0} and the {p1}, and which team "
                              "owns the policy?"}[diff]
            intent = "policy_current_figures_and_owner"
        else:
            k = r.randrange(2)
            prm = pol.params[k]
            facts = [f"pol:{pol.id}:v{v}:param{k}" for v in range(3)] + [f"pol:{pol.id}:approver"]
            text = {"easy": f"What {prm['name']} has each version of the {pol.title} set, and who approved the "
                            "policy?",
                    "medium": f"How has the {prm['name']} for {pol.term} moved from version 1 to version 3, and "
                              "who approved the policy?"}[diff]
            intent = "policy_figure_history_and_approver"
        return _q(c, "thematic", diff, "adversarial:vocabulary" if diff == "hard" else "template", text,
                  [fact_line(c, f) for f in facts], facts, [pol.id], intent=intent, policy=pol.id)
    if u < 0.8:
        sy = c.pick(r, w.systems)
        if sum(s.kind == sy.kind for s in w.systems) > 1 and diff != "easy":
            return None  # the question names the system by its kind, which must be unique
        if r.random() < 0.5:
            facts = [f"sys:{sy.id}:kind", f"sys:{sy.id}:vendor", f"sys:{sy.id}:owner", f"sys:{sy.id}:admin"]
            text = {"easy": f"What kind of system is {sy.name}, which vendor supplies it, which team owns it and "
                            "who administers it?",
                    "medium": f"What is Meridian's {sy.kind} called, who supplies it, which team owns it and who "
                              "is its administrator?",
                    "hard": f"Which firm makes the tool behind our {sy.kind}, and which team and which person look "
                            "after it?"}[diff]
            intent = "system_provision"
        else:
            facts = [f"sys:{sy.id}:owner", f"sys:{sy.id}:admin", f"sys:{sy.id}:users"]
            text = {"easy": f"Which team owns {sy.name}, who administers it and how many people use it?",
                    "medium": f"Which team and which administrator run Meridian's {sy.kind}, and how many "
                              "users does it have?",
                    "hard": f"Who keeps our {sy.kind} running (team and person), and how many people use it?"}[diff]
            intent = "system_operation"
        return _q(c, "thematic", diff, "template", text, [fact_line(c, f) for f in facts], facts, [sy.id],
                  intent=intent, system=sy.id)
    p = c.pick(r, c.projects)
    facts = [f"prj:{p.id}:goal", f"prj:{p.id}:lead", f"prj:{p.id}:budget"]
    text = {"easy": f"What is project {p.code_name} for, who leads it and what is its budget?",
            "medium": f"What is {p.code_name} trying to achieve, who is in charge of it and how much money was it "
                      "given?",
            "hard": f"Why does {p.code_name} exist, who is accountable for it and how much funding does it have?"}[diff]
    return _q(c, "thematic", diff, "template", text, [fact_line(c, f) for f in facts], facts, [p.id],
              intent="project_purpose", project=p.id)


# ------------------------------------------------------------------------------------------- detail / identifier
def detail(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """One identifier-bound fact."""
    w = c.w
    u = r.random()
    if u < 0.5:
        t = c.pick(r, c.core_tickets)
        sy = w.get(t["system"])
        if diff == "easy":
            text, fid = f"What was the root cause of {t['id']}?", f"tkt:{t['id']}:root_cause"
        elif diff == "medium":
            text, fid = f"How long did the disruption in {t['id']} last?", f"tkt:{t['id']}:duration"
        else:
            same = [x for x in w.tickets if x["system"] == t["system"] and x["date"] == t["date"]]
            if len(same) > 1:
                return None
            text = f"What caused the {sy.name} incident opened on {human_date(t['date'])}?"
            fid = f"tkt:{t['id']}:root_cause"
        ans = fact_value(w, fid) + (" minutes" if fid.endswith("duration") else "")
        # the question is about the ticket: its system is an expected entity only where the words name it
        return _q(c, "detail", diff, "template", text, ans, [fid], [t["id"]],
                  intent=fid.split(":")[2], ticket=t["id"])
    if u < 0.75:
        pol = c.pick(r, w.policies)
        v = r.randrange(3)
        if diff == "hard":
            k = r.randrange(2)
            fid = f"pol:{pol.id}:v{v}:param{k}"
            text = f"In version {v + 1} of {pol.id}, what is the {pol.params[k]['name']}?"
        elif diff == "easy":
            fid, text = f"pol:{pol.id}:v{v}:effective", f"When did version {v + 1} of {pol.id} take effect?"
        else:
            fid, text = f"pol:{pol.id}:approver", f"Who approved {pol.id}?"
        return _q(c, "detail", diff, "template", text, fact_value(w, fid), [fid], [pol.id],
                  intent="policy_" + fid.split(":")[-1].rstrip("0123456789"), fact=fid)
    dec = c.pick(r, c.core_decisions)
    if diff == "easy":
        text, fid = f"What did {dec['id']} decide?", f"dec:{dec['id']}:option"
    else:
        text, fid = f"What is the expected cost of decision {dec['id']}?", f"dec:{dec['id']}:cost"
    return _q(c, "detail", diff, "template", text, fact_value(w, fid), [fid], [dec["id"]],
              intent="decision_" + fid.split(":")[-1], decision=dec["id"])


# ------------------------------------------------------------------------------------------- comparative
def comparative(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Two sides that both exist (no false premise)."""
    w = c.w
    if diff != "medium":
        pol = c.pick(r, w.policies)
        k = r.randrange(2)
        prm = pol.params[k]
        if prm["values"][0] == prm["values"][2]:
            return None
        text = f"How did the {prm['name']} in {pol.id} change between version 1 and version 3?"
        if diff == "hard":  # the vocabulary-mismatch form cannot name the figure: it asks about both
            facts = [f"pol:{pol.id}:v{v}:param{j}" for j in range(2) for v in (0, 2)]
            text = f"Relative to the first edition, how did the {_alt(r, pol)} numbers move by the third?"
            ans = [f"{x['name']}: {amount(x['values'][0], x['unit'])} -> {amount(x['values'][2], x['unit'])}"
                   for x in pol.params[:2]]
        else:
            facts = [f"pol:{pol.id}:v0:param{k}", f"pol:{pol.id}:v2:param{k}"]
            ans = f"{amount(prm['values'][0], prm['unit'])} -> {amount(prm['values'][2], prm['unit'])}"
        return _q(c, "comparative", diff, "template" if diff == "easy" else "adversarial:vocabulary", text, ans,
                  facts, [pol.id], intent="policy_change_v1_v3", policy=pol.id)
    if r.random() < 0.6:
        a, b = c.sample(r, c.projects, 2)
        if a.budget_k == b.budget_k:
            return None
        win = a if a.budget_k > b.budget_k else b
        return _q(c, "comparative", diff, "world", f"Which project has the larger approved budget, {a.code_name} or "
                  f"{b.code_name}?", f"{win.code_name} ({money(win.budget_k)})",
                  [f"prj:{a.id}:budget", f"prj:{b.id}:budget"], [a.id, b.id], intent="larger_budget",
                  projects=[a.id, b.id])
    s1, s2 = c.sample(r, w.systems, 2)
    if s1.users == s2.users:
        return None
    win = s1 if s1.users > s2.users else s2
    return _q(c, "comparative", diff, "world", f"Which has more users, {s1.name} or {s2.name}?",
              f"{win.name} ({max(s1.users, s2.users)} users against {min(s1.users, s2.users)})",
              [f"sys:{s1.id}:users", f"sys:{s2.id}:users"], [s1.id, s2.id], intent="more_users",
              systems=[s1.id, s2.id])


# ------------------------------------------------------------------------------------------- aggregation
def _month(m: int) -> str:
    return human_date(f"2024-{m:02d}-01")[2:]


def aggregation(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """An exhaustive list, the exact answer of a world query named by the words (``plan.intent``)."""
    w = c.w
    if c.state.relaxed and r.random() < 0.5:  # the planner's last tries: anyone's meetings (see _attended)
        return _attended(c, r, diff, _world_list(c, "attendees", lambda: sorted(
            {a for m in w.meetings for a in m["attendees"]})))
    u = r.random()
    params: dict = {}
    if u < 0.12:
        team = c.pick(r, _world_list(c, "owner_teams", lambda: [w.get(t) for t in sorted({s.owner_team
                                                                                        for s in w.systems})]))
        owned = {s.id for s in w.systems if s.owner_team == team.id}
        items = _world_list(c, ("team_tickets", team.id), lambda: [t for t in w.tickets if t["system"] in owned])
        text = {"easy": f"List every incident on systems owned by the {team.name} team.",
                "medium": f"Which incidents were recorded on the systems the {team.name} team owns?",
                "hard": f"How often did the tools {team.name} owns break, and which tickets were raised?"}[diff]
        facts = [f for t in items for f in (f"tkt:{t['id']}:system", f"sys:{t['system']}:owner")]
        ent, intent, params = [team.id], "incidents_on_team_systems", {"team": team.id}
    elif u < 0.22:
        pid = c.pick(r, _world_list(c, "assignees", lambda: sorted({t["assignee"] for t in w.tickets})))
        items = _world_list(c, ("assigned_tickets", pid), lambda: [t for t in w.tickets if t["assignee"] == pid])
        name = w.get(pid).name
        text = {"easy": f"Which incidents were assigned to {name}?",
                "medium": f"List the tickets {name} handled as assignee.",
                "hard": f"Which incident tickets has {name} been on the hook for as assignee?"}[diff]
        facts, ent, intent, params = ([f"tkt:{t['id']}:assignee" for t in items], [pid], "incidents_assigned_to",
                                      {"person": pid})
    elif u < 0.45:
        sy = c.pick(r, w.systems)
        if diff == "hard" and sum(s.kind == sy.kind for s in w.systems) > 1:
            return None
        items = _world_list(c, ("system_tickets", sy.id), lambda: [t for t in w.tickets if t["system"] == sy.id])
        text = {"easy": f"List every incident recorded against {sy.name}.",
                "medium": f"Which incidents has {sy.name} had?",
                "hard": f"Give me the full incident history of our {sy.kind}."}[diff]
        facts, ent, intent, params = ([f"tkt:{t['id']}:system" for t in items], [sy.id], "incidents_on_system",
                                      {"system": sy.id})
    elif u < 0.6:
        months = _world_list(c, "ticket_months", lambda: sorted({int(t["date"][5:7]) for t in w.tickets}))
        a = r.choice(months)
        b = min(months[-1], a + r.randrange(0, 2))
        items = _world_list(c, ("month_tickets", a, b), lambda: [t for t in w.tickets
                                                                 if a <= int(t["date"][5:7]) <= b])
        ma, mb = _month(a), _month(b)
        if a == b:  # one month is no range: "from May 2024 to May 2024" is not how anyone asks
            text = {"easy": f"List all incidents opened in {ma}.", "medium": f"Which incident tickets were raised "
                    f"during {ma}?", "hard": f"Which outages were logged over the whole of {ma}?"}[diff]
        else:
            text = {"easy": f"List all incidents opened between the start of {ma} and the end of {mb}.",
                    "medium": f"Which incident tickets were raised from {ma} to {mb} inclusive?",
                    "hard": f"Which outages were logged from the first of {ma} to the last day of {mb}?"}[diff]
        facts, ent, intent, params = ([f"tkt:{t['id']}:date" for t in items], [], "incidents_opened_in_months",
                                      {"from_month": a, "to_month": b})
    elif u < 0.75:
        sev = r.choice([1, 2])
        months = _world_list(c, "ticket_months", lambda: sorted({int(t["date"][5:7]) for t in w.tickets}))
        a = r.choice(months)
        b = min(months[-1], a + r.randrange(1, 3))
        items = _world_list(c, ("severity_tickets", sev, a, b), lambda: [
            t for t in w.tickets if t["severity"] == sev and a <= int(t["date"][5:7]) <= b])
        ma, mb = _month(a), _month(b)
        label = SEVERITY[sev].split("(")[1].rstrip(")")
        if a == b:  # the year's last month: one month, not a range
            text = {"easy": f"List all severity {sev} incidents opened in {ma}.",
                    "medium": f"Which incidents opened during {ma} were rated severity {sev}?",
                    "hard": f"Which outages logged over the whole of {ma} were classed as {label} (severity "
                            f"{sev})?"}[diff]
        else:
            text = {"easy": f"List all severity {sev} incidents opened between the start of {ma} and the end of "
                            f"{mb}.",
                    "medium": f"Which incidents opened from {ma} to {mb} inclusive were rated severity {sev}?",
                    "hard": f"Which outages logged from the first of {ma} to the last day of {mb} were classed as "
                            f"{label} (severity {sev})?"}[diff]
        facts = [f for t in items for f in (f"tkt:{t['id']}:severity", f"tkt:{t['id']}:date")]
        ent, intent, params = [], "incidents_by_severity_in_months", {"severity": sev, "from_month": a,
                                                                     "to_month": b}
    else:
        return _attended(c, r, diff, _world_list(c, "key_people", lambda: [p for p in w.key_entities
                                                                          if p[1:].isdigit()]))
    if _over_cap(c, (intent, *params.values()), facts):
        return None
    plan = _q(c, "aggregation", diff, "world", text, [t["id"] for t in items], facts, ent, intent=intent, **params)
    return _wide(c, plan)


def _attended(c: Catalog, r: random.Random, diff: str, people: list[str]) -> QueryPlan | None:
    """Every meeting one person attended. Drawn from the key people; in the planner's last tries at a slot
    (``relaxed``) half the draws come from everyone who attended a meeting: a large world's incident lists
    (a month's, a team's) state more than 100 documents, and its systems and key people are few, so a
    3,000-query suite has more aggregation slots than they fill, while people with a dozen meetings are many."""
    w = c.w
    pid = c.pick(r, people)
    ms = _world_list(c, ("attended", pid), lambda: list(by_value(w, "meetings", "attendees", pid)))
    name = w.get(pid).name
    text = {"easy": f"Which meetings did {name} attend?", "medium": f"List all meeting notes where {name} was "
            f"present.", "hard": f"Which sessions has {name} sat in on, and for which projects?"}[diff]
    facts, ent = [f"mtg:{m['id']}:attendee:{pid}" for m in ms], [pid]
    if _over_cap(c, ("meetings_attended_by", pid), facts):
        return None
    plan = _q(c, "aggregation", diff, "world", text,
              [f"{w.get(m['project']).code_name} meeting, {human_date(m['date'])} ({m['id']})" for m in ms],
              facts, ent, intent="meetings_attended_by", person=pid)
    return _wide(c, plan)


def _over_cap(c: Catalog, key: tuple, facts: list[str]) -> bool:
    """True when ``facts`` (the list the world query ``key`` names) are stated in more than :data:`MAX_RELEVANT`
    documents, which the planner rejects: counted once per world query, so a large world's wide lists (a month's
    incidents) are turned down at once instead of built and counted at every draw."""
    got = c.cache.get(("over_cap", key))
    if got is None:
        got = c.cache[("over_cap", key)] = len(frozenset().union(*(c.docs_stating(f) for f in facts))) > MAX_RELEVANT
    return got  # type: ignore[return-value]


def _world_list(c: Catalog, key: object, make: Callable[[], list]) -> list:
    """A list computed from the world alone, once per catalog (the same object each time, so the catalog's memo
    of its usable items finds it again)."""
    got = c.cache.get(("world_list", key))
    if got is None:
        got = c.cache[("world_list", key)] = make()
    return got  # type: ignore[return-value]


def _wide(c: Catalog, plan: QueryPlan | None) -> QueryPlan | None:
    """Aggregations are exhaustive by design: more than ten documents, at least two items."""
    if plan is None or len(plan.answer) < 2 or \
            len(frozenset().union(*(c.docs_stating(f) for f in plan.facts))) <= SPANNING_MIN_DOCS:
        return None
    return plan


# ------------------------------------------------------------------------------------------- temporal
def temporal(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """As-of questions over quarterly reports and policy versions."""
    w = c.w
    if r.random() < 0.55:
        p = c.pick(r, c.projects)
        qi = r.randrange(3) if diff != "hard" else r.choice([0, 1])
        q = lx.QUARTERS[qi]
        text = {"easy": f"What was the status of project {p.code_name} at the end of {qlabel(q)}?",
                "medium": f"What status did {p.code_name}'s report for {qlabel(q)} give?",
                "hard": f"Before the latest report, what status had {p.code_name} reported for "
                        f"{'the first' if qi == 0 else 'the second'} quarter of 2024?"}[diff]
        return _q(c, "temporal", diff, "adversarial:snapshot" if diff == "hard" else "template", text, p.status[q],
                  [f"prj:{p.id}:status:{q}"], [p.id], intent="project_status_in_quarter", project=p.id, quarter=q)
    pol = c.pick(r, w.policies)
    k = r.randrange(3)
    y, m, dd = (int(x) for x in pol.effective[k].split("-"))
    date = f"{y}-{m:02d}-{min(28, dd + 3):02d}"
    if k < 2 and date >= pol.effective[k + 1]:
        return None
    facts = [f"pol:{pol.id}:v{k}:effective"] + ([f"pol:{pol.id}:v{k + 1}:effective"] if k < 2 else [])
    if diff == "easy":
        text, ans = f"Which version of {pol.id} was in effect on {human_date(date)}?", f"version {k + 1}"
        intent = "policy_version_on_date"
    elif diff == "medium":
        prm = pol.params[0]
        facts.append(f"pol:{pol.id}:v{k}:param0")
        text = f"What was the {prm['name']} under the {pol.title} on {human_date(date)}?"
        ans, intent = amount(prm["values"][k], prm["unit"]), "policy_figure_on_date"
    else:  # the vocabulary-mismatch form cannot name a figure: it asks for both
        facts += [f"pol:{pol.id}:v{k}:param0", f"pol:{pol.id}:v{k}:param1"]
        text = f"What did the {_alt(r, pol)} arrangements allow on {date}?"
        ans = [f"{x['name']}: {amount(x['values'][k], x['unit'])}" for x in pol.params[:2]]
        intent = "policy_figures_on_date"
    origin = "adversarial:vocabulary" if diff == "hard" else "template"
    return _q(c, "temporal", diff, origin, text, ans, facts, [pol.id], intent=intent, policy=pol.id, date=date)


# ------------------------------------------------------------------------------------------- ambiguous
AMBIGUOUS_GROUPS = [("leave", ["leave", "parental", "sick"]), ("review", ["review", "codereview", "access"]),
                    ("pay", ["bonus", "referral", "oncall"]), ("security", ["password", "device", "training"]),
                    ("money", ["expenses", "travel", "gifts"])]


#: The most people an ambiguous name may cover (a name more share is asked about within one team).
MAX_NAMESAKES = 8
#: What an ambiguous question about a shared name asks, by aspect and difficulty (``{x}``: the name).
NAME_ASPECTS = {
    "role": {"hard": "What does {x} do?", "medium": "What is {x}'s job at Meridian?",
             "easy": "Who is {x} at Meridian, and what is their job title?"},
    "location": {"hard": "Where is {x} based?", "medium": "Which office does {x} work from?",
                 "easy": "In which Meridian office is {x} based?"},
    "team": {"hard": "Which team is {x} in?", "medium": "What team does {x} belong to?",
             "easy": "Which Meridian team does {x} work in?"},
}


def ambiguous(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Two or more interpretations, complete over every matching entity, each with its own facts."""
    w = c.w
    if diff == "hard" or r.random() < 0.5:
        # a surname or a first name several people share, asked about one aspect (a bigger suite needs
        # more ambiguous questions than Meridian has surnames)
        part, aspect = (-1, "role") if r.random() < 0.5 else (r.choice([0, -1]), r.choice(list(NAME_ASPECTS)))
        key = ("ambiguous_names", part, aspect)
        if key not in c.cache:
            by_name: dict[str, list[str]] = {}
            for p in w.people[1:]:
                if c.stated(f"per:{p.id}:{aspect}"):
                    by_name.setdefault(p.name.split()[part], []).append(p.id)
            cands = []
            for k, v in sorted(by_name.items()):
                if 1 < len(v) <= MAX_NAMESAKES:
                    cands.append((k, v))
                elif len(v) > MAX_NAMESAKES and aspect != "team":  # a very large world: namesakes in one team
                    by_team: dict[str, list[str]] = {}
                    for pid in v:
                        by_team.setdefault(w.get(pid).team, []).append(pid)
                    cands += [(f"{k} from {w.get(t).name}", ps) for t, ps in sorted(by_team.items())
                              if 1 < len(ps) <= MAX_NAMESAKES]
            c.cache[key] = cands
        cands = c.cache[key]
        if not cands:
            return None
        last, pids = r.choice(cands)
        text = NAME_ASPECTS[aspect][diff].format(x=last)
        interp = [{"label": w.get(p).name, "answer": fact_value(w, f"per:{p}:{aspect}"),
                   "facts": [f"per:{p}:{aspect}"]} for p in pids]
        kind = "surname" if part else "first_name"
        intent, params = f"{aspect}_of_{kind}", {kind: last}
    else:
        word, concepts = r.choice(AMBIGUOUS_GROUPS)
        pols = [p for p in w.policies if p.concept in concepts]
        text = {"easy": f"What figures does the current {word} policy set?",
                "medium": f"What do the {word} rules allow today?"}[diff]
        interp = [{"label": p.title, "answer": "; ".join(f"{x['name']}: {amount(x['values'][2], x['unit'])}"
                                                         for x in p.params[:2]),
                   "facts": [f"pol:{p.id}:v2:param0", f"pol:{p.id}:v2:param1"]} for p in pols]
        intent, params = "current_figures_of_policy_group", {"word": word, "policies": [p.id for p in pols]}
    plan = _q(c, "ambiguous", diff, "adversarial:ambiguous", text, [f"{i['label']}: {i['answer']}" for i in interp],
              [f for i in interp for f in i["facts"]], [f.split(":")[1] for i in interp for f in i["facts"]],
              intent=intent, **params)
    if plan is not None:
        plan.interpretations = interp
    return plan


# ------------------------------------------------------------------------------------------- out of distribution
def out_of_distribution(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Mostly near-miss questions in the corpus's own vocabulary about things the world does not contain
    (a fourth policy version, a Q4 report, a decision number never issued); hard ones are absurd. Each is
    unanswerable by construction: ``intent`` and ``params`` name what the world lacks (every policy has three
    versions; the project is still running at the end of Q3, the last quarter any document reports, so no
    terminal status fixes its Q4 one; the decision number is above every decision's; incidents end in
    September), and ``tests/synth/test_ood.py`` re-checks it against ``world.json`` and the corpus."""
    w = c.w
    params: dict = {}
    if diff == "hard" and c.state.relaxed:  # the planner's last tries: the 16 absurd topics are all asked (a suite of
        # more than 1,300 queries has more hard slots than them), so a question about one of them in other words
        text, intent = r.choice(lx.OOD_FRAMES).format(x=r.choice(lx.OOD_THINGS)), "ood_absurd"
    elif diff == "hard":
        text, intent = r.choice(lx.OOD_TOPICS), "ood_absurd"
    else:
        u = r.random()
        if u < 0.3:
            pol = c.pick(r, w.policies)
            text, intent, params = f"When did version 4 of {pol.id} take effect?", "ood_policy_version", \
                {"policy": pol.id, "version": 4}
        elif u < 0.55:  # a project completed earlier would answer it ("completed"): only running ones
            running = [p for p in c.projects if "completed" not in p.status.values()]
            if not running:
                return None
            p = c.pick(r, running)
            text, intent, params = f"What was the status of project {p.code_name} at the end of Q4 2024?", \
                "ood_project_status_q4", {"project": p.id, "quarter": "2024-Q4"}
        elif u < 0.8:
            top = max(int(d["id"][4:]) for d in w.decisions)
            dec = f"DEC-{top + r.randint(50, 500):04d}"
            text, intent, params = f"What did {dec} decide?", "ood_decision", {"decision": dec}
        else:
            sy = c.pick(r, w.systems)
            month = r.choice(["November", "December"])
            text, intent, params = f"What caused the {sy.name} outage in {month} 2024?", "ood_outage", \
                {"system": sy.id, "month": month}
    plan = QueryPlan("out_of_distribution", diff, "adversarial:ood", text, "Not covered by the corpus.", [], [])
    plan.intent, plan.params = intent, params
    return plan


#: category -> (design count, generator): a view of the registry (:mod:`~hcrbench.synth.questions.category`), where each
#: category is declared (:mod:`~hcrbench.synth.questions.builtin`).
CATEGORIES = RegistryView(lambda cats: {c.name: (c.count, c.generate) for c in cats})
