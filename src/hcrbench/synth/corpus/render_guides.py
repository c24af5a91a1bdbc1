"""Structured documents: formal meeting minutes, how-to guides and long technical specifications of systems.

Like the conversations (:mod:`hcrbench.synth.corpus.render_threads`) they state their type's facts under its keys with the
render pools' fact sentences; what they add (numbered steps, tables of a system's parameters, agenda items) states
no world fact and names no entity beyond the document's own.
"""

from __future__ import annotations

import random

from hcrbench.synth.corpus.meeting_refs import MEETING_KINDS
from hcrbench.synth.corpus.phrases_sections import POOLS
from hcrbench.synth.corpus.render_entities import Rendered
from hcrbench.synth.corpus.render_events import _later, _short_names
from hcrbench.synth.corpus.render_phrases import R
from hcrbench.synth.corpus.spec_tables import spec_sections
from hcrbench.synth.corpus.subjects import on_subject, sample_on
from hcrbench.synth.corpus.text import TextBuilder, human_date, pick, vary
from hcrbench.synth.world_model.entities import World

_GAP = {"weekly sync": 7, "planning session": 14}


def render_minutes(w: World, s, r: random.Random) -> Rendered:
    """Formal minutes: the meeting's id, date, chair and attendees, numbered items, decisions and an action table."""
    m = w.meetings[s.ref["meeting"]]
    p, chair = w.get(m["project"]), w.get(m["chair"])
    kind = r.choice(list(MEETING_KINDS))
    names = [w.get(a).name for a in m["attendees"]]
    short = _short_names(names)
    tb = TextBuilder()
    tb.kind = f"meeting:{kind}"
    day = human_date(m["date"])
    tb.line(f"Minutes: {p.code_name} {kind} ({m['id']}), {day}")
    tb.line(f"Meeting id: {m['id']} | Date: {day} | Chair: {chair.name}")
    tb.line(pick(r, R["meeting.attendees"], names=", ".join(names)), "attendees")
    tb.line(vary(r, "[Apologies|Absent]: none [recorded|received|noted]"))
    tb.heading(f"1. {r.choice(['Matters discussed', 'Items discussed', 'Discussion'])}")
    tb.para([(pick(r, R["meeting.discussion"], c=p.code_name, chair=short[0]), "discussion")])
    pool = on_subject([x for x in POOLS["meeting.discussion"] if len(short) > 1 or "{b}" not in x])
    points = r.sample(pool, min(len(pool), max(2, min(4, len(short)))))
    n = len(short)
    tb.bullets([(f"1.{k + 1} " + vary(r, x).format(a=short[(k + 1) % n],
                                                   b=short[(k + 2) % n if (k + 2) % n != (k + 1) % n else 0],
                                                   code=p.code_name, goal=p.goal),
                 "goal" if "{goal}" in x else None) for k, x in enumerate(points)])
    tb.heading(f"2. {r.choice(['Decisions taken', 'Decisions', 'Resolutions'])}")
    if m["decision"]:
        tb.para([(pick(r, R["meeting.decision"], d=m["decision"]), "decision")])
    else:
        tb.para([vary(r, "[No decision was|No decisions were] [taken|recorded|needed] at this "
                         "[meeting|session][.|; items stay open for the next one.]")])
    tb.heading(f"3. {r.choice(['Actions', 'Action log', 'Actions agreed'])}")
    due = _later(m["date"], 7)
    rows = [([str(k + 1), names[k % len(names)], vary(r, a), due], f"action{k}")
            for k, a in enumerate(sample_on(r, R["meeting.action"], m["actions"]))]
    tb.table(["No.", "Owner", "Action", "Due"], rows)
    tb.heading(f"4. {r.choice(['Next meeting', 'Date of next meeting'])}")
    tb.para([f"The next {kind} is planned for {_later(m['date'], _GAP.get(kind, 28))}."])
    n_ = f" (no. {s.ref['n']})" if s.ref.get("n", 1) > 1 else ""
    return f"{p.code_name} {kind} {m['date']}{n_}", tb


