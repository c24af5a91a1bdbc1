"""Conversations: incidents worked in a chat channel and decisions and announcements sent as mail threads.

They state the same facts as the page of their type, under the same keys (:func:`hcrbench.synth.world_model.facts.key_facts`),
with the same fact sentences (the render pools), so labels and grades are unchanged by the form; the messages
around them are written by the people the document already names (its routing metadata), never by anyone else,
so a judged negative never gains a query entity. A reply quotes the message it answers (``> ...``).
"""

from __future__ import annotations

import random

from hcrbench.synth.corpus.render_entities import Rendered
from hcrbench.synth.corpus.render_events import DECISION_OPTIONS, SEVERITY, _options, render_announcement
from hcrbench.synth.corpus.render_phrases import R
from hcrbench.synth.corpus.text import TextBuilder, human_date, money, pick, vary
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import World

_ACK = ["[On it|Picking this up|Taking this one|Got it][.|, looking now.|, checking the logs now.|, give me a few minutes.]"]
_MID = ["[Still digging|Narrowing it down|Working through the logs][.|, next update in fifteen minutes.|, "
        "no need to raise more tickets.]",
        "[Can you|Could you] [share a screenshot|post the exact error|confirm which office you are in][?| please?]",
        "[Rolling back|Pausing] the last change [to rule it out|while we look|as a precaution]."]
_DONE = ["[Confirmed|Checked], [it works again|it is back to normal|all clear] [for me|on my side|here][.|, thanks!| - "
         "thank you.]",
         "[Looks good|Working again|Back to normal] [from my side|for our team|here][.|, thanks for the quick fix.]"]
_CLOSE = ["[Closing the channel|Marking this resolved|Resolving the ticket][.| - the write-up follows.| - thanks all.]"]


def _first(name: str, other: str) -> str:
    """A sender's short name: the first name, or the full name when the other speaker shares it."""
    f = name.split()[0]
    return name if f == other.split()[0] else f


