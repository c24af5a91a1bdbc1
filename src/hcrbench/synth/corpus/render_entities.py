"""Renderers for entity pages: policies (v1-v3), project charters and quarterly status reports, IT systems,
people profiles, team pages, product specs and engineering process guides."""

from __future__ import annotations

import random
import re

from hcrbench.synth.corpus.filler import section
from hcrbench.synth.corpus.render_phrases import R, head, tail
from hcrbench.synth.corpus.subjects import sample_on
from hcrbench.synth.corpus.text import TextBuilder, amount, human_date, money, pick
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import World
from hcrbench.synth.world_model.schedule import DocSpec
from hcrbench.synth.world_model.seeds import rng

Rendered = tuple[str, TextBuilder]
LATE = ("at risk", "delayed", "on hold")  # statuses whose reports carry no good schedule news
GOOD_SCHEDULE_NEWS = re.compile(r"\b(?:on schedule|ahead of schedule|on time|on track|early)\b")


def qlabel(q: str) -> str:
    return f"{q[-2:]} {q[:4]}"


def render_policy(w: World, s: DocSpec, r: random.Random) -> Rendered:
    p = w.get(s.ref["policy"])
    v = s.ref["version"]
    owner, approver = w.get(p.owner_team), w.get(p.approver)
    word = p.title.split()[-1].lower()
    tb = TextBuilder()
    tb.ctx = {"word": word}
    tb.topic = "policy:finance" if owner.name == "Finance Operations" else f"policy:{p.domain}"
    stale = s.ref.get("stale")
    # a superseded copy keeps the page's older layout, which had no policy id
    tb.line(f"{p.title} | Version {v + 1}" if stale else f"{p.id} | {p.title} | Version {v + 1}")
    if stale:  # a superseded copy left on the intranet: it says so, but not what replaced it
        tb.line(pick(r, ["[Superseded copy|Old copy]: a newer version of this policy applies[; this copy is kept "
                         "for reference only.|. Check the policy index for the current text.]"]))
    tb.line(pick(r, ["Owner: {o} | Approved by: {a}, {t}", "Owning team: {o} | Sign-off: {a} ({t})",
                     "Owner: {o} | Approver: {a}, {t}"], o=owner.name, a=approver.name, t=approver.role), "approver")
    tb.line(f"Effective date: {human_date(p.effective[v])}", "effective")
    tb.heading(head(r, "Purpose"))
    tb.para([
        pick(r, R["policy.purpose"], word=word, term=p.term),
        pick(r, R["policy.applies"]),
    ])
    if r.random() < 0.6:
        section(tb, r, ["Scope", "Who this applies to", "Coverage"], "policy.scope", "para", r.randint(2, 3))
    if r.random() < 0.5:
        section(tb, r, ["Definitions", "Terms used in this document"], "policy.definitions", "bullets",
                r.randint(2, 4))
    tb.heading(r.choice(["Rules", "Provisions", "What the policy says", "Key terms"]))
    rules = []
    for k, prm in enumerate(p.params):
        val = amount(prm["values"][v], prm["unit"])
        rules.append((pick(r, ["The {name} is {val}.", "Under this version, the {name} is set at {val}.",
                               "The {name} is fixed at {val}."], name=prm["name"], val=val), f"param{k}"))
    rules.append(pick(r, R["policy.requests"]))
    tb.bullets(rules)
    if v > 0:
        changed = [(prm["name"], prm["values"][v - 1], prm["values"][v], prm["unit"]) for prm in p.params
                   if prm["values"][v] != prm["values"][v - 1]]
        tb.heading(head(r, "Changes in this version"))
        if changed:  # every changed figure is stated (keys change, change1, ...: facts.key_facts)
            n, a, b, u = changed[0]
            notes = [(f"Compared with version {v}, the {n} changed from {amount(a, u)} to {amount(b, u)}.", "change")]
            for j, (n, a, b, u) in enumerate(changed[1:], start=1):
                notes.append((f"The {n} also changed, from {amount(a, u)} to {amount(b, u)}.", f"change{j}"))
            tb.para(notes)
        else:
            tb.para([(f"Version {v + 1} only clarifies wording; the figures are the same as in version {v}.",
                      "change")])
    if "it" in s.domains or p.domain == "hr":
        sysm = w.get(s.ref["system"])
        tb.heading(head(r, "Systems and records"))
        tb.para([(pick(r, R["policy.system"], word=word, sys=sysm.name, team=w.get(sysm.owner_team).name),
                  "system")])
    if "compliance" in s.domains:
        tb.heading("Compliance")
        tb.para([pick(r, R["policy.compliance"], word=word), pick(r, R["policy.records"])])
    tb.close(r.choice(["Contacts", "Ownership", "Questions"]),
             [(pick(r, ["The {o} team owns this {word}; {a} is the accountable approver.",
                        "{a} signed this {word} off on behalf of the {o} team.",
                        "Questions go to the {o} team, which owns this {word}; {a} approved it."],
                    o=owner.name, a=approver.name, word=word), "owner")])
    return f"{p.title} ({p.id}) v{v + 1}" + (" (superseded copy)" if stale else ""), tb


