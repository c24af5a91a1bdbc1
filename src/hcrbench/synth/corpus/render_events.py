"""Renderers for events and communications: incident tickets, decision records, meeting notes, announcements,
team news, project updates, and the four near-duplicate clusters (same template, different facts)."""

from __future__ import annotations

import random
from datetime import date, timedelta

from hcrbench.synth.corpus.meeting_refs import MEETING_KINDS, notes_heading
from hcrbench.synth.corpus.phrases_sections import POOLS
from hcrbench.synth.corpus.render_entities import GOOD_SCHEDULE_NEWS, LATE, Rendered, qlabel
from hcrbench.synth.corpus.render_phrases import R, head, tail
from hcrbench.synth.corpus.subjects import on_subject, sample_on
from hcrbench.synth.corpus.text import TextBuilder, amount, human_date, money, pick, vary
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import World
from hcrbench.synth.world_model.seeds import rng

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
    steps = [(0, pick(r, R["incident.first"])),
             (a, pick(r, R["incident.opened"], rep=reporter, id=t["id"])),
             (b, pick(r, R["incident.ack"], asg=assignee)
              + (" " + pick(r, R["incident.major"]) if t["severity"] == 1 else "")),
             (c, pick(r, R["incident.cause"])),
             (dur, pick(r, R["incident.restored"]))]
    return [f"{_clock(start, m)} {what}" for m, what in steps]


def render_incident(w: World, s, r: random.Random) -> Rendered:
    t = w.tickets[s.ref["ticket"]]
    sy = w.get(t["system"])
    rep, asg = w.get(t["reporter"]), w.get(t["assignee"])
    tb = TextBuilder()
    tb.line(f"Incident {t['id']}: {sy.name} {lx.SYMPTOM_LABELS[t['symptom']]}")
    sev, label = SEVERITY[t["severity"]][:-1].split(" (")
    tb.line(pick(r, R["incident.severity"], sev=sev, label=label), "severity")
    tb.line(f"Opened: {human_date(t['date'])} | Reporter: {rep.name} | Assignee: {asg.name}", "assignee")
    if t.get("escalated_to"):
        tb.line(pick(r, R["incident.escalated"], team=w.get(t["escalated_to"]).name), "~escalated")
    tb.heading(head(r, "Summary"))
    tb.para([(pick(r, R["incident.summary"], d=human_date(t["date"]), sym=lx.SYMPTOMS[t["symptom"]], sys=sy.name),
              "summary"),
             (pick(r, R["incident.duration"], n=t["duration_min"]), "duration")])
    tb.heading(r.choice(["Timeline", "Timeline (UTC)", "Sequence of events"]))
    tb.bullets(_timeline(r, t, rep.name, asg.name))
    tb.heading(head(r, "Root cause"))
    cause = t.get("cause") or lx.ROOT_CAUSES[t["root_cause"]]  # generator 4: specific to the incident
    tb.para([(pick(r, R["incident.root_cause"], c=cause), "root_cause")])
    tb.heading(head(r, "Resolution"))
    closers = sample_on(r, R["incident.closer"], r.randint(1, 2))
    tb.para([(pick(r, R["incident.fix"], team=w.get(sy.owner_team).name, sys=sy.name, fix=lx.FIXES[t["fix"]]),
              "fix"), *(pick(r, [c], sys=sy.name) for c in closers)])
    if t["project"]:
        p = w.get(t["project"])
        tb.heading(head(r, "Project impact"))
        tb.para([(pick(r, R["incident.project"], p=p.code_name, lead=w.get(p.lead).name), "project")])
    if "engineering" in s.domains:
        tb.heading(head(r, "Engineering follow-up"))
        tb.para([pick(r, R["incident.engineering"])])
    return f"{t['id']} {sy.name} incident", tb