def _clock(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def _msg(tb: TextBuilder, at: int, who: str, parts: list[tuple[str, str | None] | str]) -> None:
    """One chat line: ``[hh:mm] who: text``; a ``(text, key)`` part records the fact sentence's span."""
    tb.add(f"[{_clock(at)}] {who}: ")
    for k, p in enumerate(parts):
        text, key = (p, None) if isinstance(p, str) else p
        if k:
            tb.add(" ")
        tb.add(text, key)
    tb.add("\n")


def render_incident_chat(w: World, s, r: random.Random) -> Rendered:
    """An incident's chat channel: the reporter's first message to the assignee's closing line, a few lines."""
    t = w.tickets[s.ref["ticket"]]
    sy = w.get(t["system"])
    rep, asg = w.get(t["reporter"]), w.get(t["assignee"])
    a, b = _first(rep.name, asg.name), _first(asg.name, rep.name)
    if rep.id == asg.id:
        b = a = rep.name
    tb = TextBuilder()
    tb.line(f"#inc-{t['id'][4:]} | Incident {t['id']}: {sy.name} {lx.SYMPTOM_LABELS[t['symptom']]}")
    tb.line(pick(r, ["Opened: {d} | Reporter: {rep} | Assignee: {asg}",
                     "Channel opened on {d} by {rep} | Assignee: {asg}",
                     "Reporter: {rep} | Assignee: {asg} | Opened {d}"],
                 d=human_date(t["date"]), rep=rep.name, asg=asg.name), "assignee")
    tb.line()
    dur = t["duration_min"]
    start = r.randrange(6 * 60, 22 * 60)
    ack = r.randint(1, max(1, dur // 6))
    cause_at = ack + max(1, int((dur - ack) * r.uniform(0.3, 0.7)))
    sev, label = SEVERITY[t["severity"]][:-1].split(" (")
    _msg(tb, start, a, [(pick(r, R["incident.summary"], d=human_date(t["date"]), sym=lx.SYMPTOMS[t["symptom"]],
                              sys=sy.name), "summary")])
    _msg(tb, start + ack, b, [vary(r, r.choice(_ACK)), (pick(r, R["incident.severity"], sev=sev, label=label),
                                                        "severity")])
    if t.get("escalated_to"):
        _msg(tb, start + ack + 1, b, [(pick(r, R["incident.escalated"], team=w.get(t["escalated_to"]).name), "~escalated")])
    if dur > 60 and r.random() < 0.6:
        _msg(tb, start + (ack + cause_at) // 2, b, [vary(r, r.choice(_MID))])
    cause = t.get("cause") or lx.ROOT_CAUSES[t["root_cause"]]
    _msg(tb, start + cause_at, b, [(pick(r, R["incident.root_cause"], c=cause), "root_cause")])
    _msg(tb, start + cause_at + max(1, (dur - cause_at) // 2), b,
         [(pick(r, R["incident.fix"], team=w.get(sy.owner_team).name, sys=sy.name, fix=lx.FIXES[t["fix"]]), "fix")])
    _msg(tb, start + dur, a, [vary(r, r.choice(_DONE))])
    _msg(tb, start + dur + r.randint(1, 9), b, [(pick(r, R["incident.duration"], n=dur), "duration"),
                                                vary(r, _CLOSE[0])])
    if t["project"]:
        p = w.get(t["project"])
        _msg(tb, start + dur + 10 + r.randint(0, 20), a,
             [(pick(r, R["incident.project"], p=p.code_name, lead=w.get(p.lead).name), "project")])
    return f"{t['id']} {sy.name} incident", tb


def _quote(tb: TextBuilder, sentence: str) -> None:
    tb.line(f"> {sentence}")


def render_decision_mail(w: World, s, r: random.Random) -> Rendered:
    """A decision agreed by mail: the owner proposes, the approver replies approving, the owner confirms delivery."""
    d = w.decisions[s.ref["decision"]]
    p, appr, own = w.get(d["project"]), w.get(d["approver"]), w.get(d["owner"])
    opt = DECISION_OPTIONS[d["option"]]
    day = human_date(d["date"])
    tb = TextBuilder()
    tb.line(f"Subject: Decision record {d['id']} - {p.code_name}")
    tb.line(f"From: {own.name} | To: {appr.name} | Date: {day}")
    tb.line()
    tb.line(pick(r, ["Hi {f},", "{f},", "Hello {f},"], f=_first(appr.name, own.name)))
    ctx = pick(r, R["decision.context"], p=p.code_name, goal=p.goal)
    tb.para([(ctx, "context"), pick(r, R["decision.process"])])
    if d.get("reverses"):
        tb.para([(pick(r, R["decision.reverses"], prev=d["reverses"], reason=d["reason"]), "~reverses")])
    dec = pick(r, R["decision.decision"], opt=opt)
    tb.para([(dec, "decision"), (pick(r, R["decision.cost"], cost=money(d["cost_k"])), "cost")])
    tb.line(r.choice(["Options we weighed:", "What we compared:", "The options on the table:"]))
    tb.bullets(_options(r, d["option"]))
    if d["policy"]:
        pol = w.get(d["policy"])
        tb.para([(pick(r, R["decision.policy"], pol=f"{pol.id} ({pol.title})"), "policy")])
    tb.line(pick(r, ["[Please confirm|Can you confirm] [you are happy to approve|your approval][.|, thanks.]"]))
    tb.line(_first(own.name, appr.name))
    tb.line()
    tb.line(f"Reply from {appr.name}, {day}:")
    _quote(tb, dec)
    tb.para([pick(r, ["[Thanks|Thank you], {f}. For the record:", "Agreed, for the record:",
                      "Makes sense to me. For the minutes:"], f=_first(own.name, appr.name)),
             (pick(r, R["decision.approver"], a=appr.name, o=own.name), "approver")])
    if "projects" in s.domains:
        tb.line()
        tb.line(f"Reply from {own.name}, {day}:")
        _quote(tb, r.choice(["Approved.", "Agreed."]))
        tb.para([(pick(r, R["decision.delivery"], o=own.name, p=p.code_name), "delivery"),
                 pick(r, R["decision.team"], team=w.get(p.team).name)])
    return f"{d['id']}: {p.code_name} decides to {opt}", tb


_THANKS = {
    "project": ["[Thank you all|Thanks, everyone] - this was a team effort[.|, and the project channel is open "
                "for questions.]"],
    "people": ["[Thank you all|Thanks so much] for the kind words[!|.| - looking forward to the next chapter.]"],
    "farewell": ["[Thank you all|Thanks, everyone][ - it has been a pleasure working with you.| for the good wishes "
                 "and the years together.]"],
    "follow": ["[A short follow-up|One more note|Quick follow-up]: [the details above still stand|nothing has "
               "changed since this note][; reply here with any questions.|.]"],
}


def render_announcement_mail(w: World, s, r: random.Random) -> Rendered:
    """An announcement sent as mail, with a reply that quotes it: from the person it is about, else the author's
    own follow-up."""
    title, tb = render_announcement(w, s, r, mail=True)
    topic = s.ref["topic"]
    # a promotion's reply quotes the team line (quoting the promotion itself would announce it twice)
    span = tb.spans.get("team" if topic == "people" else "headline")
    quoted = "".join(tb.parts)[span[0]:span[1]] if span else ""
    if topic == "project":
        who, pool = w.get(w.get(s.ref["project"]).lead), "project"
    elif topic in ("people", "farewell"):
        who, pool = w.get(s.ref["person"]), topic
    else:
        who, pool = w.get(s.ref["author"]), "follow"
    tb.line()
    when = f", {human_date(s.date)}" if s.date else ""
    tb.line(f"Reply from {who.name}{when}:")
    if quoted:
        _quote(tb, quoted)
    tb.line(vary(r, r.choice(_THANKS[pool])))
    return title, tb


__all__ = ["render_announcement_mail", "render_decision_mail", "render_incident_chat"]