_BEFORE = [
    "[Make sure|Check that] your machine is enrolled in device management[.|; the service desk can help.]",
    "[Have|Keep] your single sign-on account and a second factor [ready|to hand].",
    "[Read|Skim] the [short|one-page] overview [below|on this page] so the terms are familiar.",
    "[Ask|Check with] your manager [whether|that] you need [the standard|an elevated] role [first|before you start].",
    "[Use|Connect from] the office network or the VPN; [direct connections|other networks] are blocked.",
]
_STEPS = [
    "Open the self-service catalogue and search for {sys}.",
    "[Choose|Select] the role you need; most people need the standard [user|read-write] role.",
    "[Add|Write] a one-line reason for the [access|role] and submit the form.",
    "Wait for the approval e-mail; most [roles|requests] are approved within one working day.",
    "Sign in to {sys} with single sign-on[| from the app launcher| using your usual account].",
    "[Set|Pick] your [default view|home page|preferred language and time zone] under Settings.",
    "Turn on [notifications|alerts] for the items you [own|follow|care about].",
    "[Bookmark|Pin] {sys} in your browser [so it is easy to find|for quick access].",
    "[Work through|Complete] the [short|ten-minute] built-in tour[| the first time you sign in].",
    "[Check|Confirm] that your [name and team|profile details] [show|appear] correctly, and report any mismatch.",
    "[Try|Run] a [small|harmless] test action in the sandbox before working with live records.",
]
_TROUBLE = [
    "[Cannot sign in|Sign-in loops back to the start]: clear the browser cache and try a private window.",
    "[The page is slow|Pages load slowly]: check the status page before raising a ticket.",
    "[A button is missing|You cannot see a menu]: your role may be too narrow; ask the administrator.",
    "[An error code appears|You see an error code]: copy it into the ticket so the team can trace it.",
    "[Your access disappeared|You lost access]: roles are reviewed each quarter; request the role again.",
]


def render_howto(w: World, s, r: random.Random) -> Rendered:
    """A how-to for getting started with a system: what it is, numbered steps, who to ask, troubleshooting."""
    sy = w.get(s.ref["system"])
    owner, admin = w.get(sy.owner_team), w.get(sy.admin)
    tb = TextBuilder()
    tb.line(f"How-to: get started with {sy.name}")
    tb.para([(f"{sy.name} is Meridian's {sy.kind}.", "kind"),
             (f"It is supplied by {sy.vendor} and used by about {sy.users} people.", "vendor")])
    tb.heading(r.choice(["Before you begin", "Prerequisites", "What you need"]))
    tb.bullets([vary(r, x) for x in r.sample(_BEFORE, r.randint(2, 3))])
    tb.heading(r.choice(["Steps", "Step by step", "How to do it"]))
    steps = sorted(r.sample(range(len(_STEPS)), r.randint(5, 7)))
    for k, j in enumerate(steps, start=1):
        tb.line(f"{k}. " + vary(r, _STEPS[j]).format(sys=sy.name))
    tb.heading(r.choice(["Who to ask", "Getting help", "Contacts"]))
    tb.bullets([(f"Owning team: {owner.name}", "owner"), (f"Primary administrator: {admin.name}", "admin")])
    tb.heading(r.choice(["Troubleshooting", "If something goes wrong", "Common problems"]))
    tb.bullets([vary(r, x) for x in r.sample(_TROUBLE, r.randint(2, 3))])
    return f"How to get started with {sy.name}", tb


def render_spec(w: World, s, r: random.Random) -> Rendered:
    """A long technical specification of a system: ownership, then numbered sections of parameter tables."""
    sy = w.get(s.ref["system"])
    owner, admin = w.get(sy.owner_team), w.get(sy.admin)
    tb = TextBuilder()
    tb.line(f"Technical specification: {sy.name}")
    tb.line(f"Document version {r.randint(1, 4)}.{r.randint(0, 9)} | Status: "
            f"{r.choice(['approved', 'approved', 'in review'])} | Classification: internal")
    tb.heading("1. Overview")
    tb.para([(f"{sy.name} is Meridian's {sy.kind}.", "kind"),
             (f"It is supplied by {sy.vendor} and used by about {sy.users} people.", "vendor"),
             vary(r, "This [document|specification] [describes|records] how {sys} is [built|set up|configured] and "
                     "[run|operated], [for the engineers who change it|for anyone who changes or supports it]."
                  ).format(sys=sy.name)])
    tb.heading("2. Ownership")
    tb.bullets([(f"Owning team: {owner.name}", "owner"), (f"Primary administrator: {admin.name}", "admin"),
                vary(r, "Changes to the values below [go through|need] a change ticket [approved by the owning "
                        "team|reviewed by the owning team]."),
                ])
    for k, (heading, lead, header, rows) in enumerate(spec_sections(w.seed, sy.id, sy.name), start=3):
        tb.heading(f"{k}. {heading}")
        if lead and lead[0][:1].isdigit():  # numbered steps, one a line
            for step in lead:
                tb.line(step)
        elif lead:
            tb.para(lead)
        if rows:
            tb.table(header, [(cells, None) for cells in rows])
    return f"{sy.name} technical specification", tb


__all__ = ["render_howto", "render_minutes", "render_spec"]