def spend_to_date(seed: int, project: str) -> list[int]:
    """A project's spend to date at the end of each quarter, in percent of its budget: it never falls."""
    fr = rng(seed, "projspend", project)
    first = fr.randrange(8, 35)
    second = min(97, first + fr.randrange(8, 30))
    return [first, second, min(99, second + fr.randrange(3, 25))]


def _status_sentence(r: random.Random, code: str, status: str, q: str) -> str:
    return pick(r, ["Overall status for {q}: {code} is {status}.",
                    "At the end of {q}, {code} was reported as {status}.",
                    "{code} closed {q} {status}."], code=code, status=status, q=qlabel(q))


def render_project_status(w: World, s: DocSpec, r: random.Random) -> Rendered:
    p = w.get(s.ref["project"])
    q = s.ref["quarter"]
    lead = w.get(p.lead)
    fr = rng(w.seed, "projstat", f"{p.id}|{q}")
    spent = spend_to_date(w.seed, p.id)[lx.QUARTERS.index(q)]
    tb = TextBuilder()
    if p.status[q] in LATE:
        tb.avoid = GOOD_SCHEDULE_NEWS
    ident = f" ({p.id})" if fr.random() < 0.5 else ""
    tb.line(f"Project: {p.code_name}{ident}")
    tb.line(pick(r, R["status.period"], q=qlabel(q), end=lx.QUARTER_END[q]))
    tb.line(pick(r, R["status.lead"], n=lead.name), "lead")
    tb.heading(head(r, "Summary"))
    tb.para([(_status_sentence(r, p.code_name, p.status[q], q), "status"),
             (pick(r, R["status.milestone"], ms=p.milestone[q]), "milestone")])
    tb.heading(head(r, "Budget"))
    tb.para([(f"Spend to date is {spent}% of the approved budget of {money(p.budget_k)}.", "budget")])
    tb.heading(head(r, "Risks and issues"))
    risk = pick(fr, R["status.risk"])
    other = w.get(s.ref["extra"])
    done = p.status[q] == "completed"  # a finished project has no open risk and no next milestone
    if done:  # ... and no external dependencies section
        tb.kind = "project_status:done"
    tb.bullets([(pick(r, R["status.closed"]) if done else f"Top risk: {risk}.", "risk"),
                pick(r, R["status.closer" if done else "status.tracker"], x=other.name)])
    if len(s.domains) > 1:
        prod = w.get(p.product)
        tb.heading("Product impact" if "products" in s.domains else "Engineering notes")
        tb.para([(pick(r, R["status.product"], prod=prod.name, desc=prod.description), "product"),
                 pick(r, R["status.release"], team=w.get(prod.team).name)])
    tb.heading(head(r, "Next steps"))
    nxt = R["status.next_done" if done else "status.next"]
    tb.para([pick(r, [x]) for x in r.sample(nxt, min(len(nxt), r.randint(1, 2)))])
    return f"Project {p.code_name} status report, {qlabel(q)}", tb


