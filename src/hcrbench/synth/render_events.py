"""Renderers for events and communications: incident tickets, decision records, meeting notes, announcements,
team news, project updates, and the four near-duplicate clusters (same template, different facts)."""

from __future__ import annotations

import random
from datetime import date, timedelta

from hcrbench.synth import lexicon as lx
from hcrbench.synth.phrases_docs import POOLS
from hcrbench.synth.render_entities import Rendered, qlabel
from hcrbench.synth.seeds import rng
from hcrbench.synth.text import TextBuilder, amount, human_date, money, pick, vary
from hcrbench.synth.world import World

DECISION_OPTIONS = ["build the capability in-house", "buy a vendor product", "defer the work to the next half-year",
                    "extend the existing platform"]
SEVERITY = {1: "Severity 1 (critical)", 2: "Severity 2 (major)", 3: "Severity 3 (minor)"}


def _clock(start: int, minutes: int) -> str:
    t = start + minutes
    return f"{t // 60 % 24:02d}:{t % 60:02d}" + (" (next day)" if t >= 24 * 60 else "")


def _timeline(r: random.Random, t: dict, reporter: str, assignee: str) -> list[str]:
    """Timeline bullets whose first and last times are exactly the ticket's duration apart."""
    dur = t["duration_min"]
    start = r.randrange(6 * 60, 22 * 60) if r.random() < 0.8 else r.randrange(0, 24 * 60)
    a = r.randint(1, max(1, dur // 6))
    b = a + r.randint(1, max(1, dur // 6))
    c = b + max(1, int((dur - b) * r.uniform(0.3, 0.7)))
    steps = [(0, pick(r, ["First automated alert fired.", "Monitoring showed the first errors.",
                          "The first user complaint reached the service desk."])),
             (a, f"{reporter} opened {t['id']}."),
             (b, f"{assignee} acknowledged the ticket and started investigating."
              + (" A major incident was declared." if t["severity"] == 1 else "")),
             (c, pick(r, ["The probable cause was identified.", "The team confirmed the cause and agreed the fix.",
                          "A fix was prepared and tested."])),
             (dur, "Service was fully restored and monitoring returned to normal.")]
    return [f"{_clock(start, m)} {what}" for m, what in steps]


def render_incident(w: World, s, r: random.Random) -> Rendered:
    t = w.tickets[s.ref["ticket"]]
    sy = w.get(t["system"])
    rep, asg = w.get(t["reporter"]), w.get(t["assignee"])
    tb = TextBuilder()
    tb.line(f"Incident {t['id']}: {sy.name} {lx.SYMPTOM_LABELS[t['symptom']]}")
    tb.line(f"Severity: {SEVERITY[t['severity']]}", "severity")
    tb.line(f"Opened: {human_date(t['date'])} | Reporter: {rep.name} | Assignee: {asg.name}", "assignee")
    tb.heading("Summary")
    tb.para([(pick(r, ["On {d}, {sym} on {sys}.", "{sys} users reported that {sym} on {d}."],
                   d=human_date(t["date"]), sym=lx.SYMPTOMS[t["symptom"]], sys=sy.name), "summary"),
             (f"The disruption lasted {t['duration_min']} minutes before service was restored.", "duration")])
    tb.heading(r.choice(["Timeline", "Timeline (UTC)", "Sequence of events"]))
    tb.bullets(_timeline(r, t, rep.name, asg.name))
    tb.heading("Root cause")
    tb.para([(pick(r, ["The root cause was {c}.", "Investigation traced the problem to {c}."],
                   c=lx.ROOT_CAUSES[t["root_cause"]]), "root_cause")])
    tb.heading("Resolution")
    tb.para([(f"The {w.get(sy.owner_team).name} team, which owns {sy.name}, {lx.FIXES[t['fix']]}.", "fix"),
             pick(r, ["A postmortem was scheduled within the agreed deadline.",
                      "Follow-up actions are tracked in Tide Ticketing.",
                      "No customer data was affected."])])
    if t["project"]:
        p = w.get(t["project"])
        tb.heading("Project impact")
        tb.para([(f"The outage delayed testing for project {p.code_name}, led by {w.get(p.lead).name}.",
                  "project")])
    if "engineering" in s.domains:
        tb.heading("Engineering follow-up")
        tb.para(["A regression test now covers this failure mode, and the alert threshold was lowered."])
    return f"{t['id']} {sy.name} incident", tb


def render_decision(w: World, s, r: random.Random) -> Rendered:
    d = w.decisions[s.ref["decision"]]
    p, appr, own = w.get(d["project"]), w.get(d["approver"]), w.get(d["owner"])
    opt = DECISION_OPTIONS[d["option"]]
    tb = TextBuilder()
    tb.line(f"Decision record {d['id']}")
    tb.line(f"Date: {human_date(d['date'])} | Project: {p.code_name} | Status: approved")
    tb.heading("Context")
    tb.para([(f"Project {p.code_name} needed a way to {p.goal}.", "context"),
             pick(r, ["Several options were compared over two workshops.",
                      "The team weighed cost, time to deliver and operational risk."])])
    tb.heading("Decision")
    tb.para([(f"The team decided to {opt}.", "decision"),
             (f"The expected cost is {money(d['cost_k'])}.", "cost")])
    tb.heading("Options considered")
    tb.bullets([o[0].upper() + o[1:] + (" (chosen)" if k == d["option"] else "")
                for k, o in enumerate(DECISION_OPTIONS)])
    tb.heading("Approval")
    tb.para([(f"{appr.name} approved the decision; {own.name} owns its implementation.", "approver")])
    if "projects" in s.domains:
        tb.heading("Delivery impact")
        tb.para([(f"{own.name}, who leads {p.code_name}, will update its delivery plan and milestones before the "
                  "next steering meeting.", "delivery"), f"The {w.get(p.team).name} team carries most of the work."])
    if d["policy"]:
        pol = w.get(d["policy"])
        tb.heading("Policy considerations")
        tb.para([(f"The option was checked against {pol.id} ({pol.title}) and found compliant.", "policy")])
    tb.heading("Consequences")
    tb.bullets(["The delivery plan is updated to reflect this choice.",
                pick(r, ["Finance will adjust the forecast.", "Affected teams were informed.",
                         "The decision will be revisited in six months."])])
    return f"{d['id']}: {p.code_name} decides to {opt}", tb


MEETING_ACTIONS = ["update the risk log", "draft the test plan", "confirm vendor dates", "prepare the demo",
                   "book the next review", "circulate the budget view", "write up the open questions",
                   "check capacity with the platform team", "share the revised timeline",
                   "collect feedback from pilot users"]


def _short_names(names: list[str]) -> list[str]:
    """First names, or full names where two attendees share a first name."""
    firsts = [n.split()[0] for n in names]
    return [f if firsts.count(f) == 1 else n for f, n in zip(firsts, names, strict=True)]


def _later(iso: str, days: int) -> str:
    return human_date((date.fromisoformat(iso) + timedelta(days=days)).isoformat())


def render_meeting(w: World, s, r: random.Random) -> Rendered:
    m = w.meetings[s.ref["meeting"]]
    p, chair = w.get(m["project"]), w.get(m["chair"])
    tb = TextBuilder()
    kind = r.choice(["steering meeting", "weekly sync", "planning session", "retrospective"])
    tb.kind = f"meeting:{kind}"
    names = [w.get(a).name for a in m["attendees"]]
    short = _short_names(names)
    tb.line(f"{p.code_name} {kind}: notes from {human_date(m['date'])}")
    tb.line("Attendees: " + ", ".join(names), "attendees")
    gap = 7 if kind == "weekly sync" else 14 if kind == "planning session" else 28
    tb.line(f"Chair: {chair.name} | Next meeting: {_later(m['date'], gap)}")
    tb.heading(r.choice(["Discussion", "Discussion points", "What we covered"]))
    tb.para([(pick(r, ["The group reviewed progress on {c} against the plan.",
                       "{chair} opened with a recap of the last two weeks on {c}."], c=p.code_name,
                   chair=short[0]), "discussion"),
             pick(r, ["Most of the time went on the open risks.", "Testing capacity was the main concern.",
                      "The team agreed the scope is still right."])])
    pool = [x for x in POOLS["meeting.discussion"] if len(short) > 1 or "{b}" not in x]
    points = r.sample(pool, min(len(pool), max(3, min(5, len(short) + 1))))
    n = len(short)
    tb.bullets([vary(r, x).format(a=short[(k + 1) % n], b=short[(k + 2) % n if (k + 2) % n != (k + 1) % n else 0],
                         code=p.code_name, goal=p.goal) for k, x in enumerate(points)])
    if m["decision"]:
        tb.heading("Decisions")
        tb.para([(f"The meeting confirmed decision {m['decision']} and asked the owner to share the plan.",
                  "decision")])
    tb.heading(r.choice(["Actions", "Action items", "Follow-ups"]))
    due = _later(m["date"], 7)
    acts = [(f"{names[k % len(names)]}: {a} by {due}", f"action{k}")
            for k, a in enumerate(r.sample(MEETING_ACTIONS, m["actions"]))]
    tb.bullets(acts)
    return f"{p.code_name} {kind} {m['date']}", tb


def render_announcement(w: World, s, r: random.Random) -> Rendered:
    a = w.get(s.ref["author"])
    tb = TextBuilder()
    topic = s.ref["topic"]
    if topic == "policy":
        p, v = w.get(s.ref["policy"]), s.ref["version"]
        ident = f" ({p.id})" if r.random() < 0.4 else ""
        title = f"Reminder: {p.title.lower()} version {v + 1}"
        tb.line(title)
        tb.para([(f"From {human_date(p.effective[v])}, version {v + 1} of the {p.title}{ident} applies.", "headline"),
                 (f"The {p.params[0]['name']} is {amount(p.params[0]['values'][v], p.params[0]['unit'])}.", "param0"),
                 "Please read the full text before raising a request."])
    elif topic == "project":
        p = w.get(s.ref["project"])
        title = f"Update on project {p.code_name}"
        tb.line(title)
        tb.para([(f"Project {p.code_name} is making good progress and has a new demo ready.", "headline"),
                 (f"Thanks to {w.get(p.lead).name}, who leads {p.code_name}, and the team for the hard work.",
                  "lead"),
                 "Come and see it at the next all-hands."])
    elif topic == "system":
        sy = w.get(s.ref["system"])
        title = f"Planned maintenance for {sy.name}"
        tb.line(title)
        tb.para([(f"{sy.name} will be unavailable for two hours this Saturday for planned maintenance.", "headline"),
                 (f"The {w.get(sy.owner_team).name} team, which owns {sy.name}, will post updates on the status "
                  "page.", "owner")])
    else:
        p = w.get(s.ref["person"])
        title = f"Welcome and congratulations: {p.name}"
        tb.line(title)
        tb.para([(f"Please join me in congratulating {p.name} on the new role of {p.role}.", "headline"),
                 (f"{p.name.split()[0]} will continue to work with the {w.get(p.team).name} team.", "team")])
    tb.kind = f"announcement:{topic}"
    tb.close(None, [(f"{a.name}, {a.role}", "signature")], "lines")
    return title, tb


def render_team_news(w: World, s, r: random.Random) -> Rendered:
    t, p = w.get(s.ref["team"]), w.get(s.ref["project"])
    n = w.get(s.ref["person"]) if s.ref.get("person") else None
    tb = TextBuilder()
    tb.line(f"{t.name} newsletter")
    if n is not None:
        tb.heading("New faces")
        tb.para([(f"{n.name} joined Meridian on {human_date(n.joined)} as {n.role} in the {t.name} team.",
                  "newcomer")])
    tb.heading("What we are working on")
    tb.para([(f"The team is supporting project {p.code_name}, which aims to {p.goal}.", "project"),
             f"{w.get(t.lead).name} is the contact for anything related to our work."])
    return f"{t.name} newsletter", tb


def render_project_update(w: World, s, r: random.Random) -> Rendered:
    p = w.get(s.ref["project"])
    x = w.get(s.ref["extra"])
    tb = TextBuilder()
    tb.line(f"{p.code_name}: mid-quarter note")
    tb.para([(f"{p.code_name} is currently {p.status['2024-Q3']} heading towards {p.milestone['2024-Q3']}.",
              "status"),
             f"{x.name} joined the working group this month to help with testing.",
             pick(r, ["The next steering meeting will review the plan.", "No budget change is requested."])])
    if len(s.domains) > 1:
        prod = w.get(p.product)
        tb.heading("Product impact" if "products" in s.domains else "Engineering notes")
        tb.para([f"The work changes {prod.name}, and the {w.get(prod.team).name} team is reviewing the design."])
    return f"{p.code_name} mid-quarter note", tb


# ---------------------------------------------------------------- near-duplicate clusters (shared wording)


def render_access_review(w: World, s, r: random.Random) -> Rendered:
    sy = w.get(s.ref["system"])
    fr = rng(w.seed, "access_review", sy.id)
    n_acc, n_rev = fr.randrange(40, 900), fr.randrange(1, 25)
    tb = TextBuilder()
    tb.line(f"Quarterly access review: {sy.name} ({sy.id})")
    tb.line(f"Reviewer: {w.get(s.ref['auditor']).name} | Period: {qlabel('2024-Q2')}", "auditor")
    tb.heading("Scope")
    tb.para(["All active accounts with any level of access were included in the review.",
             "Privileged accounts were reviewed individually."])
    tb.heading("Findings")
    tb.para([(f"{n_acc} accounts were reviewed and {n_rev} were removed because the owner no longer needed access.",
              "findings"),
             "No privileged account was found without a named owner."])
    tb.heading("Follow-up")
    tb.para([f"The {w.get(sy.owner_team).name} team confirmed the removals within ten working days."])
    return f"Access review {sy.name} {qlabel('2024-Q2')}", tb


def render_onboarding(w: World, s, r: random.Random) -> Rendered:
    t = w.get(s.ref["team"])
    buddy = w.get(s.ref["buddy"])
    tb = TextBuilder()
    tb.line(f"Onboarding checklist: {t.name}")
    tb.heading("Week one")
    tb.bullets(["Collect your laptop and badge from the IT Service Desk.", "Complete the mandatory training.",
                (f"Meet your onboarding buddy, {buddy.name}.", "buddy")])
    tb.heading("Week two")
    tb.bullets(["Shadow a team ritual and take notes.", f"Have a one-to-one with {w.get(t.lead).name}.",
                "Read the team page and the last three decision records."])
    tb.heading("First month")
    tb.bullets(["Ship a small change or complete a first deliverable.", "Give feedback on this checklist."])
    return f"Onboarding checklist: {t.name}", tb


def render_release_notes(w: World, s, r: random.Random) -> Rendered:
    p = w.get(s.ref["product"])
    minor = s.ref.get("minor", 0)
    ver = f"{p.version}.{minor}"
    fr = rng(w.seed, "release", f"{p.id}|{minor}")
    feats = fr.sample(lx.PRODUCT_FEATURES, 2)
    tb = TextBuilder()
    tb.line(f"{p.name} release notes, version {ver}", "version")
    tb.heading("New")
    tb.bullets([(f"{feats[0][0].upper()}{feats[0][1:]} is now generally available.", "features")])
    tb.heading("Improved")
    tb.bullets([f"{feats[1][0].upper()}{feats[1][1:]} is faster and easier to configure."])
    tb.heading("Fixed")
    tb.bullets(["Several display issues in exported reports.", "A rare error when saving settings."])
    tb.close(None, [(f"Questions go to {w.get(p.manager).name}, product manager.", "manager")], "lines")
    return f"{p.name} {ver} release notes", tb


def render_ops_digest(w: World, s, r: random.Random) -> Rendered:
    tb = TextBuilder()
    monday = date.fromisoformat(s.ref["monday"])
    wk = monday.isocalendar()[1]
    tb.line(f"Operations weekly digest, week {wk} ({human_date(s.ref['monday'])} to "
            f"{human_date((monday + timedelta(days=6)).isoformat())})")
    tb.heading("Incidents this week")
    if s.ref["incidents"]:
        rows = []
        for iid in s.ref["incidents"]:
            t = next(x for x in w.tickets if x["id"] == iid)
            rows.append(([iid, w.get(t["system"]).name, f"Severity {t['severity']}", f"{t['duration_min']} min"],
                         f"row:{iid}"))
        tb.table(["Ticket", "System", "Severity", "Duration"], rows)
    else:
        tb.para(["No incidents were recorded this week."])
    tb.heading("Changes")
    tb.para(["Routine patching completed on schedule.", "No emergency changes were needed."])
    return f"Operations weekly digest, week {wk}", tb


RENDERERS = {
    "incident": render_incident, "decision": render_decision, "meeting": render_meeting,
    "announcement": render_announcement, "team_news": render_team_news, "project_update": render_project_update,
    "access_review": render_access_review, "onboarding": render_onboarding, "release_notes": render_release_notes,
    "ops_digest": render_ops_digest,
}
