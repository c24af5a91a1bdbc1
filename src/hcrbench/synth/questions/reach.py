"""Query variants that reach the design's evidence targets in deliverable chunks.

Each category's own generator (:mod:`generators`) makes queries of a typical reach: a two-hop chain over two
documents of two domains, a comparison of two sides, one quarter's status. The design also asks for queries a
400-token context cannot hold (half of the two-hop questions, most 3+-hop ones, more than half of the
comparisons) and for entity summaries that fit it (60%). The planner gives each slot a ``(tier, feasible)``
target (:mod:`fit`) and sets it on the catalog (``cat.state.target``); :func:`reach` then hands part of the
slot's draws to a variant whose evidence usually has that reach:

- two-hop within one branch (medium): a person's manager, then where that manager is based or their job title
  (two profiles, the people domain); fanned out (hard, over 400 tokens): where every attendee of a meeting is
  based or what their job title is (the meeting, then each attendee's profile), or where the people assigned to
  four incidents are based (each incident report, then each assignee's profile);
- 3+-hop fanned out: for each attendee of a meeting, where the person they report to is based (or their job
  title), or for two or three incidents, where each assignee's manager is based (three hops per branch; their
  facts are mostly ordinary people's, so a small world holds more of them than of four-hop chains); and of four
  hops: two levels up a reporting line from a ticket's assignee, a project's lead or a system's administrator,
  then where that manager is based;
- comparisons of four or five sides (the largest budget of several projects, the most users of several systems);
- temporal questions over several projects' reports of one quarter;
- thematic questions over a project's charter and its three quarterly reports;
- ambiguous names two people share as written with an initial ("J. Garcia": two profiles);
- narrow entity summaries: a project's charter facts and its latest status, a person's profile facts and two
  events of theirs (without the 11-document target).

Every variant is an intent over the world like the others (the words name every fact it needs), checked by the
same category properties; whether a draw fits its slot is measured, not assumed (:func:`query_fit.fits`)."""

from __future__ import annotations

import random
from collections.abc import Callable

from hcrbench.synth.corpus.meeting_refs import kind_in, question_words
from hcrbench.synth.corpus.render_entities import qlabel
from hcrbench.synth.corpus.text import human_date, money
from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.questions.category import RegistryView
from hcrbench.synth.questions.category import get as get_category
from hcrbench.synth.questions.entity import ENTITY_MIN_FACTS, PERSON, PROJECT, fact_line
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.facts import fact_value

Gen = Callable[[Catalog, random.Random, str], "QueryPlan | None"]


def _plan(c: Catalog, cat: str, diff: str, text: str, answer, facts: list[str], ents: list[str], intent: str,
          chain: list[str] | None = None, **params) -> QueryPlan | None:
    if not facts or any(not c.stated(f) for f in facts):
        return None
    plan = QueryPlan(cat, diff, "world", text, answer, list(dict.fromkeys(facts)), list(dict.fromkeys(ents)),
                     chain is not None)
    if chain is not None and chain != plan.facts:
        plan.extra["chain"] = list(chain)
    plan.intent, plan.params = intent, params
    return plan


def _free(c: Catalog, facts: list[str]) -> bool:
    """True when no other split owns any of ``facts`` yet (the planner's split ledger, ``cat.state.split_owner``)."""
    return all(c.state.split_owner.get(("fact", f), c.state.split) == c.state.split for f in facts)


def _profiled(c: Catalog, pid: str | None) -> bool:
    return pid is not None and c.profile(pid) is not None