def render_project_charter(w: World, s: DocSpec, r: random.Random) -> Rendered:
    p = w.get(s.ref["project"])
    lead, sponsor, team, prod = w.get(p.lead), w.get(p.sponsor), w.get(p.team), w.get(p.product)
    tb = TextBuilder()
    tb.line(f"Project charter: {p.code_name} ({p.id})")
    tb.heading(head(r, "Goal"))
    tb.para([(f"Project {p.code_name} exists to {p.goal}.", "goal"),
             pick(r, R["charter.goal_note"])])
    tb.heading(head(r, "People"))
    partners = ", ".join(w.get(t).name for t in p.partner_teams) or "none"
    tb.bullets([(pick(r, R["charter.lead"], n=lead.name, role=lead.role, team=team.name), "lead"),
                (pick(r, R["charter.sponsor"], n=sponsor.name), "sponsor"),
                (pick(r, R["charter.partners"], teams=partners), "partners")])
    tb.heading(head(r, "Scope and budget"))
    tb.para([(f"The approved budget for {p.code_name} is {money(p.budget_k)}.", "budget"),
             (pick(r, R["charter.product"], prod=prod.name), "product")])
    tb.heading(head(r, "Milestones"))
    cols = r.choice(R["charter.milestone_head"]).split("|")
    if r.random() < 0.3:
        tb.table(cols, [([qlabel(q), p.milestone[q]], f"ms:{q}") for q in lx.QUARTERS])
    else:
        tb.table([*cols, r.choice(["Notes", "Comment", "Remarks"])],
                 [([qlabel(q), p.milestone[q], pick(r, R["status.ms_note"])], f"ms:{q}") for q in lx.QUARTERS])
    if "engineering" in s.domains:
        tb.heading(head(r, "Engineering approach"))
        tb.para([pick(r, [x]) for x in sample_on(r, R["charter.engineering"], 2)])
    else:
        tb.heading(head(r, "Customer impact"))
        tb.para([pick(r, R["charter.customer"], prod=prod.name)])
    return f"{p.code_name} project charter", tb


def render_system(w: World, s: DocSpec, r: random.Random) -> Rendered:
    sy = w.get(s.ref["system"])
    owner, admin = w.get(sy.owner_team), w.get(sy.admin)
    tb = TextBuilder()
    q = s.ref.get("quarter")
    if q:
        fr = rng(w.seed, "sysstat", f"{sy.id}|{q}")
        uptime = f"{fr.choice(['99.95', '99.90', '99.72', '99.99', '99.41', '99.85'])}%"
        state = fr.choice(["healthy", "healthy", "degraded during a migration", "scheduled for an upgrade"])
        tb.line(f"{sy.name} ({sy.id}) service review, {qlabel(q)}")
        tb.heading(head(r, "Availability"))
        tb.para([(f"{sy.name} achieved {uptime} availability in {qlabel(q)}.", "uptime"),
                 (pick(r, R["system.state"], state=state), "status")])
        tb.heading(head(r, "Ownership"))
        tb.para([(pick(r, R["system.admin"], n=admin.name, team=owner.name), "admin")])
        tb.heading(head(r, "Planned work"))
        tb.bullets([pick(fr, [x]) for x in sample_on(fr, R["system.planned"], fr.randint(2, 3))])
        return f"{sy.name} service review {qlabel(q)}", tb
    tb.line(f"Service catalogue entry: {sy.name} ({sy.id})")
    tb.heading(head(r, "What it is"))
    tb.para([(f"{sy.name} is Meridian's {sy.kind}.", "kind"),
             (f"It is supplied by {sy.vendor} and used by about {sy.users} people.", "vendor")])
    tb.heading(head(r, "Ownership"))
    tb.bullets([(f"Owning team: {owner.name}", "owner"), (f"Primary administrator: {admin.name}", "admin"),
                pick(r, R["system.support"])])
    tb.heading(head(r, "Getting access"))
    tb.para([pick(r, R["system.access"])])
    if "engineering" in s.domains:
        tb.heading(head(r, "Integration"))
        tb.para([pick(r, R["system.integration"][:1]), pick(r, R["system.integration"][1:])])
    return f"{sy.name} ({sy.kind})", tb


