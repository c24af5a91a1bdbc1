"""The document schedule: what document ``i`` is about, before any text is written.

The first 500 documents (the core block) are a fixed, seed-shuffled plan holding the quarterly snapshots, the
near-duplicate clusters and every core entity's pages. Documents after it follow a periodic rule (every 8th
profiles a new person, every 40th charters a new project) plus seeded events (incidents, meetings, decisions)
that link new and old entities across domains. Spec ``i`` depends only on the seed and specs ``< i``, so a larger
corpus is a superset of a smaller one.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

from hcrbench.synth.corpus.mentions import MentionTracker
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import (
    CORE_DOCS,
    CORE_PEOPLE,
    CORE_POLICIES,
    CORE_PROJECTS,
    CORE_SYSTEMS,
    LEXICON_POLICIES,
    PERSON_PERIOD,
    PROJECT_PERIOD,
    PROJECT_PHASE,
    World,
    growth_slot,
    people_at,
    policies_at,
    projects_at,
    systems_at,
)
from hcrbench.synth.world_model.schedule_base import (
    CLUSTERS,
    CORE_DECISIONS,
    CORE_TICKETS,
    LAST_DAY,
    QUARTER_END_ISO,
    SNAPSHOT_SYSTEMS,
    DocSpec,
    _day,
    _uniq,
    open_until,
)
from hcrbench.synth.world_model.schedule_events import EventSpecs
from hcrbench.synth.world_model.schedule_year import YearSpecs
from hcrbench.synth.world_model.seeds import rng

STALE_CORE = 4  # superseded policy copies in the core block
STALE_GROWTH_SHARE = 0.1  # of the announcement slots after it


class Scheduler(EventSpecs, YearSpecs):
    """Builds specs in order and records the events (tickets, decisions, meetings) into the world."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.seed = world.seed
        self.key = set(world.key_entities)
        self.key_people = [k for k in world.key_entities if k[1:].isdigit()]
        self.key_projects = [k for k in world.key_entities if k.startswith("PRJ")]
        self.key_systems = [k for k in world.key_entities if k.startswith("SYS")]
        self.stale: set[tuple[str, int]] = set()  # (policy, version) with a superseded copy: one copy each
        self.core = self._core_plan()
        self.announced: set[str] = set()
        self.used_days: dict[tuple[str, str, str], int] = {}  # (kind, subject, day) -> documents: titles name them
        self.numbers: dict[tuple[str, str], int] = {}
        self.last_decision: dict[str, dict[str, Any]] = {}  # project -> its latest decision
        self.decision_days: set[tuple[str, str]] = set()  # (project, day) of every decision so far
        self._rosters: dict[str, list[Any]] = {}
        self._seen_people = 1
        self.digest_weeks: set[date] = set()  # (kind, subject) -> documents so far (release numbers)
        self.now = 0  # the document being planned: events pick among the systems and policies that exist by then
        self._init_year()

    # ------------------------------------------------------------------ helpers
    def _person(self, r, i: int, key_bias: float = 0.3, by: str | None = None) -> str:
        """A person who exists at document ``i`` (and, given ``by``, had joined by that ISO day)."""
        if r.random() < key_bias:
            return r.choice(self.key_people)
        for _ in range(20):
            p = self.w.people[r.randrange(1, people_at(i))]
            if (by is None or p.joined <= by) and not self._left_by(p.id, by):
                return p.id
        return r.choice(self.key_people)  # key people are core staff, who joined before 2024 and stay

    def _joined_by(self, pid: str, day: str) -> bool:
        return self.w.get(pid).joined <= day

    def _free_day(self, r, kind: str, subject: str, lo: str, hi: date = LAST_DAY) -> tuple[str, int]:
        """A day in [lo, hi] on which ``subject`` has no other ``kind`` document, so a title with the day in it is
        unique; once the days run out (very large corpora) a day repeats and the second number says which
        document of that day this is (1 for the first), for the title to carry."""
        for _ in range(40):
            day = _day(r, lo, hi)
            if (kind, subject, day) not in self.used_days:
                break
        n = self.used_days.get((kind, subject, day), 0) + 1
        self.used_days[(kind, subject, day)] = n
        return day, n

    def _number(self, kind: str, subject: str) -> int:
        n = self.numbers.get((kind, subject), 0) + 1
        self.numbers[(kind, subject)] = n
        return n

    def _project(self, r, i: int, key_bias: float = 0.35) -> str:
        if r.random() < key_bias:
            return r.choice(self.key_projects)
        return self.w.projects[r.randrange(projects_at(i))].id

    def _system(self, r, key_bias: float = 0.45) -> str:
        if r.random() < key_bias:
            return r.choice(self.key_systems)
        return r.choice(self.w.systems[:systems_at(self.now + 1)]).id

    def _policy(self, r, domains: tuple[str, ...] | None = None):
        """A policy whose every version is written by the document being planned (of ``domains``, given them)."""
        pols = self.w.policies[:policies_at(self.now)]
        return r.choice([p for p in pols if domains is None or p.domain in domains] or pols)

    def _team_of(self, pid: str) -> str:
        return self.w.get(pid).team

    # ------------------------------------------------------------------ core plan
    def _core_plan(self) -> list[tuple[str, dict[str, Any]]]:
        w = self.w
        plan: list[tuple[str, dict[str, Any]]] = []
        for qi, q in enumerate(lx.QUARTERS):
            # the lexicon's policies are the quarterly snapshots (with projects and systems: 50 a quarter); the
            # growth policies of the core block are not
            plan += [("policy", {"policy": p.id, "version": qi, **({"quarter": q} if k < LEXICON_POLICIES else {})})
                     for k, p in enumerate(w.policies[:CORE_POLICIES])]
            plan += [("project_status", {"project": p.id, "quarter": q}) for p in w.projects[:CORE_PROJECTS]]
            plan += [("system_status", {"system": s.id, "quarter": q}) for s in w.systems[:SNAPSHOT_SYSTEMS]]
        r = rng(self.seed, "core_profiles")
        leads = [p.id for p in w.people[: len(w.teams) + 1]]
        # system administrators have pages
        known = _uniq(leads + self.key_people + [s.admin for s in w.systems[:CORE_SYSTEMS]])
        others = [p.id for p in w.people[len(w.teams) + 1: CORE_PEOPLE] if p.id not in known and not p.left]
        profiled = _uniq(known + r.sample(others, 60 - len(known)))
        self.profiled = set(profiled)
        plan += [("profile", {"person": pid}) for pid in profiled]
        plan += [("team_page", {"team": t.id}) for t in w.teams]
        plan += [("project_charter", {"project": p.id}) for p in w.projects[:CORE_PROJECTS]]
        plan += [("product_spec", {"product": p.id}) for p in w.products]
        plan += [("system_overview", {"system": s.id}) for s in w.systems[:CORE_SYSTEMS]]
        plan += [("eng_process", {"process": k}) for k in range(len(lx.ENG_PROCESSES))]
        plan += [("access_review", {"system": s.id, "cluster": "C1"}) for s in w.systems[:8]]
        plan += [("onboarding", {"team": t.id, "cluster": "C2"}) for t in w.teams[2:9]]
        plan += [("release_notes", {"product": p.id, "cluster": "C3"}) for p in w.products]
        plan += [("ops_digest", {"week": k, "cluster": "C4"}) for k in range(6)]
        events = ["incident"] * CORE_TICKETS + ["decision"] * CORE_DECISIONS + ["meeting"] * 40
        plan += [(e, {}) for e in events]
        plan += [("announcement", {"topic": "farewell", "person": p.id}) for p in w.people[:CORE_PEOPLE] if p.left]
        sr = rng(self.seed, "stale_copies")  # superseded copies of older policy versions, still on the intranet
        for p in sr.sample(w.policies[:CORE_POLICIES], STALE_CORE):
            v = sr.randrange(2)
            self.stale.add((p.id, v))
            plan.append(("policy", {"policy": p.id, "version": v, "stale": True}))
        plan += [("announcement", {})] * (CORE_DOCS - len(plan))
        order = list(range(len(plan)))
        rng(self.seed, "core_order").shuffle(order)
        return [plan[k] for k in order]

    def _stale_or_announcement(self, i: int) -> tuple[str, dict[str, Any]]:
        """Now and then, in an announcement's slot, a superseded copy of an older version of a policy that exists
        by now (one copy per version, so titles stay unique)."""
        r = rng(self.seed, "stale_copy", i)
        if r.random() >= STALE_GROWTH_SHARE:
            return "announcement", {}
        p = self._policy(r)
        v = r.randrange(2)
        if (p.id, v) in self.stale:
            return "announcement", {}
        self.stale.add((p.id, v))
        return "policy", {"policy": p.id, "version": v, "stale": True}

    # ------------------------------------------------------------------ specs
    def spec(self, i: int) -> DocSpec:
        """Spec ``i``; must be called for i = 0, 1, 2, ... in order (events are numbered as they occur)."""
        self.now = i
        grown = growth_slot(i, self.w.n_docs)
        if i < CORE_DOCS:
            kind, ref = self.core[i]
            ref = dict(ref)
        else:
            off = i - CORE_DOCS
            if off % PERSON_PERIOD == 0:
                kind, ref = "profile", {"person": self.w.people[CORE_PEOPLE + off // PERSON_PERIOD].id}
            elif off % PROJECT_PERIOD == PROJECT_PHASE:
                kind, ref = "project_charter", {"project": self.w.projects[projects_at(i + 1) - 1].id}
            elif grown is not None and grown[0] == "system":
                kind, ref = "system_overview", {"system": self.w.systems[grown[1]].id}
            elif grown is not None:
                v = grown[2]
                kind, ref = "policy", {"policy": self.w.policies[grown[1]].id, "version": v}
            else:
                r = rng(self.seed, "growth_kind", i)
                kind = r.choices(["incident", "meeting", "decision", "announcement", "project_update",
                                  "release_notes", "team_news"], [28, 20, 15, 12, 12, 6, 7])[0]
                ref = {}
                if kind == "announcement":
                    kind, ref = self._stale_or_announcement(i)
        if kind in ("incident", "decision", "meeting"):
            return getattr(self, f"_spec_{kind}")(i, kind, ref)
        return self._spec_simple(i, kind, ref)

    def _spec_simple(self, i: int, kind: str, ref: dict[str, Any]) -> DocSpec:
        w, r = self.w, rng(self.seed, f"spec_{kind}", i)
        q = ref.get("quarter")
        if kind == "policy":
            p = w.get(ref["policy"])
            doms = [p.domain]
            if p.domain != "compliance" and r.random() < 0.3:
                doms.append("compliance")
            ref["system"] = "SYS-02" if p.domain == "hr" else self._system(r)
            if r.random() < 0.3:
                doms.append("it")
            shown = "it" in doms or p.domain == "hr"
            return DocSpec(i, kind, _uniq(doms), _uniq([p.id, p.owner_team, p.approver,
                                                       ref["system"] if shown else ""]), ref, quarter=q,
                           date=p.effective[ref["version"]])
        if kind in ("project_status", "project_charter", "project_update"):
            if kind == "project_update":  # notes on work still running: a project completed in Q3 has none
                ref["quarter"] = q = "2024-Q3"
                day = _day(r, "2024-07-01")
                ref["project"] = self._project_led_by(r, i, day, 0.35)
                ref["date"], ref["n"] = self._free_day(r, "update", ref["project"], day, date.fromisoformat(day))
            p = w.get(ref["project"])
            doms = ["projects"]
            if kind == "project_charter" or r.random() < 0.35:
                doms.append(r.choice(["engineering", "products"]))
            if kind == "project_charter":
                ents = [p.id, p.lead, p.sponsor, p.team, p.product, *p.partner_teams]
            else:
                day = ref.get("date") or QUARTER_END_ISO[q]
                ref["extra"] = self._person(r, i, by=day)
                ents = [p.id, p.lead if kind == "project_status" else "", ref["extra"]]
                if len(doms) > 1:
                    ents += [p.product, w.get(p.product).team]
            return DocSpec(i, kind, _uniq(doms), _uniq(ents), ref, quarter=q if kind == "project_status" else None,
                           date=None if kind == "project_charter" else ref.get("date") or QUARTER_END_ISO[q])
        if kind == "system_status":
            s = w.get(ref["system"])
            return DocSpec(i, kind, ["it"], _uniq([s.id, s.owner_team, s.admin]), ref, quarter=q)
        if kind == "system_overview":
            s = w.get(ref["system"])
            doms = ["it"] + (["engineering"] if r.random() < 0.5 else [])
            return DocSpec(i, kind, doms, _uniq([s.id, s.owner_team, s.admin]), ref)
        if kind == "profile":
            p = w.get(ref["person"])
            projs = [x.id for x in w.projects[: projects_at(i)] if x.lead == p.id][:3]
            ref["projects"] = projs
            doms = ["people"] + (["projects"] if projs else [])
            return DocSpec(i, kind, doms, _uniq([p.id, p.team, p.manager or "", *projs]), ref)
        if kind == "team_page":
            t = w.get(ref["team"])
            members = [p.id for p in w.people[1:CORE_PEOPLE] if p.team == t.id and p.id != t.lead
                       and not p.left][:8]
            ref["members"] = members
            doms = ["people", t.domain] if t.domain != "people" else ["people"]
            return DocSpec(i, kind, _uniq(doms), _uniq([t.id, t.lead, *members]), ref)
        if kind == "product_spec":
            p = w.get(ref["product"])
            return DocSpec(i, kind, ["products", "engineering"], _uniq([p.id, p.manager, p.team]), ref)
        if kind == "eng_process":
            pol = [x for x in w.policies if x.domain == "engineering"][ref["process"] % 4]
            ref["policy"] = pol.id
            return DocSpec(i, kind, ["engineering"], [pol.id], ref)
        if kind in ("access_review", "onboarding", "release_notes", "ops_digest"):
            return self._spec_cluster(i, kind, ref, r)
        if kind == "team_news":
            t = w.teams[r.randrange(len(w.teams))]
            # the newest joiner (this year's hires only), announced once, by their own team's newsletter
            newest = w.people[people_at(i) - 1] if people_at(i) > CORE_PEOPLE else None
            if newest is not None and newest.id not in self.announced:
                self.announced.add(newest.id)
                t = w.get(newest.team)
            else:
                newest = None
            doms = ["communications", "people"] if r.random() < 0.5 else ["communications"]
            ref["date"], ref["n"] = self._free_day(r, "news", t.id, newest.joined if newest else "2024-01-02")
            # the project the team is working on is still running on the newsletter's day
            ref.update(team=t.id, person=newest.id if newest else None,
                       project=self._project_led_by(r, i, ref["date"], 0.35))
            return DocSpec(i, kind, doms, _uniq([t.id, t.lead, newest.id if newest else "", ref["project"]]), ref,
                           date=ref["date"])
        return self._spec_announcement(i, kind, ref, r)

    def _spec_cluster(self, i: int, kind: str, ref: dict[str, Any], r) -> DocSpec:
        w = self.w
        if kind == "access_review":
            s = w.get(ref["system"])
            ref["auditor"] = r.choice([p.id for p in w.people[:CORE_PEOPLE] if p.team == "T13" and not p.left]
                                      or ["P0014"])
            return DocSpec(i, kind, ["compliance", "it"], _uniq([s.id, s.owner_team, ref["auditor"]]), ref,
                           cluster=ref["cluster"])
        if kind == "onboarding":
            t = w.get(ref["team"])
            ref["buddy"] = r.choice([p.id for p in w.people[:CORE_PEOPLE] if p.team == t.id and not p.left]
                                    or [t.lead])
            return DocSpec(i, kind, ["hr", t.domain] if t.domain != "hr" else ["hr"],
                           _uniq([t.id, t.lead, ref["buddy"]]), ref, cluster=ref["cluster"])
        if kind == "release_notes":
            if "product" not in ref:  # a later release of the product: the next patch number
                ref["product"] = r.choice(w.products).id
                ref["minor"] = self._number("release", ref["product"])
            p = w.get(ref["product"])
            return DocSpec(i, kind, ["products"], _uniq([p.id, p.manager]), ref, cluster=ref.get("cluster"))
        # Each week has one digest, and no later incident is dated in a digested week (schedule_year._ticket_day),
        # so the incidents of the week so far are all of them.
        monday = self._digest_week()
        self.digest_weeks.add(monday)
        ref["monday"] = monday.isoformat()
        week = sorted((t for t in w.tickets if monday <= date.fromisoformat(t["date"]) < monday + timedelta(days=7)),
                      key=lambda t: int(t["id"][4:]))  # in number order (numbers grow with days)
        ref["incidents"] = [t["id"] for t in week]
        ref["systems"] = _uniq([t["system"] for t in week])
        if not ref["systems"]:
            return DocSpec(i, kind, ["it", "engineering"], ["SYS-06"], ref, cluster=ref["cluster"])
        return DocSpec(i, kind, ["it", "engineering"], _uniq(ref["systems"]), ref, cluster=ref["cluster"])

    def _spec_announcement(self, i: int, kind: str, ref: dict[str, Any], r) -> DocSpec:
        w = self.w
        if ref.get("topic") == "farewell":
            return self._farewell_spec(i, kind, ref)
        topic = r.choice(["policy", "project", "system", "people"])
        ref["topic"] = topic
        ref["author"] = r.choice(["P0000", *[t.lead for t in w.teams]])
        if topic == "people":  # a promotion, announced by the person's team lead
            spec = self._promotion_spec(i, kind, ref, r)
            if spec is not None:
                return spec
            topic = ref["topic"] = r.choice(["project", "system"])  # nobody left to announce
        if topic == "policy":
            p = self._policy(r)
            ref["policy"] = p.id
            ref["author"] = p.approver  # a reminder comes from the team that owns the policy
            ref["version"] = r.randrange(3)
            eff = date.fromisoformat(p.effective[ref["version"]])  # a reminder in the weeks before it applies
            ref["date"], ref["n"] = self._free_day(r, "announce", f"{p.id}|{ref['version']}",
                                                   (eff - timedelta(days=28)).isoformat(), eff)
            return DocSpec(i, kind, ["communications", p.domain], [p.id, ref["author"]], ref, date=ref["date"])
        if topic == "project":  # news from a project still running on the day
            day = _day(r, "2024-01-02")
            p = w.get(self._project_led_by(r, i, day, 0.35))
            ref["project"] = p.id
            lo = max("2024-01-02", w.get(p.lead).joined)
            hi = date.fromisoformat(max(lo, open_until(p)))
            ref["date"], ref["n"] = self._free_day(r, "announce", p.id, lo, hi)
            return DocSpec(i, kind, ["communications", "projects"], _uniq([p.id, p.lead, ref["author"]]), ref,
                           date=ref["date"])
        s = w.get(self._system(r))
        ref["system"] = s.id
        ref["date"], ref["n"] = self._free_day(r, "announce", s.id, "2024-01-02")
        return DocSpec(i, kind, ["communications"], _uniq([s.id, s.owner_team, ref["author"]]), ref,
                       date=ref["date"])


def iter_specs(world: World) -> Iterator[DocSpec]:
    """Specs for documents ``0..world.n_docs-1``, in order (fills ``world.tickets/decisions/meetings``)."""
    s = Scheduler(world)
    m = MentionTracker(world)
    for i in range(world.n_docs):
        spec = s.spec(i)
        spec.mentions = m.take(spec)
        yield spec


__all__ = ["CLUSTERS", "DocSpec", "Scheduler", "iter_specs"]
