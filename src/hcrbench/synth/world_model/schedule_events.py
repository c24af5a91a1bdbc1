"""The scheduler's event documents (incidents, decisions, meetings), which record their events into the world.

Events keep the world's rules (:mod:`hcrbench.synth.checks.world_rules`): people act only once they have joined, incidents
go to the owning team unless escalated, a project has at most one decision a day and none once it is completed,
and a decision that changes course names the one it reverses and why.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import people_at, projects_at
from hcrbench.synth.world_model.schedule_base import DocSpec, _uniq, open_on, open_until
from hcrbench.synth.world_model.schedule_year import MEETING_START
from hcrbench.synth.world_model.seeds import rng

ESCALATION = {"T06": "T02"}  # an incident escalated out of its owning team goes to Site Reliability (T06), or,
ESCALATION_DEFAULT = "T06"   # from Site Reliability itself, to Platform Engineering (T02)
DECISION_POLICY_DOMAINS = ("engineering", "it", "compliance")


class EventSpecs:
    """Mixin of :class:`hcrbench.synth.world_model.schedule.Scheduler`: the specs of incidents, decisions and meetings."""

    def _members(self, team: str, i: int, day: str) -> list[str]:
        """Non-lead members of ``team`` who exist at document ``i`` and had joined by ``day``."""
        n = people_at(i)
        for p in self.w.people[max(1, self._seen_people):n]:  # team rosters grow with the corpus
            self._rosters.setdefault(p.team, []).append(p)
        self._seen_people = max(self._seen_people, n)
        lead = self.w.get(team).lead
        return [p.id for p in self._rosters.get(team, []) if p.id != lead and p.joined <= day
                and not (p.left and p.left < day)]

    def _member(self, r, team: str, i: int, day: str, fallback: str) -> str:
        """A member of ``team``: a key person of the team a third of the time (as other draws favour them), else
        mostly someone with a profile page (the people an incident's readers can look up)."""
        members = self._members(team, i, day)
        key = [m for m in members if m in self.key]
        if key and r.random() < 0.35:
            return r.choice(key)
        profiled = [m for m in members if m in self.profiled]
        if profiled and r.random() < 0.6:
            return r.choice(profiled)
        return r.choice(members or [fallback])

    def _project_led_by(self, r, i: int, day: str, key_bias: float, taken: set[tuple[str, str]] = frozenset(),
                        since: dict[str, dict[str, Any]] | None = None) -> str:
        """A project still running on ``day`` whose lead had joined by then (and with no ``taken`` entry that day,
        and, given ``since`` (project -> its latest decision), none decided after ``day``); when none fits, a
        project that does not (the caller checks :meth:`_fits`)."""
        def fits(p) -> bool:
            return self._fits(p, day, taken, since)

        for _ in range(30):
            pid = self._project(r, i, key_bias)
            if fits(self.w.get(pid)):
                return pid
        return next((p.id for p in self.w.projects[:projects_at(i)] if fits(p)), pid)

    def _fits(self, p, day: str, taken: set[tuple[str, str]] = frozenset(),
              since: dict[str, dict[str, Any]] | None = None) -> bool:
        return self._joined_by(p.lead, day) and (p.id, day) not in taken and open_on(p, day) \
            and (since is None or p.id not in since or since[p.id]["date"] <= day)

    def _spec_incident(self, i: int, kind: str, ref: dict[str, Any]) -> DocSpec:
        w, r = self.w, rng(self.seed, "incident", i)
        k = len(w.tickets)
        day, number = self._ticket_day(k)  # spread over the year; numbers grow with days
        sysid = self._loaded_system(r)
        s = w.get(sysid)
        cause = r.randrange(len(lx.ROOT_CAUSES))
        # assigned within the owning team (its administrator half the time); now and then escalated to another
        escalated = None
        if r.random() < 0.5 and self._joined_by(s.admin, day):  # (a growth system's administrator may be new)
            assignee = s.admin
        elif r.random() < 0.12:
            escalated = ESCALATION.get(s.owner_team, ESCALATION_DEFAULT)
            assignee = self._member(r, escalated, i, day, s.admin)
        else:
            assignee = self._member(r, s.owner_team, i, day, s.admin)
        t = {"id": f"INC-{number}", "doc": i, "system": sysid,
             "reporter": self._person(r, i, 0.4, by=day), "assignee": assignee,
             "severity": self._severity(k), "root_cause": cause, "cause": self._root_cause(r, cause, s),
             "fix": cause if r.random() < 0.8 else r.randrange(len(lx.FIXES)),
             "symptom": r.randrange(len(lx.SYMPTOMS)), "duration_min": r.randrange(12, 600),
             "date": day, "project": self._project_led_by(r, i, day, 0.35) if r.random() < 0.45 else None,
             "escalated_to": escalated if assignee != s.admin else None}
        w.tickets.append(t)
        ref["ticket"] = k
        doms = ["it"] + (["projects"] if t["project"] else []) + (["engineering"] if r.random() < 0.2 else [])
        lead = w.get(t["project"]).lead if t["project"] else ""  # the project-impact section names the lead
        return DocSpec(i, kind, _uniq(doms), _uniq([t["id"], sysid, s.owner_team, t["reporter"], t["assignee"],
                                                   t["project"] or "", lead]), ref, date=day)

    def _spec_decision(self, i: int, kind: str, ref: dict[str, Any]) -> DocSpec:
        w, r = self.w, rng(self.seed, "decision", i)
        k = len(w.decisions)
        day = self._decision_day(k, i)  # spread over the year; numbers grow with days
        proj = self._decision_project(r, i, day)
        if proj is None:  # no project has room that day: a day of the year with room on a running project
            proj, day = self._decision_with_room(r, i)
        number = self._decision_number(day)
        self.decision_days.add((proj.id, day))  # one per project per day
        self.month_decisions[(proj.id, day[:7])] = self.month_decisions.get((proj.id, day[:7]), 0) + 1
        # a build-or-buy choice is checked against an engineering, IT or compliance rule (never a leave policy)
        pol = self._policy(r, DECISION_POLICY_DOMAINS) if r.random() < 0.35 else None
        prev = self.last_decision.get(proj.id)
        if prev is None or prev["date"] < day:
            option, reverses = self._option(r, proj.id, day)  # the course so far, now and then reversed
        else:  # a decision dated before the project's latest keeps the course in effect on its day
            option, reverses = self._course_on(proj.id, day), False
        d = {"id": f"DEC-{number:04d}", "doc": i, "project": proj.id, "approver": proj.sponsor,
             "owner": proj.lead, "policy": pol.id if pol else None, "option": option,
             "date": day, "cost_k": r.randrange(20, 400, 5), "reverses": None, "reason": None}
        if reverses:  # a change of course names what it reverses, and why
            d["reverses"], d["reason"] = prev["id"], r.choice(lx.DECISION_REASONS)
            self.reversal_spans.setdefault(proj.id, []).append((prev["date"], day))
        if prev is None or prev["date"] < day:
            self.last_decision[proj.id] = d
        self.project_decisions.setdefault(proj.id, []).append(d)
        w.decisions.append(d)
        ref["decision"] = k
        doms = ["communications"] + (["projects"] if r.random() < 0.3 else []) + ([pol.domain] if pol else [])
        return DocSpec(i, kind, _uniq(doms), _uniq([d["id"], proj.id, d["approver"], d["owner"], d["policy"] or ""]),
                       ref, date=day)

    def _spec_meeting(self, i: int, kind: str, ref: dict[str, Any]) -> DocSpec:
        w, r = self.w, rng(self.seed, "meeting", i)
        k = len(w.meetings)
        planned = self.golden_day(k, MEETING_START)  # meetings spread over the year
        fit = loose = None
        for _ in range(30):  # held on its day by a project running then whose chair (the lead) had joined
            proj = w.get(self._project(r, i))
            lo, last = max(planned, w.get(proj.lead).joined), open_until(proj)
            if lo == planned <= last and ("meeting", proj.id, planned) not in self.used_days:
                fit = proj
                break
            if loose is None and lo <= last:  # else a project running after its lead joined, on a later day
                loose = proj
        proj = fit or loose or proj
        day = planned
        lo, last = max(day, w.get(proj.lead).joined), open_until(proj)
        if lo != day or day > last or ("meeting", proj.id, day) in self.used_days:
            day, ref["n"] = self._free_day(r, "meeting", proj.id, lo, date.fromisoformat(last))
        else:
            self.used_days[("meeting", proj.id, day)] = 1
        # the notes confirm the project's latest decision when it was taken in the six weeks before
        recent = [d for d in self.project_decisions.get(proj.id, [])
                  if 0 <= (date.fromisoformat(day) - date.fromisoformat(d["date"])).days <= 42]
        att = _uniq([proj.lead] + [self._person(r, i, 0.4, by=day) for _ in range(r.randint(2, 5))])
        m = {"id": f"MTG-{k + 1:05d}", "doc": i, "project": proj.id, "attendees": att, "chair": proj.lead,
             "date": day, "decision": max(recent, key=lambda d: d["date"])["id"] if recent else None,
             "actions": r.randint(2, 4)}
        w.meetings.append(m)
        ref["meeting"] = k
        doms = ["projects"] + (["communications"] if m["decision"] or r.random() < 0.15 else [])
        return DocSpec(i, kind, doms, _uniq([proj.id, *att, m["decision"] or ""]), ref, date=day)