def render_profile(w: World, s: DocSpec, r: random.Random) -> Rendered:
    p = w.get(s.ref["person"])
    team = w.get(p.team)
    tb = TextBuilder()
    tb.line(p.name)
    tb.line(pick(r, R["profile.role"], role=p.role, team=team.name), "role")
    tb.heading(head(r, "About"))
    first = p.name.split()[0]
    tb.ctx = {"first": first}
    about = [(pick(r, ["{f} works in the {t} team in {d}.", "{f} is part of {d}, in the {t} team.",
                       "Within {d}, {f} belongs to the {t} team."], f=first, t=team.name, d=team.department),
              "team"),
             (pick(r, ["{f} joined Meridian on {j} and is based in {l}.",
                       "Based in {l}, {f} has been with Meridian since {j}.",
                       "{f} started at Meridian on {j} and works from {l}."],
                   f=first, j=human_date(p.joined), l=p.location), "location")]
    if p.manager:
        about.append((pick(r, ["{f} reports to {m}.", "{f}'s manager is {m}.", "{m} is {f}'s line manager."],
                           f=first, m=w.get(p.manager).name), "manager"))
    tb.para(about)
    tb.heading(head(r, "Areas of expertise"))
    tb.bullets([x[0].upper() + x[1:] + tail(r, "profile.skill_tail") for x in p.skills])
    if s.ref.get("projects"):
        tb.heading(head(r, "Current projects"))
        names = [w.get(x).code_name for x in s.ref["projects"]]
        tb.para([(f"{p.name} leads project {' and project '.join(names)}.", "projects")])
    tb.close(r.choice(["Contact", "Get in touch", "How to reach me", "Contact details"]),
             [pick(r, R["profile.email"], e=p.email, f=first),
              *(pick(r, [x]) for x in r.sample(R["profile.contact"], r.randint(1, 2)))])
    return f"{p.name}, {p.role}", tb


def render_team(w: World, s: DocSpec, r: random.Random) -> Rendered:
    t = w.get(s.ref["team"])
    lead = w.get(t.lead)
    tb = TextBuilder()
    tb.line(f"{t.name} team")
    tb.heading(head(r, "Mission"))
    tb.para([(f"The {t.name} team is part of {t.department} and looks after Meridian's "
              f"{ {'hr': 'people processes', 'engineering': 'software platforms', 'it': 'internal systems', 'products': 'product direction', 'projects': 'delivery portfolio', 'compliance': 'legal and regulatory obligations', 'communications': 'finances and internal messaging'}[t.domain] }.",
              "mission")])
    tb.heading(head(r, "People"))
    tb.para([(pick(r, R["team.lead"], n=lead.name), "lead")])
    tb.table(r.choice(R["team.table"]).split("|"), [([w.get(m).name, w.get(m).role, w.get(m).location], f"member:{m}")
                                          for m in s.ref["members"]])
    tb.heading(head(r, "Working with us"))
    tb.para([pick(r, [x]) for x in r.sample(R["team.working"], r.randint(1, 2))])
    return f"{t.name} team page", tb


def render_product(w: World, s: DocSpec, r: random.Random) -> Rendered:
    p = w.get(s.ref["product"])
    mgr = w.get(p.manager)
    tb = TextBuilder()
    tb.line(f"{p.name} product specification ({p.id})")
    tb.heading(head(r, "Overview"))
    tb.para([(f"{p.name} is Meridian's {p.description}.", "description"),
             (f"The current release is version {p.version}.", "version")])
    tb.heading(head(r, "Ownership"))
    tb.para([(f"{mgr.name} is the product manager, and the {w.get(p.team).name} team builds it.", "manager")])
    tb.heading(head(r, "Key capabilities"))
    tb.bullets([(f[0].upper() + f[1:] + tail(r, "product.feature_tail"), f"feature{k}")
                for k, f in enumerate(p.features)])
    tb.heading(head(r, "Engineering constraints"))
    tb.para([pick(r, R["product.constraints"][:1]), pick(r, R["product.constraints"][1:])])
    return f"{p.name} product specification", tb


def render_eng_process(w: World, s: DocSpec, r: random.Random) -> Rendered:
    name, purpose = lx.ENG_PROCESSES[s.ref["process"]]
    pol = w.get(s.ref["policy"])
    tb = TextBuilder()
    tb.line(f"Engineering handbook: {name}")
    tb.heading("Why this exists")
    tb.para([f"This guide describes {purpose}.", pick(r, R["eng.audience"])])
    tb.heading(head(r, "Steps"))
    steps = r.sample(R["eng.steps"], r.randint(3, 5))
    tb.bullets([pick(r, [x]) for x in steps])
    tb.heading(head(r, "Related standards"))
    ref = f"{pol.title} ({pol.id})" if r.random() < 0.3 else pol.title
    tb.para([(pick(r, R["eng.related"], ref=ref), "policy_ref")])
    return f"{name}", tb