def _free_items(c: Catalog, key: str, items: list, nodes_of: Callable[[object], list | None]) -> list:
    """The items of ``items`` that ``nodes_of`` gives ledger nodes (None: the world rules the item out; computed
    once per catalog) whose every node (``("entity", id)``, ``("fact", id)``) is free in the slot's split, in
    order: :meth:`Catalog.free`, kept up to date as the ledger grows instead of scanned after every query."""
    got = c.cache.get(("free_base", key))
    if got is None or got[0] is not items:  # type: ignore[index]
        rows = [(x, ns) for x in items if (ns := nodes_of(x)) is not None]
        got = c.cache[("free_base", key)] = (items, [x for x, _ in rows], {id(x): ns for x, ns in rows})
    _, base, by_id = got  # type: ignore[misc]
    return c.free(("free", key), base, lambda x: by_id[id(x)])


def _facts(fs) -> list:
    return [("fact", f) for f in fs]


def _up_nodes(c: Catalog, pid: str | None, levels: int) -> list | None:
    """The ledger nodes of a reporting line ``levels`` managers up from ``pid`` and where the last one is based
    (None when the line is shorter): every person on it and each hop's fact."""
    w = c.w
    line = [w.get(pid)] if pid else [None]
    while line[-1] is not None and len(line) < levels:
        line.append(w.get(line[-1].manager) if line[-1].manager else None)
    if line[-1] is None or line[-1].manager is None:
        return None
    ids = [x.id for x in line] + [line[-1].manager]
    facts = [f"per:{x}:manager" for x in ids[:-1]] + [f"per:{ids[-1]}:location"]
    return [("entity", x) for x in ids] + _facts(facts)