def render_decision(w: World, s, r: random.Random) -> Rendered:
    d = w.decisions[s.ref["decision"]]
    p, appr, own = w.get(d["project"]), w.get(d["approver"]), w.get(d["owner"])
    opt = DECISION_OPTIONS[d["option"]]
    tb = TextBuilder()
    tb.line(f"Decision record {d['id']}")
    tb.line(pick(r, R["decision.header"], d=human_date(d["date"]), p=p.code_name))
    tb.heading(head(r, "Context"))
    tb.para([(pick(r, R["decision.context"], p=p.code_name, goal=p.goal), "context"),
             pick(r, R["decision.process"])])
    if d.get("reverses"):
        tb.para([(pick(r, R["decision.reverses"], prev=d["reverses"], reason=d["reason"]), "~reverses")])
    tb.heading(head(r, "Decision"))
    tb.para([(pick(r, R["decision.decision"], opt=opt), "decision"),
             (pick(r, R["decision.cost"], cost=money(d["cost_k"])), "cost")])
    tb.heading(head(r, "Options considered"))
    tb.bullets(_options(r, d["option"]))
    tb.heading(head(r, "Approval"))
    tb.para([(pick(r, R["decision.approver"], a=appr.name, o=own.name), "approver")])
    if "projects" in s.domains:
        tb.heading(head(r, "Delivery impact"))
        tb.para([(pick(r, R["decision.delivery"], o=own.name, p=p.code_name), "delivery"),
                 pick(r, R["decision.team"], team=w.get(p.team).name)])
    if d["policy"]:
        pol = w.get(d["policy"])
        tb.heading(head(r, "Policy considerations"))
        tb.para([(pick(r, R["decision.policy"], pol=f"{pol.id} ({pol.title})"), "policy")])
    tb.heading(head(r, "Consequences"))
    tb.bullets([pick(r, [c]) for c in sample_on(r, R["decision.consequence"], r.randint(2, 3))])
    return f"{d['id']}: {p.code_name} decides to {opt}", tb




def _options(r: random.Random, chosen: int) -> list[str]:
    """The options-considered bullets: the chosen option (marked) and three others, in a shuffled order."""
    alts = [o for k, o in enumerate(R["decision.alt_known"]) if k != chosen]
    extra = R["decision.alternative"]
    others = r.sample(alts, r.randint(1, 3))
    others += r.sample(extra, 3 - len(others))
    items = [pick(r, [o]) + tail(r, "decision.rejected") for o in others]
    c = DECISION_OPTIONS[chosen]
    items.insert(r.randrange(len(items) + 1), pick(r, R["decision.chosen"], o=c[0].upper() + c[1:]))
    return items


def _dated(title: str, ref: dict) -> str:
    """A title with its document's day (and, when a subject has several documents that day, their number)."""
    n = f" (no. {ref['n']})" if ref.get("n", 1) > 1 else ""
    return f"{title}, {human_date(ref['date'])}{n}"


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
    kind = r.choice(list(MEETING_KINDS))
    tb.kind = f"meeting:{kind}"
    names = [w.get(a).name for a in m["attendees"]]
    short = _short_names(names)
    tb.line(notes_heading(w, m, p.code_name, kind))
    tb.line(pick(r, R["meeting.attendees"], names=", ".join(names)), "attendees")
    gap = 7 if kind == "weekly sync" else 14 if kind == "planning session" else 28
    tb.line(pick(r, R["meeting.chair"], chair=chair.name, next=_later(m["date"], gap)))
    tb.heading(r.choice(["Discussion", "Discussion points", "What we covered"]))
    tb.para([(pick(r, R["meeting.discussion"], c=p.code_name, chair=short[0]), "discussion"),
             pick(r, R["meeting.mood"])])
    pool = on_subject([x for x in POOLS["meeting.discussion"] if len(short) > 1 or "{b}" not in x])
    points = r.sample(pool, min(len(pool), max(3, min(5, len(short) + 1))))
    n = len(short)
    # a point that names the project's goal states it (the project is in the notes' title)
    tb.bullets([(vary(r, x).format(a=short[(k + 1) % n], b=short[(k + 2) % n if (k + 2) % n != (k + 1) % n else 0],
                                   code=p.code_name, goal=p.goal), "goal" if "{goal}" in x else None)
                for k, x in enumerate(points)])
    if m["decision"]:
        tb.heading(head(r, "Decisions"))
        tb.para([(pick(r, R["meeting.decision"], d=m["decision"]), "decision")])
    tb.heading(r.choice(["Actions", "Action items", "Follow-ups"]))
    due = _later(m["date"], 7)
    form = r.choice(R["meeting.action_line"])
    acts = [(pick(r, [form], who=names[k % len(names)], what=vary(r, a), due=due), f"action{k}")
            for k, a in enumerate(sample_on(r, R["meeting.action"], m["actions"]))]
    tb.bullets(acts)
    n = f" (no. {s.ref['n']})" if s.ref.get("n", 1) > 1 else ""  # a second meeting that day (huge corpora)
    return f"{p.code_name} {kind} {m['date']}{n}", tb


