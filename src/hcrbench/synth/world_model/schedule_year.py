"""The scheduler's part of a believable year: incident and decision days spread over the year (numbered by day, so
numbers still grow with dates), incidents on systems by their load and severities in a realistic mix, weekly digests
no later incident joins, root causes that name their system, decisions spread over the projects that change course
now and then for a reason, promotions and farewells.

A mixin of :class:`hcrbench.synth.world_model.schedule.Scheduler`; the rules it keeps are in
:mod:`hcrbench.synth.checks.world_rules_year`.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import people_at, projects_at, systems_at
from hcrbench.synth.world_model.schedule_base import LAST_DAY, DocSpec, _uniq, open_until
from hcrbench.synth.world_model.seeds import rng

FIRST_DAY = date(2024, 1, 2)
YEAR_DAYS = (LAST_DAY - FIRST_DAY).days + 1
GOLDEN = 0.6180339887498949  # the golden-ratio sequence spreads every prefix of events evenly over the year
PER_DAY = 40  # incident numbers reserved per day: INC-(20000 + 40 * day + n)
DECISIONS_PER_DAY = 20  # decision numbers reserved per day: DEC-(1000 + 20 * day + n)
DECISION_START, MEETING_START = 0.25, 0.75  # where the decisions' and meetings' golden-ratio sequences start
# (the incidents' starts at 0.5)
# A follow-up decision (one after an earlier one on its project) changes course when a draw of REVERSAL_CHANCE
# allows it, the project has fewer than MAX_REVERSALS, its previous decision is REVERSAL_MIN_AGE_DAYS back and its
# last reversal REVERSAL_GAP_DAYS back, and reversals stay within REVERSAL_SHARE of follow-ups.
REVERSAL_CHANCE = 0.8
MAX_REVERSALS, REVERSAL_GAP_DAYS, REVERSAL_SHARE, REVERSAL_MIN_AGE_DAYS = 2, 45, 0.35, 14
DECISION_KEY_BIAS = 0.2  # chance a decision draws a key project first (key projects still get their share)
MAX_MONTH_DECISIONS = 3  # decisions a project takes in one month, at most
INCIDENT_KEY_BIAS = 0.1  # chance an incident draws a key system first; otherwise a system by its users (its load)
# Severities by a low-discrepancy sequence from a seeded start, so every prefix of the incidents holds the mix:
# severity 1 for a fraction SEVERITY_MIX[0], severity 2 for SEVERITY_MIX[1], severity 3 for the rest.
SEVERITY_MIX = (0.04, 0.26)
SEVERITY_STEP = 0.7548776662466927  # (the plastic number's inverse: a sequence independent of the day's)
PROMOTION_NOTICE_DAYS = 21  # a promotion is announced within three weeks
# A day holds decisions on at most DAY_SHARE of the projects that exist. A decision goes to its golden-ratio day on
# a project with room that day (:meth:`YearSpecs._decision_project`; one that falls between a project's earlier
# decisions keeps the course in effect); when no project has room, to a day of the year with room on a project
# running then (:meth:`YearSpecs._decision_with_room`).
DAY_SHARE = 0.25


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


class YearSpecs:
    """Mixin: the state and choices of the year's events (see the module docstring)."""

    def _init_year(self) -> None:
        self.day_slots: dict[str, int] = {}  # ISO day -> incidents numbered that day
        self.causes: set[str] = set()
        self.reversals: dict[str, list[str]] = {}  # project -> days of its reversals
        self.follow_ups = 0  # decisions that follow an earlier one on their project
        self.promoted_announced: set[str] = set()
        self.decisions_on: dict[str, int] = {}  # ISO day -> decisions taken that day
        self.project_decisions: dict[str, list[dict[str, Any]]] = {}  # project -> its decisions, as planned
        self.reversal_spans: dict[str, list[tuple[str, str]]] = {}  # project -> (day reversed, day of reversal)
        self.month_decisions: dict[tuple[str, str], int] = {}  # (project, ISO month) -> its decisions that month
        self.severity_start = rng(self.seed, "severity").random()
        self.load_expected: dict[str, float] = {}  # system -> incidents its users lead one to expect so far
        self.load_got: dict[str, int] = {}  # system -> its incidents so far

    # ------------------------------------------------------------------ incidents
    def _severity(self, k: int) -> int:
        """The k-th incident's severity: the low-discrepancy point of :data:`SEVERITY_MIX` (every prefix of the
        incidents holds the mix: a few percent critical, a quarter major, the rest minor)."""
        u = (self.severity_start + k * SEVERITY_STEP) % 1.0
        return 1 if u < SEVERITY_MIX[0] else 2 if u < SEVERITY_MIX[0] + SEVERITY_MIX[1] else 3

    def _loaded_system(self, r) -> str:
        """The system an incident hits, by its users (a company-wide tool breaks more often in people's hands than
        a team's own): two systems drawn by their users (now and then the first among the key systems), and of the
        two the one furthest below its share of the incidents so far, so no system runs far ahead of its load."""
        systems = self.w.systems[:systems_at(self.now + 1)]
        total = sum(s.users for s in systems)
        for s in systems:  # what each system's users lead one to expect, incident by incident
            self.load_expected[s.id] = self.load_expected.get(s.id, 0.0) + s.users / total
        keys = [self.w.get(k) for k in self.key_systems]
        first = keys if r.random() < INCIDENT_KEY_BIAS else systems
        pair = [r.choices(first, weights=[s.users for s in first])[0],
                r.choices(systems, weights=[s.users for s in systems])[0]]
        pick = max(pair, key=lambda s: self.load_expected[s.id] - self.load_got.get(s.id, 0))
        self.load_got[pick.id] = self.load_got.get(pick.id, 0) + 1
        return pick.id

    def _ticket_day(self, k: int) -> tuple[str, int]:
        """The day of the k-th incident (a golden-ratio point of the year, moved a week on from a week a digest
        already listed) and its number, which grows with the day."""
        start = FIRST_DAY + timedelta(days=int(((0.5 + k * GOLDEN) % 1.0) * YEAR_DAYS))
        weeks = [s * 7 * j for j in range(1, 40) for s in (1, -1)]
        for off in [0, *weeks, *(s * j for j in range(1, YEAR_DAYS) for s in (1, -1))]:
            d = start + timedelta(days=off)
            if FIRST_DAY <= d <= LAST_DAY and _monday(d) not in self.digest_weeks \
                    and self.day_slots.get(d.isoformat(), 0) < PER_DAY:
                break
        day = d.isoformat()
        n = self.day_slots.get(day, 0)
        self.day_slots[day] = n + 1
        return day, 20000 + PER_DAY * (d - FIRST_DAY).days + n + 1

    def _root_cause(self, r, cause: int, s: Any) -> str:
        """The root-cause text of an incident on system ``s``: the cause type's template with one of the system's
        hosts, a change or a release, drawn until no earlier incident has it."""
        prefix = s.name.split()[0].lower()
        for _ in range(100):
            text = lx.ROOT_CAUSE_TEMPLATES[cause].format(
                sys=s.name, n=r.randint(1000, 9999),
                host=f"{prefix}-{r.choice(lx.HOST_ROLES)}-{r.randint(1, 40):02d}",
                ver=f"{r.randint(2, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)}")
            if text not in self.causes:
                break
        self.causes.add(text)
        return text

    def _digest_week(self) -> date:
        """The week a new weekly digest covers: the week with the most incidents so far that no digest covered
        (of equals, the one farthest from the weeks already covered, then the latest); the second week of the year
        when there is no incident yet."""
        count: dict[date, int] = {}
        for t in self.w.tickets:
            m = _monday(date.fromisoformat(t["date"]))
            if m not in self.digest_weeks:
                count[m] = count.get(m, 0) + 1
        if count:  # ties go to the week farthest from the digested ones (digests spread over the year)
            def apart(m: date) -> int:
                return min((abs((m - d).days) for d in self.digest_weeks), default=YEAR_DAYS)
            return max(count, key=lambda m: (count[m], apart(m), m))
        monday = _monday(FIRST_DAY) + timedelta(days=7)
        while monday in self.digest_weeks:
            monday += timedelta(days=7)
        return monday

    # ------------------------------------------------------------------ decisions
    def _decision_day(self, k: int, i: int) -> str:
        """The calendar day of the k-th decision: a golden-ratio point of the year (every prefix of the decisions
        is spread evenly over it), moved to the nearest day that still has room for a decision."""
        start = date.fromisoformat(self.golden_day(k, DECISION_START))
        cap = self._day_cap(i)
        for off in (s * j for j in range(YEAR_DAYS) for s in (1, -1)):
            d = start + timedelta(days=off)
            if FIRST_DAY <= d <= LAST_DAY and self.decisions_on.get(d.isoformat(), 0) < cap:
                return d.isoformat()
        return start.isoformat()  # (never seen) every day is full: _decision_project finds no room

    def golden_day(self, k: int, start: float) -> str:
        """The k-th point of a golden-ratio sequence over the year from ``start`` (every prefix is spread evenly)."""
        return (FIRST_DAY + timedelta(days=int(((start + k * GOLDEN) % 1.0) * YEAR_DAYS))).isoformat()

    def _day_cap(self, i: int) -> float:
        """Decisions a day can hold at document ``i``: :data:`DAY_SHARE` of the projects, and the numbers a day has."""
        return min(DAY_SHARE * projects_at(i), DECISIONS_PER_DAY)

    def _decision_number(self, day: str) -> int:
        """The number of the next decision taken on ``day`` (numbers grow with days); counts it on that day."""
        n = self.decisions_on.get(day, 0)
        self.decisions_on[day] = n + 1
        return 1000 + DECISIONS_PER_DAY * (date.fromisoformat(day) - FIRST_DAY).days + n

    def _decision_project(self, r, i: int, day: str) -> Any | None:
        """A project for a decision on ``day``: one that exists at document ``i``, is running with its lead there
        and has room that day (:meth:`_room_on`), preferring one whose decisions all came before (the new one is
        its latest, free to change course); None when no project has room."""
        cap = self._day_cap(i)

        def ok(p, latest: bool) -> bool:
            return self._fits(p, day, self.decision_days, self.last_decision if latest else None) \
                and self._room_on(p, day, cap)

        for latest in (True, False):
            for _ in range(30):
                p = self.w.get(self._project(r, i, DECISION_KEY_BIAS))
                if ok(p, latest):
                    return p
        return next((p for p in self.w.projects[:projects_at(i)] if ok(p, False)), None)

    def _option(self, r, project: str, day: str) -> tuple[int, bool]:
        """The option a new latest decision on ``project`` takes and whether it reverses the one before: the
        previous decision's option unless a spaced reversal is drawn (at most two a project, 45+ days apart, the
        previous decision two weeks back or more, and at most 35% of all follow-up decisions)."""
        prev = self.last_decision.get(project)
        if prev is None:
            return r.randrange(4), False
        self.follow_ups += 1
        mine = self.reversals.setdefault(project, [])
        at = date.fromisoformat(day)
        spaced = not mine or (at - date.fromisoformat(mine[-1])).days >= REVERSAL_GAP_DAYS
        aged = (at - date.fromisoformat(prev["date"])).days >= REVERSAL_MIN_AGE_DAYS
        total = sum(len(v) for v in self.reversals.values())
        if r.random() < REVERSAL_CHANCE and spaced and aged and len(mine) < MAX_REVERSALS \
                and total + 1 <= REVERSAL_SHARE * self.follow_ups:
            mine.append(day)
            return r.choice([o for o in range(4) if o != prev["option"]]), True
        return prev["option"], False

    def _course_on(self, project: str, day: str) -> int:
        """The option in effect on ``project`` on ``day``: its latest decision before the day's (its first
        decision's when the day comes before them all)."""
        mine = self.project_decisions[project]
        before = [d for d in mine if d["date"] < day]
        return max(before, key=lambda d: d["date"])["option"] if before else \
            min(mine, key=lambda d: d["date"])["option"]

    def _room_on(self, p, day: str, cap: float) -> bool:
        """Whether ``day`` can hold another decision on project ``p``: none on ``p`` that day, fewer than ``cap``
        decisions that day, fewer than :data:`MAX_MONTH_DECISIONS` on ``p`` that month, and not between a reversal
        of ``p`` and the decision it reverses."""
        return (p.id, day) not in self.decision_days and self.decisions_on.get(day, 0) < cap \
            and self.month_decisions.get((p.id, day[:7]), 0) < MAX_MONTH_DECISIONS \
            and not any(a < day < b for a, b in self.reversal_spans.get(p.id, ()))

    def _decision_with_room(self, r, i: int) -> tuple[Any, str]:
        """A project and a day for a decision when no project has room on its calendar day: a project that exists
        at document ``i`` (key or not alike), on a day of the year from when its lead joined to the end of its last
        quarter running that has room (:meth:`_room_on`)."""
        n = projects_at(i)
        cap = self._day_cap(i)

        def span(p) -> tuple[date, date]:
            return max(FIRST_DAY, date.fromisoformat(self.w.get(p.lead).joined)), date.fromisoformat(open_until(p))

        for _ in range(60):
            p = self.w.get(self._project(r, i, 0.0))  # any project: a key one already has its calendar's share
            lo, hi = span(p)
            if lo <= hi:
                day = (lo + timedelta(days=r.randint(0, (hi - lo).days))).isoformat()
                if self._room_on(p, day, cap):
                    return p, day
        for p in self.w.projects[:n]:  # the first project with a day that has room
            lo, hi = span(p)
            days = ((lo + timedelta(days=d)).isoformat() for d in range((hi - lo).days + 1))
            day = next((d for d in days if self._room_on(p, d, cap)), None)
            if day is not None:
                return p, day
        raise RuntimeError(f"no project has a day left for a decision at document {i}")

    # ------------------------------------------------------------------ people
    def _left_by(self, pid: str, day: str | None) -> bool:
        """Whether ``pid`` has left Meridian by ``day`` (any leaver, for an undated page)."""
        left = self.w.get(pid).left
        return bool(left) and (day is None or left < day)

    def _promotion_spec(self, i: int, kind: str, ref: dict[str, Any], r) -> DocSpec | None:
        """A promotion announcement for someone promoted this year and not yet announced, within three weeks of
        the promotion, signed by their team's lead; None when nobody is left to announce."""
        w = self.w
        todo = [p for p in w.people[1:people_at(i)] if p.promoted and p.id not in self.promoted_announced]
        if not todo:
            return None
        p = r.choice(todo)
        self.promoted_announced.add(p.id)
        lo = date.fromisoformat(p.promoted["date"])
        hi = min(LAST_DAY, lo + timedelta(days=PROMOTION_NOTICE_DAYS))
        ref.update(person=p.id, author=w.get(p.team).lead)
        ref["date"], ref["n"] = self._free_day(r, "announce", p.id, lo.isoformat(), hi)
        return DocSpec(i, kind, ["communications"], _uniq([p.id, p.team, ref["author"]]), ref, date=ref["date"])

    def _farewell_spec(self, i: int, kind: str, ref: dict[str, Any]) -> DocSpec:
        """A leaver's farewell, dated their last day, signed by their team's lead."""
        p = self.w.get(ref["person"])
        ref.update(topic="farewell", author=self.w.get(p.team).lead, date=p.left, n=1)
        return DocSpec(i, kind, ["communications", "people"], _uniq([p.id, p.team, ref["author"]]), ref,
                       date=p.left)


__all__ = ["YearSpecs"]
