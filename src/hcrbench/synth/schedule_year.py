"""The scheduler's part of a believable year (Meridian 4, issue 35 finding 8): incident days spread over the year
(numbered by day, so numbers still grow with dates), weekly digests no later incident joins, root causes that name
their system, decisions that rarely change course, promotions and farewells.

A mixin of :class:`hcrbench.synth.schedule.Scheduler`; the rules it keeps are in
:mod:`hcrbench.synth.world_rules_year`.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hcrbench.synth import lexicon as lx
from hcrbench.synth.schedule_base import LAST_DAY, DocSpec, _uniq, open_until
from hcrbench.synth.world import people_at, projects_at

FIRST_DAY = date(2024, 1, 2)
YEAR_DAYS = (LAST_DAY - FIRST_DAY).days + 1
GOLDEN = 0.6180339887498949  # the golden-ratio sequence spreads every prefix of incidents evenly over the year
PER_DAY = 40  # incident numbers reserved per day: INC-(20000 + 40 * day + n)
REVERSAL_CHANCE = 0.25
MAX_REVERSALS, REVERSAL_GAP_DAYS, REVERSAL_SHARE = 2, 45, 0.2
PROMOTION_NOTICE_DAYS = 21  # a promotion is announced within three weeks
# Decisions follow a calendar that crowds them towards the end of September as the corpus grows (schedule_base.
# _event_date). A day holds decisions on at most DAY_SHARE of the projects that exist; a decision its calendar day
# cannot hold, and every decision after it, goes to a day of the year with room on a project running then
# (:meth:`YearSpecs._decision_with_room`); one that falls between a project's earlier decisions keeps the course
# in effect. Worlds up to 6,000 documents never fill a day (on seeds 0-12, 29, 53, 88 the densest holds a fifth).
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
        self.calendar_full = False  # whether a decision's calendar day was ever full
        self.project_decisions: dict[str, list[dict[str, Any]]] = {}  # project -> its decisions, in number order
        self.reversal_spans: dict[str, list[tuple[str, str]]] = {}  # project -> (day reversed, day of reversal)

    # ------------------------------------------------------------------ incidents
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
    def _option(self, r, project: str, day: str) -> tuple[int, bool]:
        """The option a new decision on ``project`` takes and whether it reverses the one before: the previous
        decision's option unless a rare, spaced reversal is allowed (at most two a project, 45+ days apart, and at
        most a fifth of all follow-up decisions)."""
        prev = self.last_decision.get(project)
        if prev is None:
            return r.randrange(4), False
        self.follow_ups += 1
        mine = self.reversals.setdefault(project, [])
        spaced = not mine or (date.fromisoformat(day) - date.fromisoformat(mine[-1])).days >= REVERSAL_GAP_DAYS
        total = sum(len(v) for v in self.reversals.values())
        if r.random() < REVERSAL_CHANCE and spaced and len(mine) < MAX_REVERSALS \
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
        decisions that day, and not between a reversal of ``p`` and the decision it reverses."""
        return (p.id, day) not in self.decision_days and self.decisions_on.get(day, 0) < cap \
            and not any(a < day < b for a, b in self.reversal_spans.get(p.id, ()))

    def _decision_with_room(self, r, i: int) -> tuple[Any, str]:
        """A project and a day for a decision once the calendar's day is full: a project that exists at document
        ``i`` (key or not alike), on a day of the year from when its lead joined to the
        end of its last quarter running that has room (:meth:`_room_on`, at most :data:`DAY_SHARE` of the projects
        a day)."""
        n = projects_at(i)
        cap = DAY_SHARE * n

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