class _MailHead(TextBuilder):
    """A builder whose first :meth:`line` (the announcement's title) is written as a mail's subject and sender."""

    def __init__(self, sender: str, day: str | None) -> None:
        super().__init__()
        self.sender, self.day = sender, day

    def line(self, s: str = "", key: str | None = None) -> None:
        if self.n == 0:
            super().line(f"Subject: {s}", key)
            sent = f" | Date: {human_date(self.day)}" if self.day else ""
            super().line(f"From: {self.sender} | To: All staff{sent}")
            super().line()
            return
        super().line(s, key)


def render_announcement(w: World, s, r: random.Random, mail: bool = False) -> Rendered:
    """An announcement page; with ``mail``, the same text sent as a mail (subject and sender lines, signature
    written directly under the body so replies can follow)."""
    a = w.get(s.ref["author"])
    tb = _MailHead(a.name, s.date) if mail else TextBuilder()
    topic = s.ref["topic"]
    if topic == "policy":
        p, v = w.get(s.ref["policy"]), s.ref["version"]
        ident = f" ({p.id})" if r.random() < 0.4 else ""
        title = f"Reminder: {p.title.lower()} version {v + 1}"
        title = _dated(title, s.ref)
        tb.line(title)
        tb.para([(f"From {human_date(p.effective[v])}, version {v + 1} of the {p.title}{ident} applies.", "headline"),
                 (f"The {p.params[0]['name']} is {amount(p.params[0]['values'][v], p.params[0]['unit'])}.", "param0"),
                 pick(r, R["announce.read"])])
    elif topic == "project":
        p = w.get(s.ref["project"])
        title = pick(r, R["announce.project_title"], p=p.code_name)
        title = _dated(title, s.ref)
        tb.line(title)
        tb.para([(pick(r, R["announce.project_news"], p=p.code_name), "headline"),
                 (pick(r, R["announce.thanks"], n=w.get(p.lead).name, p=p.code_name), "lead"),
                 pick(r, R["announce.demo"])])
    elif topic == "system":
        sy = w.get(s.ref["system"])
        title = pick(r, R["announce.maint_title"], sys=sy.name)
        title = _dated(title, s.ref)
        tb.line(title)
        tb.para([(pick(r, R["announce.maintenance"], sys=sy.name), "headline"),
                 (pick(r, R["announce.owner"], team=w.get(sy.owner_team).name, sys=sy.name), "owner"),
                 pick(r, R["announce.plan"])])
    elif topic == "farewell":  # a leaver's last day
        p = w.get(s.ref["person"])
        first = p.name.split()[0]
        title = _dated(pick(r, ["Farewell to {n}", "Goodbye and thank you, {n}", "{n} leaves Meridian"], n=p.name),
                       s.ref)
        tb.line(title)
        tb.para([(pick(r, ["{n}, {role} in the {team} team, leaves Meridian today.",
                            "Today is the last day at Meridian for {n}, our {role} in the {team} team."],
                       n=p.name, role=p.role, team=w.get(p.team).name), "headline"),
                 pick(r, ["Thank you, {f}, for everything you did here, and good luck.",
                          "We will miss {f}; please join us in wishing them well.",
                          "{f}'s work moves to colleagues in the team, who have been briefed."], f=first)])
    else:  # a promotion (one per person a year, one rung up the team's ladder)
        p = w.get(s.ref["person"])
        title = _dated(pick(r, ["Congratulations: {n}", "Promotion: {n}", "Good news: {n}", "Role change: {n}"],
                            n=p.name), s.ref)
        tb.line(title)
        tb.para([(pick(r, ["[Please join me in congratulating|Warm congratulations to|A big congratulations to] "
                           "{n}, promoted from {old} to {role}.",
                           "{n} [has been|is now] promoted from {old} to {role}[!|.]"],
                       n=p.name, old=p.promoted["from"], role=p.role), "headline"),
                 (pick(r, R["announce.team"], f=p.name.split()[0], team=w.get(p.team).name), "team")])
    tb.kind = f"announcement:{topic}"
    sig = (pick(r, R["announce.signature"], n=a.name, role=a.role), "signature")
    if mail:
        tb.line()
        tb.line(*sig)
    else:
        tb.close(None, [sig], "lines")
    return title, tb


def render_team_news(w: World, s, r: random.Random) -> Rendered:
    t, p = w.get(s.ref["team"]), w.get(s.ref["project"])
    n = w.get(s.ref["person"]) if s.ref.get("person") else None
    tb = TextBuilder()
    title = _dated(pick(r, R["news.title"], t=t.name), s.ref)
    tb.line(title)
    if n is not None:
        tb.heading(head(r, "New faces"))
        tb.para([(f"{n.name} joined Meridian on {human_date(n.joined)} as {n.role} in the {t.name} team.",
                  "newcomer")])
    tb.heading(head(r, "What we are working on"))
    tb.para([(pick(r, R["news.project"], p=p.code_name, goal=p.goal), "project"),
             pick(r, R["news.contact"], lead=w.get(t.lead).name)])
    return title, tb


