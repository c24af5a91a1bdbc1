"""Query variants for suites larger than the design's 300 (a suite that scales).

The categories' own generators (:mod:`generators`) draw most of their subjects from the world's policies, systems
and projects (58-61 policies, 44-56 systems, 61-99 projects on medium and full), so a suite of several hundred
queries piles onto the same subjects and its splits fall below the topic target (two thirds of a split's queries
in distinct clusters). The world's most numerous entities are its incidents, decisions and people (full: about
720 incidents, 380 decisions, 500 people), each a topic of its own. For a suite of N > 300 queries the planner
hands a share ``1 - 300 / N`` (at most :data:`MAX_SHARE`) of a category's draws to a variant over those kinds
(:func:`scaled`); at N = 300 the share is 0 and no draw changes (the design's suite is byte-identical).

- comparative: which of two incidents lasted longer, which of two decisions is expected to cost more;
- temporal: which of two incidents was opened first;
- two-hop: where the person who reported an incident is based, or their job title (the incident, then a profile);
  a slot aimed at a medium chain takes which vendor supplies the system an incident hit, or what kind of system
  it is (the incident, then the system's overview: one branch);
- thematic: a person's job title, team and office (and when this year's joiners joined), stated on their profile
  and a team page, an announcement or a team-news item (one chunk: easy); a slot aimed at other evidence takes
  another form (:data:`SCALE_FORMS`): two colleagues' job titles and offices (two profiles: medium), or a person's
  job title and office with every incident they reported (the profile and each report: hard, over 400 tokens
  from three or four reports);
- detail: who owns a decision.

Entity-spanning questions get no variant: a narrow person summary (tried) left the topic share at 900 queries
where it was and pushed the category's budget-feasible share from 0.60 to 0.76 (design 0.60).
A slot aimed at evidence no form of the variant has still takes the variant's draws (giving them to the
category's own generator, tried, spends the policies, systems and projects every category shares: at 450 on
medium seed 0 the dev topic share fell to 0.61, and at 900 thematic medium slots giving all or half their
variant draws back left the tune split at 0.63-0.665 distinct clusters on 6,000 documents); the fit window
(:mod:`fit`) turns its draws down first. ``describe`` reports the feasible shares and tier mix per
category (docs/meridian.md has the figures).

Each is an intent over the world like the others (the words name every fact it needs) and passes the same checks.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hcrbench.synth.corpus.text import human_date, money
from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.questions.category import RegistryView
from hcrbench.synth.questions.category import get as get_category
from hcrbench.synth.questions.reach import _free, _free_items, largest_of
from hcrbench.synth.world_model.facts import fact_value

Gen = Callable[[Catalog, random.Random, str], "QueryPlan | None"]
#: The most of a category's draws the scale variants take (the core kinds keep a share at any N).
MAX_SHARE = 0.75


def scale_share(n_queries: int, design: int = 300) -> float:
    """The share of a category's draws handed to the variants for a suite of ``n_queries``: 0 up to the design's
    suite, then ``1 - design / n_queries``, at most :data:`MAX_SHARE`."""
    return 0.0 if n_queries <= design else min(MAX_SHARE, 1.0 - design / n_queries)


def _plan(c: Catalog, cat: str, diff: str, text: str, answer, facts: list[str], ents: list[str], intent: str,
          chain: bool = False, **params) -> QueryPlan | None:
    if not facts or any(not c.stated(f) for f in facts):
        return None
    plan = QueryPlan(cat, diff, "world", text, answer, list(dict.fromkeys(facts)), list(dict.fromkeys(ents)),
                     chain)
    plan.intent, plan.params = intent, params
    return plan


def longer_or_costlier(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Which of two incidents lasted longer, or which of two decisions is expected to cost more."""
    if r.random() < 0.6:
        if (drawn := largest_of(c, r, c.core_tickets, 2, lambda t: t["duration_min"])) is None:
            return None
        (a, b), win = drawn
        lose = b if win is a else a
        text = {"easy": f"Which incident lasted longer, {a['id']} or {b['id']}?",
                "medium": f"Of {a['id']} and {b['id']}, which disruption went on for longer?",
                "hard": f"Between {a['id']} and {b['id']}, which outage took more time to resolve?"}[diff]
        return _plan(c, "comparative", diff, text, f"{win['id']} ({win['duration_min']} minutes against "
                     f"{lose['duration_min']})", [f"tkt:{a['id']}:duration", f"tkt:{b['id']}:duration"],
                     [a["id"], b["id"]], "longer_incident", tickets=[a["id"], b["id"]])
    if (drawn := largest_of(c, r, c.core_decisions, 2, lambda d: d["cost_k"])) is None:
        return None
    (a, b), win = drawn
    text = {"easy": f"Which decision has the higher expected cost, {a['id']} or {b['id']}?",
            "medium": f"Of {a['id']} and {b['id']}, which decision is expected to cost more?",
            "hard": f"Between {a['id']} and {b['id']}, which choice carries the bigger price tag?"}[diff]
    return _plan(c, "comparative", diff, text, f"{win['id']} ({money(win['cost_k'])})",
                 [f"dec:{a['id']}:cost", f"dec:{b['id']}:cost"], [a["id"], b["id"]], "costlier_decision",
                 decisions=[a["id"], b["id"]])