# ------------------------------------------------------------------------------------------- two-hop
def two_hop_within(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """X's manager, then where that manager is based or their job title: two profiles of one branch."""
    w = c.w
    if "within_people" not in c.cache:  # (the world's: one list, so pick's filter of it is kept)
        c.cache["within_people"] = [p for p in w.people[1:] if _profiled(c, p.id) and _profiled(c, p.manager)]
    per = c.pick(r, c.cache["within_people"])
    mgr = w.get(per.manager)
    what = r.choice(["location", "role"])
    text = {"location": f"In which office is the person {per.name} reports to based?",
            "role": f"What is the job title of the person {per.name} reports to?"}[what]
    facts = [f"per:{per.id}:manager", f"per:{mgr.id}:{what}"]
    return _plan(c, "two_hop", diff, text, fact_value(w, facts[-1]), facts, [per.id, mgr.id],
                 f"{what}_of_manager", chain=facts, person=per.id)


def _meeting_words(c: Catalog, m: dict) -> str | None:
    """How a question names meeting ``m`` by what its notes write (:func:`~hcrbench.synth.corpus.meeting_refs.
    question_words`; the kinds come from the notes' titles); None when its kind and date would not pick it out."""
    if "meeting_kinds" not in c.cache:
        kinds: dict[str, list[str]] = {}
        for x in c.w.meetings:
            kinds.setdefault(x["date"], []).append(kind_in(c.title(x["doc"])) or "meeting")
        c.cache["meeting_kinds"] = kinds
    day = c.cache["meeting_kinds"][m["date"]]
    return question_words(c.w, m, kind_in(c.title(m["doc"])) or "meeting", day)


def two_hop_fanout(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Every attendee of one meeting, then where each is based (or their job title, or who they report to):
    meetings of four or more attendees first (three attendees' profiles can fit 400 tokens)."""
    w = c.w
    what = r.choice(["location", "role", "manager"])
    cache = c.cache.setdefault("fanout_meetings", {})
    if what not in cache:  # meetings of 3+ attendees whose every fact is stated (a draw is then never None)
        cache[what] = [m for m in w.meetings if len(m["attendees"]) >= 3 and all(
            c.stated(f"mtg:{m['id']}:attendee:{a}") and c.stated(f"per:{a}:{what}") for a in m["attendees"])]
    ok = _free_items(c, f"fanout|{what}", cache[what], lambda m: [("entity", m["id"]), *_facts(
        [*(f"mtg:{m['id']}:attendee:{a}" for a in m["attendees"]), *(f"per:{a}:{what}" for a in m["attendees"])])])
    wide = c.memo(("fanout_wide", id(ok)), lambda: (ok, [m for m in ok if len(m["attendees"]) >= 4]))[1]
    if wide and r.random() < 0.8:
        ok = wide
    if not ok:
        return None
    m = c.pick(r, ok)
    when = _meeting_words(c, m)
    if when is None:
        return None
    text = {"location": f"In which office is each person who attended {when} based?",
            "role": f"What is the job title of each person who attended {when}?",
            "manager": f"Who does each person who attended {when} report to?"}[what]
    att = list(m["attendees"])
    facts = [f"mtg:{m['id']}:attendee:{a}" for a in att] + [f"per:{a}:{what}" for a in att]
    answer = [f"{w.get(a).name}: {fact_value(w, f'per:{a}:{what}')}" for a in att]
    # the attendees are bridges the words do not name: their facts link the query to the split graph
    a0 = r.randrange(len(att))  # the chain the bridge cap counts: any attendee's (all have the same shape)
    return _plan(c, "two_hop", diff, text, answer, facts, [m["id"]], f"{what}_of_meeting_attendees",
                 chain=[facts[a0], facts[len(att) + a0]], meeting=m["id"])


def _ticket_chains(c: Catalog, r: random.Random, k: int, up: bool
                   ) -> tuple[list[tuple[dict, list[str]]], tuple[str, str]] | None:
    """``k`` tickets of the split with distinct assignees, each with its chain: the assignee, (their manager,)
    where the last person is based; every ticket usable and every fact stated and free in the split. The tickets
    are one family (one system's, else one team's systems'; None when no family has ``k`` people), in
    date order, returned with the family (``("system", id)`` or ``("team", id)``)."""
    w = c.w
    key = ("ticket_chains", up)
    if key not in c.cache:
        rows = []
        for t in c.core_tickets:
            a = w.get(t["assignee"])
            if up and a.manager is None:
                continue
            end = a.manager if up else a.id
            facts = [f"tkt:{t['id']}:assignee"] + ([f"per:{a.id}:manager"] if up else []) + [f"per:{end}:location"]
            if all(c.stated(f) for f in facts):
                rows.append((t, facts))
        c.cache[key] = rows
    ok = _free_items(c, f"ticket_chains|{up}", c.cache[key],  # type: ignore[arg-type]
                     lambda tf: [("entity", tf[0]["id"]), *_facts(tf[1])])

    def group() -> tuple:
        # an incident family a person would ask about together: one system's incidents, else those of the
        # systems one team owns; within a family one incident per person at the end of the chain
        fams: dict[tuple[str, str], dict[str, list[tuple[dict, list[str]]]]] = {}
        for t, f in ok:
            for fam in (("system", t["system"]), ("team", w.get(t["system"]).owner_team)):
                fams.setdefault(fam, {}).setdefault(f[-1], []).append((t, f))
        return ok, fams
    _, fams = c.memo(("ticket_chains_by_family", id(ok)), group)
    for kind in ("system", "team"):
        usable = sorted(f for f, people in fams.items() if f[0] == kind and len(people) >= k)
        if usable:
            for _ in range(FAMILY_TRIES):  # incidents a date picks out first (the words then need no number)
                fam = r.choice(usable)
                by_person = fams[fam]
                got = [r.choice(by_person[e]) for e in r.sample(sorted(by_person), k)]
                if _dates_pick_out(w, got):
                    break
            return sorted(got, key=lambda tf: tf[0]["date"]), fam
    return None


#: Draws of a fan-out's family and incidents before one whose dates do not pick the incidents out is kept.
FAMILY_TRIES = 5


def _dates_pick_out(w, got: list) -> bool:
    """Whether each incident's date is that of no other incident of the systems the fan-out names."""
    systems = {t["system"] for t, _ in got}
    return all(sum(x["system"] in systems and x["date"] == t["date"] for x in w.tickets) == 1 for t, _ in got)


def _family_text(c: Catalog, got: list, fam: tuple[str, str]) -> str:
    """The incidents of a fan-out as a person groups them, by their dates where each date picks out one incident
    of the systems the words name: a system's ("the Atlas CRM incidents of 3 May 2024 and 9 June 2024"), or a
    team's, each date with its system; by their numbers where a date does not pick one out."""
    w = c.w
    days = [t["date"] for t, _ in got]
    unique = _dates_pick_out(w, got)
    ids = [t["id"] for t, _ in got]
    if fam[0] == "system":
        if unique:
            dates = [human_date(d) for d in days]
            return f"the {w.get(fam[1]).name} incidents of {', '.join(dates[:-1])} and {dates[-1]}"
        return f"the {w.get(fam[1]).name} incidents {', '.join(ids[:-1])} and {ids[-1]}"
    if unique:
        each = [f"{human_date(t['date'])} on {w.get(t['system']).name}" for t, _ in got]
        return f"the {w.get(fam[1]).name} team's incidents of {', '.join(each[:-1])} and {each[-1]}"
    return f"the {w.get(fam[1]).name} team's incidents {', '.join(ids[:-1])} and {ids[-1]}"


def two_hop_tickets(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Where the person assigned to each of four incidents is based: four two-hop chains (each incident report,
    then its assignee's profile)."""
    drawn = _ticket_chains(c, r, 4, up=False)
    if drawn is None:
        return None
    got, fam = drawn
    ids = [t["id"] for t, _ in got]
    text = f"Where are the people assigned to {_family_text(c, got, fam)} based?"
    facts = [f for _, fs in got for f in fs]
    answer = [f"{t['id']}: {c.w.get(t['assignee']).name}, {c.w.get(t['assignee']).location}" for t, _ in got]
    one = r.choice(got)[1]
    return _plan(c, "two_hop", diff, text, answer, facts, ids, "location_of_assignees", chain=one, tickets=ids)


def multi_hop_tickets(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Where the manager of the person assigned to each of two or three incidents is based: three-hop chains
    through each incident report, its assignee's profile and their manager's profile."""
    drawn = _ticket_chains(c, r, r.choice([2, 3]), up=True)
    if drawn is None:
        return None
    got, fam = drawn
    ids = [t["id"] for t, _ in got]
    text = f"For {_family_text(c, got, fam)}, where is the manager of the person assigned to each based?"
    facts = list(dict.fromkeys(f for _, fs in got for f in fs))
    w = c.w
    answer = [f"{t['id']}: {w.get(w.get(t['assignee']).manager).name}, "
              f"{w.get(w.get(t['assignee']).manager).location}" for t, _ in got]
    one = r.choice(got)[1]
    return _plan(c, "multi_hop", diff, text, answer, facts, ids, "location_of_assignees_managers", chain=one,
                 tickets=ids)


# ------------------------------------------------------------------------------------------- 3+-hop
def multi_hop_deep(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Four hops through four documents: two levels up a reporting line from a ticket's assignee, a project's
    lead or a system's administrator, then where that second manager is based; or from a ticket to its system,
    the system's administrator, their manager and where the manager is based; or from a project to its product,
    the product's manager, their manager and where that manager is based."""
    w = c.w
    u = r.random()
    if u < 0.5:  # (its bridges spread over systems, products and their teams' leads)
        return _via_entity(c, r, diff)
    def up2(pid: str | None) -> list | None:  # two managers above, every person and fact on the way
        return _up_nodes(c, pid, 2)

    if u < 0.7:
        t = c.pick(r, _free_items(c, "deep_tickets", c.core_tickets, lambda t: up2(t["assignee"]))
                   or c.core_tickets)
        first, start, ent = f"tkt:{t['id']}:assignee", t["assignee"], t["id"]
        text = f"Where is the manager of the manager of the person assigned to {t['id']} based?"
        intent, params = "location_of_assignee_second_manager", {"ticket": t["id"]}
    elif u < 0.85:
        p = c.pick(r, _free_items(c, "deep_projects", c.projects, lambda p: up2(p.lead)) or c.projects)
        first, start, ent = f"prj:{p.id}:lead", p.lead, p.id
        text = f"In which office does the manager of the manager of project {p.code_name}'s lead work?"
        intent, params = "location_of_project_lead_second_manager", {"project": p.id}
    else:
        sy = c.pick(r, _free_items(c, "deep_systems", w.systems, lambda s: up2(s.admin)) or w.systems)
        first, start, ent = f"sys:{sy.id}:admin", sy.admin, sy.id
        text = f"Where is the person two levels above the primary administrator of {sy.name} in the reporting " \
               "line based?"
        intent, params = "location_of_system_admin_second_manager", {"system": sy.id}
    a = w.get(start)
    if a is None or a.manager is None or w.get(a.manager).manager is None:
        return None
    m1 = w.get(a.manager)
    m2 = w.get(m1.manager)
    facts = [first, f"per:{a.id}:manager", f"per:{m1.id}:manager", f"per:{m2.id}:location"]
    return _plan(c, "multi_hop", diff, text, m2.location, facts, [ent, a.id, m1.id, m2.id], intent, chain=facts,
                 **params)


def multi_hop_fanout(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Three hops fanned out: every attendee of one meeting, the person each reports to, and where that manager
    is based (or their job title): one meeting, each attendee's profile and each manager's profile. Its facts are
    mostly ordinary people's (each attendee's manager), so a small world holds more of them than of four-hop
    chains, which all end two levels up a short reporting line."""
    w = c.w
    what = r.choice(["location", "role"])
    cache = c.cache.setdefault("fanout3_meetings", {})
    if what not in cache:
        rows = []
        for m in w.meetings:
            att = list(m["attendees"])
            if len(att) < 3 or any(w.get(a).manager is None for a in att):
                continue
            mgrs = list(dict.fromkeys(w.get(a).manager for a in att))
            facts = [f"mtg:{m['id']}:attendee:{a}" for a in att] + [f"per:{a}:manager" for a in att] \
                + [f"per:{x}:{what}" for x in mgrs]
            if all(c.stated(f) for f in facts) and not set(att) & set(mgrs):  # (a manager among them: 2 hops)
                rows.append((m, facts))
        cache[what] = rows
    ok = _free_items(c, f"fanout3|{what}", cache[what], lambda mf: [("entity", mf[0]["id"]), *_facts(mf[1])])
    if not ok:
        return None
    meetings, facts_of = c.memo(("fanout3_meetings", id(ok)), lambda: (ok, [x[0] for x in ok],
                                                                        {id(m): f for m, f in ok}))[1:]
    m = c.pick(r, meetings)
    facts = facts_of[id(m)]
    att = list(m["attendees"])
    when = _meeting_words(c, m)
    if when is None:
        return None
    text = {"location": f"For each person who attended {when}, where is the person they report to based?",
            "role": f"For each person who attended {when}, what is the job title of the person they report to?"}[what]
    answer = [f"{w.get(a).name}: {w.get(w.get(a).manager).name}, {fact_value(w, f'per:{w.get(a).manager}:{what}')}"
              for a in att]
    a0 = r.choice(att)  # the chain the bridge cap counts: any attendee's (all are chains of the same shape)
    chain = [f"mtg:{m['id']}:attendee:{a0}", f"per:{a0}:manager", f"per:{w.get(a0).manager}:{what}"]
    return _plan(c, "multi_hop", diff, text, answer, facts, [m["id"]], f"{what}_of_meeting_attendees_managers",
                 chain=chain, meeting=m["id"])


def _via_entity(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A ticket's system and its administrator, or a project's product and its manager, then that person's
    manager and where the manager is based (four hops)."""
    w = c.w
    def up1(pid: str | None) -> list | None:  # a manager above, both people and their facts
        return _up_nodes(c, pid, 1)

    if r.random() < 0.5:
        t = c.pick(r, _free_items(c, "via_tickets", c.core_tickets, lambda t: up1(w.get(t["system"]).admin))
                   or c.core_tickets)
        sy = w.get(t["system"])
        who = w.get(sy.admin)
        first = [f"tkt:{t['id']}:system", f"sys:{sy.id}:admin"]
        text = f"Where is the manager of the primary administrator of the system hit by {t['id']} based?"
        ents, intent, params = [t["id"], sy.id], "location_of_affected_system_admin_manager", {"ticket": t["id"]}
    else:
        p = c.pick(r, _free_items(c, "via_projects", c.projects, lambda p: up1(w.get(p.product).manager))
                   or c.projects)
        prd = w.get(p.product)
        who = w.get(prd.manager)
        first = [f"prj:{p.id}:product", f"prd:{prd.id}:manager"]
        text = f"In which office does the manager of the product manager of the product {p.code_name} changes " \
               "work?"
        ents, intent, params = [p.id, prd.id], "location_of_project_product_manager_manager", {"project": p.id}
    if who is None or who.manager is None:
        return None
    mgr = w.get(who.manager)
    facts = [*first, f"per:{who.id}:manager", f"per:{mgr.id}:location"]
    return _plan(c, "multi_hop", diff, text, mgr.location, facts, [*ents, who.id, mgr.id], intent, chain=facts,
                 **params)


# ------------------------------------------------------------------------------------------- comparative
def largest_of(c: Catalog, r: random.Random, pool: list, k: int, value: Callable) -> tuple[list, object] | None:
    """``k`` sides drawn from ``pool`` and the one with the largest ``value``; None on a tie for the largest (a
    comparison needs one answer)."""
    side = c.sample(r, pool, k)
    vals = [value(x) for x in side]
    if vals.count(max(vals)) > 1:
        return None
    return side, side[vals.index(max(vals))]


def comparative_wide(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """The largest of four or five sides: approved budgets of projects, users of systems."""
    w = c.w
    k = r.choice([4, 5])
    if r.random() < 0.7:
        ok = _free_items(c, "wide_budgets", c.projects, lambda p: [("entity", p.id), ("fact", f"prj:{p.id}:budget")])
        if len(ok) < k or (drawn := largest_of(c, r, ok, k, lambda p: p.budget_k)) is None:
            return None
        side, win = drawn
        names = ", ".join(p.code_name for p in side[:-1]) + f" and {side[-1].code_name}"
        return _plan(c, "comparative", diff, f"Of the projects {names}, which has the largest approved budget?",
                     f"{win.code_name} ({money(win.budget_k)})", [f"prj:{p.id}:budget" for p in side],
                     [p.id for p in side], "largest_budget_of", projects=[p.id for p in side])
    ok = _free_items(c, "wide_users", w.systems, lambda s: [("entity", s.id), ("fact", f"sys:{s.id}:users")])
    if len(ok) < k or (drawn := largest_of(c, r, ok, k, lambda s: s.users)) is None:
        return None
    side, win = drawn
    names = ", ".join(s.name for s in side[:-1]) + f" and {side[-1].name}"
    return _plan(c, "comparative", diff, f"Which of {names} has the most users?", f"{win.name} ({win.users} users)",
                 [f"sys:{s.id}:users" for s in side], [s.id for s in side], "most_users_of",
                 systems=[s.id for s in side])


# ------------------------------------------------------------------------------------------- temporal
def temporal_wide(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """The status four or five projects reported at the end of one quarter."""
    q = r.choice(lx.QUARTERS)
    reported = _free_items(c, f"wide_reported|{q}", c.projects, lambda p: [
        ("entity", p.id), ("fact", f"prj:{p.id}:status:{q}")] if (p.id, q) in c.status_doc else None)
    if len(reported) < 5:
        return None
    side = c.sample(r, reported, r.choice([4, 5]))
    names = ", ".join(p.code_name for p in side[:-1]) + f" and {side[-1].code_name}"
    return _plan(c, "temporal", diff, f"What status did the projects {names} report at the end of {qlabel(q)}?",
                 [f"{p.code_name}: {p.status[q]}" for p in side], [f"prj:{p.id}:status:{q}" for p in side],
                 [p.id for p in side], "statuses_in_quarter", projects=[p.id for p in side], quarter=q)


def temporal_history(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """When each version of one policy took effect and the two figures each set (three versions, one topic)."""
    pol = c.pick(r, c.w.policies)
    p0, p1 = (x["name"] for x in pol.params[:2])
    facts = [f"pol:{pol.id}:v{v}:{k}" for v in range(3) for k in ("effective", "param0", "param1")]
    text = f"When did each version of {pol.id} take effect, and what {p0} and {p1} did each version set?"
    answer = [f"{pol.id}, version {int(f.split(':')[2][1:]) + 1} took effect on {fact_value(c.w, f)}"
              if f.endswith(":effective") else fact_line(c, f) for f in facts]  # (fact_line counts v0, v1 ...)
    return _plan(c, "temporal", diff, text, answer, facts, [pol.id], "policy_versions_over_time", policy=pol.id)


# ------------------------------------------------------------------------------------------- ambiguous
def ambiguous_pair(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A name two people share as written with an initial ("J. Garcia"): two interpretations, each a job title
    stated on a profile (one branch)."""
    w = c.w
    cache = c.cache.setdefault("initial_pairs", {})
    if "pairs" not in cache:
        by_name: dict[str, list[str]] = {}
        for p in w.people[1:]:
            if c.stated(f"per:{p.id}:role"):
                first, last = p.name.split()[0], p.name.split()[-1]
                by_name.setdefault(f"{first[0]}. {last}", []).append(p.id)
        cache["pairs"] = sorted((k, v) for k, v in by_name.items() if len(v) == 2)
    ok = _free_items(c, "initial_pairs", cache["pairs"], lambda kv: [("entity", p) for p in kv[1]])
    if not ok:
        return None
    short, pids = r.choice(ok)
    text = {"hard": f"What does {short} do?", "medium": f"What is {short}'s job at Meridian?",
            "easy": f"Who is {short} at Meridian, and what is their job title?"}[diff]
    interp = [{"label": w.get(p).name, "answer": w.get(p).role, "facts": [f"per:{p}:role"]} for p in pids]
    plan = _plan(c, "ambiguous", diff, text, [f"{i['label']}: {i['answer']}" for i in interp],
                 [f for i in interp for f in i["facts"]], list(pids), "role_of_initial_and_surname", name=short)
    if plan is not None:
        plan.origin = "adversarial:ambiguous"
        plan.interpretations = interp
    return plan


# ------------------------------------------------------------------------------------------- thematic
def thematic_wide(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A project's purpose and progress: its charter facts and the status of each quarterly report (a policy's
    whole history, tried too, is three chunks: medium, not the hard slots this serves)."""
    quarters = [f"status:{q}" for q in lx.QUARTERS]
    ok = _free_items(c, "wide_thematic", c.projects, lambda p: [("entity", p.id), *_facts(
        f"prj:{p.id}:{k}" for k in ("goal", "lead", "budget", *quarters))]
        if all(c.stated(f"prj:{p.id}:{q}") for q in quarters) else None)
    if not ok:
        return None
    p = c.pick(r, ok)
    facts = [f"prj:{p.id}:goal", f"prj:{p.id}:lead", f"prj:{p.id}:budget"] + [f"prj:{p.id}:{q}" for q in quarters]
    text = f"What is project {p.code_name} for, who leads it, what is its budget, and what status did it report " \
           "at the end of each quarter of 2024?"
    return _plan(c, "thematic", diff, text, [fact_line(c, f) for f in facts], facts, [p.id],
                 "project_purpose_and_progress", project=p.id)


# ------------------------------------------------------------------------------------------- entity-spanning
def entity_narrow(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """An entity summary a 400-token context can hold: a project's charter facts and its latest status, or a
    person's profile facts and two events of theirs (reports, incidents, meetings, systems they administer)."""
    w = c.w
    if r.random() < 0.6:
        reported = c.cache.get("narrow_reported")
        if reported is None:  # (the world's, computed once)
            reported = c.cache["narrow_reported"] = [p for p in c.projects if any(
                c.stated(f"prj:{p.id}:status:{q}") for q in lx.QUARTERS)]
        if not reported:
            return None
        p = c.pick(r, reported)
        names = ["lead", "sponsor", "budget", "goal", "product"]
        last = [q for q in lx.QUARTERS if c.stated(f"prj:{p.id}:status:{q}")][-1]  # its latest report
        facts = [f for n in names for f in PROJECT[n][1](w, p.id)] + [f"prj:{p.id}:status:{last}"]
        words = [PROJECT[n][0] for n in names] + [f"its status at the end of {qlabel(last)}"]
        text, eid, chosen, kind = f"Summarise project {p.code_name}: {_join(words)}.", p.id, \
            [*names, "latest_status"], "project"
    else:  # a person's profile facts and two events of theirs (two of: reports, incidents, meetings, systems)
        base = ["role", "team", "location", "manager"]
        cache = c.cache.setdefault("narrow_people", {})
        if "people" not in cache:
            cache["people"] = [x for x in w.people[1:] if x.manager and not x.left
                               and all(c.stated(f) for n in base for f in PERSON[n][1](w, x.id))]
        if not cache["people"]:
            return None
        x = c.pick(r, cache["people"])
        extra = c.cache.get(("narrow_events", x.id))
        if extra is None:  # (the world's, computed once per person)
            extra = {n: PERSON[n][1](w, x.id) for n in ("reports", "assigned", "reported", "meetings", "systems")}
            extra = c.cache[("narrow_events", x.id)] = {n: v for n, v in extra.items()
                                                        if 1 <= len(v) <= 2 and all(c.stated(f) for f in v)}
        two = [n for n, v in extra.items() if len(v) == 2]
        one = [n for n, v in extra.items() if len(v) == 1]
        if two and (len(one) < 2 or r.random() < 0.5):
            add = [r.choice(two)]
        elif len(one) >= 2:
            add = r.sample(one, 2)
        else:
            return None
        chosen = [n for n in PERSON if n in base or n in add]  # the table's order
        facts = [f for n in chosen for f in PERSON[n][1](w, x.id)]
        text, eid, kind = f"For {x.name}, give {_join([PERSON[n][0] for n in chosen])}.", x.id, "person"
    if len(facts) < ENTITY_MIN_FACTS:
        return None
    plan = _plan(c, "entity_spanning", diff, text, [fact_line(c, f) for f in facts], facts, [eid],
                 f"{kind}_aspects", entity=eid, aspects=chosen)
    if plan is not None:
        plan.extra["narrow"] = True
    return plan


def _join(parts: list[str]) -> str:
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


#: (category, slot target) -> the share of the slot's draws each variant takes (the rest: the category's own): a
#: view of each category's ``reach`` (:mod:`~hcrbench.synth.questions.builtin`).
REACH = RegistryView(lambda cats: {(c.name, t): list(v) for c in cats for t, v in c.reach.items()})


def reach(category: str, gen: Gen) -> Gen:
    """``gen`` for ``category``, handing the variants of its ``reach`` their share of the draws of a slot whose
    target (``cat.state.target``, set by the planner) they serve."""
    spec = get_category(category)
    variants = spec.reach if spec is not None else {}

    def draw(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
        for share, variant in variants.get(c.state.target, ()):
            if r.random() < share:
                return variant(c, r, diff)
        return gen(c, r, diff)

    return draw