def render_project_update(w: World, s, r: random.Random) -> Rendered:
    p = w.get(s.ref["project"])
    x = w.get(s.ref["extra"])
    tb = TextBuilder()
    title = _dated(pick(r, R["update.title"], p=p.code_name), s.ref)
    tb.line(title)
    line = "status.line_done" if p.status["2024-Q3"] == "completed" else "status.line"
    if p.status["2024-Q3"] in LATE:
        tb.avoid = GOOD_SCHEDULE_NEWS
    tb.para([(pick(r, R[line], c=p.code_name, status=p.status["2024-Q3"], ms=p.milestone["2024-Q3"]),
              "status"),
             pick(r, R["update.joined"], x=x.name), pick(r, R["update.next"])])
    if len(s.domains) > 1:
        prod = w.get(p.product)
        tb.heading("Product impact" if "products" in s.domains else "Engineering notes")
        tb.para([pick(r, R["update.product"], prod=prod.name, team=w.get(prod.team).name)])
    return title, tb


# ---------------------------------------------------------------- near-duplicate clusters (shared wording)


def render_access_review(w: World, s, r: random.Random) -> Rendered:
    sy = w.get(s.ref["system"])
    fr = rng(w.seed, "access_review", sy.id)
    n_acc = fr.randint(max(2, sy.users * 3 // 4), sy.users)  # accounts reviewed: at most the system's users
    n_rev = fr.randrange(1, min(25, n_acc))
    tb = TextBuilder()
    tb.line(f"Quarterly access review: {sy.name} ({sy.id})")
    tb.line(f"Reviewer: {w.get(s.ref['auditor']).name} | Period: {qlabel('2024-Q2')}", "auditor")
    tb.heading("Scope")
    tb.para([pick(r, R["access.scope"]), pick(r, R["access.privileged"])])
    tb.heading("Findings")
    tb.para([(f"{n_acc} accounts were reviewed and {n_rev} were removed because the owner no longer needed access.",
              "findings"),
             pick(r, R["access.owner"])])
    tb.heading("Follow-up")
    tb.para([pick(r, R["access.follow"], team=w.get(sy.owner_team).name)])
    return f"Access review {sy.name} {qlabel('2024-Q2')}", tb


def render_onboarding(w: World, s, r: random.Random) -> Rendered:
    t = w.get(s.ref["team"])
    buddy = w.get(s.ref["buddy"])
    tb = TextBuilder()
    tb.line(f"Onboarding checklist: {t.name}")
    tb.heading("Week one")
    tb.bullets([*(pick(r, [x]) for x in r.sample(R["onboard.week1"], 2)),
                (f"Meet your onboarding buddy, {buddy.name}.", "buddy")])
    tb.heading("Week two")
    tb.bullets([pick(r, [x]) for x in r.sample(R["onboard.week2"], 2)]
               + [f"Have a one-to-one with {w.get(t.lead).name}."])
    tb.heading("First month")
    tb.bullets([pick(r, [x]) for x in r.sample(R["onboard.month"], 2)])
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
    tb.bullets([(pick(r, R["release.new"], f=feats[0][0].upper() + feats[0][1:]), "features")])
    tb.heading("Improved")
    tb.bullets([pick(r, R["release.improved"], f=feats[1][0].upper() + feats[1][1:])])
    tb.heading("Fixed")
    tb.bullets([pick(r, [x]) for x in r.sample(R["release.fixed"], r.randint(2, 3))])
    tb.close(None, [(pick(r, R["release.questions"], m=w.get(p.manager).name), "manager")], "lines")
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
        tb.para([pick(r, R["digest.none"])])
    tb.heading("Changes")
    tb.para([pick(r, [x]) for x in R["digest.changes"][:2]] + ([pick(r, R["digest.changes"][2:])]
                                                              if r.random() < 0.5 else []))
    return f"Operations weekly digest, week {wk}", tb


RENDERERS = {
    "incident": render_incident, "decision": render_decision, "meeting": render_meeting,
    "announcement": render_announcement, "team_news": render_team_news, "project_update": render_project_update,
    "access_review": render_access_review, "onboarding": render_onboarding, "release_notes": render_release_notes,
    "ops_digest": render_ops_digest,
}