def opened_first(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Which of two incidents was opened first (both dates are needed)."""
    a, b = c.sample(r, c.core_tickets, 2)
    if a["date"] == b["date"]:
        return None
    first = a if a["date"] < b["date"] else b
    text = {"easy": f"Which incident was opened first, {a['id']} or {b['id']}?",
            "medium": f"Was {a['id']} or {b['id']} raised earlier?",
            "hard": f"Of {a['id']} and {b['id']}, which came earlier in 2024?"}[diff]
    return _plan(c, "temporal", diff, text, f"{first['id']} ({human_date(first['date'])})",
                 [f"tkt:{a['id']}:date", f"tkt:{b['id']}:date"], [a["id"], b["id"]], "earlier_incident",
                 tickets=[a["id"], b["id"]])


def reporter_fact(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Where the person who reported an incident is based, or their job title: the incident, then a profile."""
    w = c.w
    t = c.pick(r, c.core_tickets)
    rep = t["reporter"]
    what = r.choice(["location", "role"])
    if c.profile(rep) is None or not c.usable(rep) or not _free(c, [f"tkt:{t['id']}:reporter", f"per:{rep}:{what}"]):
        return None
    text = {"location": f"In which office is the person who reported {t['id']} based?",
            "role": f"What is the job title of the person who reported {t['id']}?"}[what]
    facts = [f"tkt:{t['id']}:reporter", f"per:{rep}:{what}"]
    return _plan(c, "two_hop", diff, text, fact_value(w, facts[-1]), facts, [t["id"], rep],
                 f"{what}_of_incident_reporter", chain=True, ticket=t["id"])


def incident_system_fact(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Which vendor supplies the system an incident hit, or what kind of system it is: the incident report, then
    the system's overview (two chunks of one branch: medium)."""
    w = c.w
    t = c.pick(r, c.core_tickets)
    sy = w.get(t["system"])
    what = r.choice(["vendor", "kind"])
    facts = [f"tkt:{t['id']}:system", f"sys:{sy.id}:{what}"]
    if not c.usable(sy.id) or not _free(c, facts):
        return None
    text = {"vendor": {"easy": f"Which vendor supplies the system that {t['id']} affected?",
                       "medium": f"Who is the supplier of the system hit by {t['id']}?",
                       "hard": f"Which firm makes the tool that went wrong in {t['id']}?"},
            "kind": {"easy": f"What kind of system is the one that {t['id']} affected?",
                     "medium": f"What sort of system was hit by {t['id']}?",
                     "hard": f"What does the tool that went wrong in {t['id']} do for us?"}}[what][diff]
    return _plan(c, "two_hop", diff, text, fact_value(w, facts[-1]), facts, [t["id"], sy.id],
                 f"{what}_of_incident_system", chain=True, ticket=t["id"])


def person_at_a_glance(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A person's job title, team and office (and, for this year's joiners, when they joined)."""
    w = c.w
    if "scale_people" not in c.cache:
        c.cache["scale_people"] = [p for p in w.people[1:] if c.profile(p.id) is not None and not p.left]
    # people whose facts no other split owns yet (a chain or an ambiguous question may own them without naming
    # the person: a large suite would otherwise draw people its splits cannot use)
    free = _free_items(c, "scale_people", c.cache["scale_people"], lambda p: [("entity", p.id), *(
        ("fact", f"per:{p.id}:{a}") for a in ("role", "team", "location", "joined"))])
    if not free:
        return None
    p = c.pick(r, free)
    aspects = ["role", "team", "location"] + (["joined"] if p.joined >= "2024" else [])
    facts = [f"per:{p.id}:{a}" for a in aspects]
    if len({d for f in facts for d in c.docs_stating(f)}) < 2:
        return None  # a thematic question needs facts stated across documents (the profile alone is a lookup)
    words = {"role": "job title", "team": "team", "location": "office", "joined": "start date"}
    asked = ", ".join(words[a] for a in aspects[:-1]) + f" and {words[aspects[-1]]}"
    text = {"easy": f"What are {p.name}'s {asked}?", "medium": f"For {p.name}, what {asked} do our pages give?",
            "hard": f"Who is {p.name} at Meridian: {asked}?"}[diff]
    answer = [f"{words[a]}: {fact_value(w, f)}" for a, f in zip(aspects, facts, strict=True)]
    return _plan(c, "thematic", diff, text, answer, facts, [p.id], "person_at_a_glance", person=p.id)


def colleagues_at_a_glance(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Two colleagues of one team: each one's job title and office (two profiles, one branch: medium; never two
    that one page lists together)."""
    w = c.w
    if "scale_teams" not in c.cache:
        teams: dict[str, list] = {}
        for p in w.people[1:]:
            if c.profile(p.id) is not None and not p.left:
                teams.setdefault(p.team, []).append(p)
        c.cache["scale_teams"] = [m for _, m in sorted(teams.items()) if len(m) >= 2]
    teams = c.memo("scale_teams_free", lambda: [ok for m in c.cache["scale_teams"] if len(ok := [
        p for p in m if c.usable(p.id) and _free(c, [f"per:{p.id}:role", f"per:{p.id}:location"])]) >= 2])
    if not teams:
        return None
    a, b = c.sample(r, teams[r.randrange(len(teams))], 2)
    facts = [f"per:{x.id}:{k}" for x in (a, b) for k in ("role", "location")]
    if frozenset.intersection(*(c.docs_stating(f) for f in facts)):
        return None  # a team page that lists both is one lookup (easy), not two profiles
    text = {"easy": f"What are the job titles of {a.name} and {b.name}, and which office is each of them in?",
            "medium": f"What do {a.name} and {b.name} do at Meridian, and where is each of them based?",
            "hard": f"Which roles do {a.name} and {b.name} hold, and from which offices do they work?"}[diff]
    answer = [f"{x.name}: {fact_value(w, f'per:{x.id}:role')}, {fact_value(w, f'per:{x.id}:location')}"
              for x in (a, b)]
    return _plan(c, "thematic", diff, text, answer, facts, [a.id, b.id], "colleagues_at_a_glance",
                 people=[a.id, b.id])


def reporter_at_a_glance(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A person's job title and office and every incident they reported this year: the profile, then each
    incident report (two branches: hard; three incidents or more are over 400 tokens)."""
    w = c.w
    if "scale_reporters" not in c.cache:
        by: dict[str, list[str]] = {}
        for t in w.tickets:
            by.setdefault(t["reporter"], []).append(f"tkt:{t['id']}:reporter")
        c.cache["scale_reported"] = by
        c.cache["scale_reporters"] = [p for p in w.people[1:] if p.id in by and len(by[p.id]) <= 6 and not p.left
                                      and c.profile(p.id) is not None and all(c.stated(f) for f in by[p.id])]
    by = c.cache["scale_reported"]
    free = _free_items(c, "scale_reporters", c.cache["scale_reporters"],
                       lambda p: [("entity", p.id), *(("fact", f) for f in by[p.id])])
    if not free:
        return None
    p = c.pick(r, free)
    reported = by[p.id]
    facts = [f"per:{p.id}:role", f"per:{p.id}:location", *reported]
    if not _free(c, facts[:2]):
        return None
    text = {"easy": f"What are {p.name}'s job title and office, and which incidents has {p.name} reported?",
            "medium": f"What does {p.name} do and where, and which incidents did {p.name} raise?",
            "hard": f"Tell me about {p.name}: job title, office, and every incident they have reported."}[diff]
    answer = [f"job title: {fact_value(w, facts[0])}", f"office: {fact_value(w, facts[1])}"] + [
        f"reported {f.split(':')[1]}" for f in reported]
    return _plan(c, "thematic", diff, text, answer, facts, [p.id], "reporter_at_a_glance", person=p.id)


def decision_owner(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """Who owns one decision (one identifier-bound fact)."""
    d = c.pick(r, c.core_decisions)
    text = {"easy": f"Who owns decision {d['id']}?", "medium": f"Who is the owner of {d['id']}?",
            "hard": f"Which person is responsible for carrying out {d['id']}?"}[diff]
    fid = f"dec:{d['id']}:owner"
    return _plan(c, "detail", diff, text, fact_value(c.w, fid), [fid], [d["id"]], "decision_owner",
                 decision=d["id"])


#: category -> the variant a larger suite hands its share of the draws; category -> (slot target -> the variant
#: that serves it instead); the categories whose hard draws stay their own until the planner's last tries. Views
#: of each category's ``scale``, ``scale_forms`` and ``keep_hard`` (:mod:`~hcrbench.synth.questions.builtin`,
#: where each choice is explained).
SCALE = RegistryView(lambda cats: {c.name: c.scale for c in cats if c.scale is not None})
SCALE_FORMS = RegistryView(lambda cats: {c.name: dict(c.scale_forms) for c in cats if c.scale_forms})
KEEP_HARD = RegistryView(lambda cats: {c.name: True for c in cats if c.keep_hard})


def form_for(category: str, target: tuple[str, bool] | None) -> Gen:
    """The variant of ``category`` that serves a slot aimed at ``target`` (its ``scale_forms``, else its
    ``scale``)."""
    spec = get_category(category)
    if spec is None or spec.scale is None:
        raise KeyError(category)
    return spec.scale_forms.get(target) or spec.scale  # type: ignore[arg-type]


def scaled(category: str, gen: Gen) -> Gen:
    """``gen`` for ``category``, handing :data:`SCALE`'s variant the catalog's ``scale_share`` of the draws (set
    by the planner from the suite size, :func:`scale_share`; 0 draws nothing extra, so a 300-query suite is
    unchanged)."""
    spec = get_category(category)
    if spec is None or spec.scale is None:
        return gen

    keep_hard = spec.keep_hard

    def draw(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
        share = c.state.scale_share
        if share and (not (keep_hard and diff == "hard") or c.state.relaxed) and r.random() < share:
            return form_for(category, c.state.target)(c, r, diff)
        return gen(c, r, diff)

    return draw


def rescued(category: str, gen: Gen) -> Gen:
    """``gen`` (the category's draws with its patterns and reach variants), handing :data:`SCALE`'s variant the
    ``scale_share`` of the draws in the planner's last tries at a slot (``relaxed``: no draw of the category's
    own filled it), before the reach variants take theirs (a hard thematic slot of a 3,000-query suite otherwise
    hands 80% of its last draws to project histories the world has run out of)."""
    spec = get_category(category)
    if spec is None or spec.scale is None:
        return gen

    def draw(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
        share = c.state.scale_share
        if share and c.state.relaxed and r.random() < share:
            return form_for(category, c.state.target)(c, r, diff)
        return gen(c, r, diff)

    return draw
