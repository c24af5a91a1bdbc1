"""The Meridian world model: teams, people, projects, products, IT systems and versioned policies.

Documents are rendered from this model, so every fact in every document is known. Entity ``j`` of a kind is drawn
from ``rng(seed, kind, j)`` and only refers to entities that exist whenever it exists, so a bigger world is a
superset of a smaller one (entity counts are monotone functions of the corpus size).
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model import lexicon_growth as lg
from hcrbench.synth.world_model.seeds import rng
from hcrbench.synth.world_model.staff_year import CORE_STAFF, N_LEAVERS, choose_leavers, line_role, promotion

CORE_DOCS = 500
CORE_PEOPLE = 120
CORE_PROJECTS = 24
PERSON_PERIOD = 8  # after the core block, every 8th document profiles a new person
PROJECT_PERIOD, PROJECT_PHASE = 40, 4  # ... and every 40th (offset 4) charters a new project
# Meridian 4: the world grows systems and policies with the corpus (the core's 14 systems and 20 policies
# carried most questions, so a suite piled into few topics). After the core block, document offset 50k+1 is the
# service-catalogue entry of growth system k, and offsets 40k+3, 40k+5, 40k+7 are versions 1-3 of growth policy
# k (odd offsets: never a person's or a project's slot), while the lexicon has kinds and topics left. The core
# block could hold the first CORE_EXTRA_SYSTEMS / CORE_EXTRA_POLICIES of them (in place of announcements); both are
# 0: tried at 8 and 6, small's topic share barely moved while its identifier share, quarterly snapshots and wide
# queries left the design's ranges.
SYSTEM_PERIOD, SYSTEM_PHASE = 50, 1
POLICY_PERIOD, POLICY_PHASES = 40, (3, 5, 7)
CORE_EXTRA_SYSTEMS, CORE_EXTRA_POLICIES = 0, 0
LEXICON_SYSTEMS, LEXICON_POLICIES = len(lx.SYSTEMS), len(lx.POLICY_TOPICS)
CORE_SYSTEMS, CORE_POLICIES = LEXICON_SYSTEMS + CORE_EXTRA_SYSTEMS, LEXICON_POLICIES + CORE_EXTRA_POLICIES
assert CORE_STAFF == CORE_PEOPLE


@dataclass
class Team:
    id: str
    name: str
    department: str
    domain: str
    lead: str = ""


@dataclass
class Person:
    id: str
    name: str
    email: str
    team: str
    role: str
    manager: str | None
    location: str
    joined: str
    skills: list[str] = field(default_factory=list)
    left: str | None = None  # ISO last day at Meridian, for the year's leavers (world_year.choose_leavers)
    promoted: dict[str, str] | None = None  # {"date", "from"}: this year's promotion into ``role``


@dataclass
class Project:
    id: str
    code_name: str
    goal: str
    lead: str
    team: str
    product: str
    sponsor: str
    budget_k: int
    status: dict[str, str]
    milestone: dict[str, str]
    partner_teams: list[str] = field(default_factory=list)


@dataclass
class Product:
    id: str
    name: str
    description: str
    manager: str
    team: str
    version: str
    features: list[str]


@dataclass
class System:
    id: str
    name: str
    kind: str
    vendor: str
    owner_team: str
    admin: str
    users: int


@dataclass
class Policy:
    id: str  # the policy code, e.g. HR-POL-014
    concept: str
    term: str  # the surface form this policy's documents use
    title: str
    domain: str
    owner_team: str
    approver: str
    params: list[dict[str, Any]]  # {"name", "unit", "values": [v1, v2, v3]}
    effective: list[str]  # ISO dates of v1, v2, v3


@dataclass
class World:
    """Everything a document can state. ``events`` (tickets, decisions, meetings) are added by the schedule."""

    seed: int
    n_docs: int
    teams: list[Team]
    people: list[Person]
    projects: list[Project]
    products: list[Product]
    systems: list[System]
    policies: list[Policy]
    key_entities: list[str]
    tickets: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    meetings: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.index: dict[str, Any] = {}
        for group in (self.teams, self.people, self.projects, self.products, self.systems, self.policies):
            for e in group:
                self.index[e.id] = e

    def get(self, entity_id: str) -> Any:
        return self.index[entity_id]

    def name_of(self, entity_id: str) -> str:
        e = self.index[entity_id]
        for attr in ("name", "code_name", "title"):
            if hasattr(e, attr):
                return getattr(e, attr)
        return entity_id

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "n_docs": self.n_docs,
            "key_entities": self.key_entities,
            "teams": [asdict(x) for x in self.teams],
            "people": [asdict(x) for x in self.people],
            "projects": [asdict(x) for x in self.projects],
            "products": [asdict(x) for x in self.products],
            "systems": [asdict(x) for x in self.systems],
            "policies": [asdict(x) for x in self.policies],
            "tickets": self.tickets,
            "decisions": self.decisions,
            "meetings": self.meetings,
        }


DELIVERY_DOMAINS = ("engineering", "products", "projects", "it")


def dept_head(teams: list[Team], team_id: str) -> str:
    """The head of a team's department: the lead of the department's first team (who reports to the CEO)."""
    dept = teams[int(team_id[1:])].department
    return next(t.lead for t in teams if t.department == dept)


def count_before(offset: int, period: int, phase: int = 0) -> int:
    """How many k >= 0 have ``period * k + phase < offset``."""
    return max(0, -(-(offset - phase) // period))


def people_at(doc_index: int) -> int:
    """People that exist once documents ``0..doc_index-1`` are written (a monotone bound)."""
    return CORE_PEOPLE + count_before(max(0, doc_index - CORE_DOCS), PERSON_PERIOD)


def projects_at(doc_index: int) -> int:
    return CORE_PROJECTS + count_before(max(0, doc_index - CORE_DOCS), PROJECT_PERIOD, PROJECT_PHASE)


def systems_at(doc_index: int) -> int:
    """Systems that exist once documents ``0..doc_index-1`` are written (a growth system from its catalogue entry)."""
    grown = count_before(max(0, doc_index - CORE_DOCS), SYSTEM_PERIOD, SYSTEM_PHASE)
    return LEXICON_SYSTEMS + min(len(lg.GROWTH_SYSTEMS), CORE_EXTRA_SYSTEMS + grown)


def policies_at(doc_index: int) -> int:
    """Policies whose every version is written once documents ``0..doc_index-1`` are (a growth policy counts from
    its version 3)."""
    grown = count_before(max(0, doc_index - CORE_DOCS), POLICY_PERIOD, POLICY_PHASES[-1])
    return LEXICON_POLICIES + min(len(lg.GROWTH_POLICY_TOPICS), CORE_EXTRA_POLICIES + grown)


def growth_slot(doc_index: int, n_docs: int) -> tuple[str, int, int] | None:
    """("system", j, 0) or ("policy", j, version) when document ``doc_index`` (after the core block) introduces
    system ``j`` (an index into ``world.systems``) or states version ``version`` of policy ``j`` in a world of
    ``n_docs`` documents (a policy whose version 3 falls beyond the corpus is not in the world); None otherwise."""
    off = doc_index - CORE_DOCS
    if off < 0:
        return None
    if off % SYSTEM_PERIOD == SYSTEM_PHASE and CORE_SYSTEMS + off // SYSTEM_PERIOD < systems_at(n_docs):
        return "system", CORE_SYSTEMS + off // SYSTEM_PERIOD, 0
    k, phase = divmod(off, POLICY_PERIOD)
    if phase in POLICY_PHASES and CORE_POLICIES + k < policies_at(n_docs):
        return "policy", CORE_POLICIES + k, POLICY_PHASES.index(phase)
    return None


def _email(name: str, taken: set[str]) -> str:
    base = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    base = "".join(c if c.isalnum() or c == " " else "" for c in base).strip().replace(" ", ".")
    email, k = f"{base}@meridian.tech", 2
    while email in taken:
        email, k = f"{base}{k}@meridian.tech", k + 1
    taken.add(email)
    return email


def _build_people(seed: int, n_people: int, teams: list[Team]) -> list[Person]:
    people: list[Person] = []
    names: set[str] = set()
    emails: set[str] = set()
    dept_head: dict[str, str] = {}
    for j in range(n_people):
        r = rng(seed, "person", j)
        for _ in range(30):
            name = f"{r.choice(lx.FIRST_NAMES)} {r.choice(lx.LAST_NAMES)}"
            if name not in names:
                break
        else:
            name = f"{name.split()[0]} {chr(65 + j % 26)}. {name.split()[-1]}"
        names.add(name)
        pid = f"P{j:04d}"
        if j == 0:
            team, role, manager = teams[0].id, "Chief Executive Officer", None
        elif j <= len(teams):
            t = teams[j - 1]
            team = t.id
            t.lead = pid
            if t.department not in dept_head:
                dept_head[t.department] = pid
                role, manager = lx.HEAD_TITLES[t.department], "P0000"
            else:
                role, manager = f"{t.name} Lead", dept_head[t.department]
        else:
            t = r.choice(teams)
            team, role, manager = t.id, *line_role(r, t, people)
        year = r.choice([2015, 2017, 2018, 2019, 2020, 2021, 2022, 2023])
        joined = f"{year}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
        if j >= CORE_PEOPLE:  # people added as the corpus grows are this year's joiners
            joined = f"2024-{r.randint(1, 9):02d}-{r.randint(1, 28):02d}"
        skills = r.sample(lx.PRODUCT_FEATURES + [s[1] for s in lx.SYSTEMS[:6]], 3)
        people.append(Person(pid, name, _email(name, emails), team, role, manager,
                             r.choice(lx.LOCATIONS), joined, skills))
        if j > len(teams):
            people[-1].promoted = promotion(r, people[-1], teams)
    choose_leavers(seed, people, len(teams))
    return people


def _every_version_changes(vals: list[dict[str, Any]], params: list[tuple]) -> None:
    """Make every policy version change at least one figure: when a version repeats every figure of the one
    before, its first parameter with room moves up one step (10 for money), carried into later versions."""
    for v in (1, 2):
        if any(x["values"][v] != x["values"][v - 1] for x in vals):
            continue
        for x, (_, unit, _lo, hi) in zip(vals, params, strict=True):
            step = 10 if unit == "USD" else 1
            if x["values"][v - 1] + step <= hi:
                x["values"][v] = x["values"][v - 1] + step
                break
        else:  # every figure is at its ceiling: the first one comes down a step instead
            x, unit = vals[0], params[0][1]
            x["values"][v] = x["values"][v - 1] - (10 if unit == "USD" else 1)
        if v == 1:  # a later version never falls behind a raised figure
            for x in vals:
                x["values"][2] = max(x["values"][2], x["values"][1])


def _milestones(r, status: dict[str, str]) -> dict[str, str]:
    """Quarterly milestones in delivery order; a completed project has reached the last one (general
    availability) and the quarters before it have not."""
    done = [q for q in lx.QUARTERS if status[q] == "completed"]
    last = len(lx.MILESTONES) - 1
    open_q = [q for q in lx.QUARTERS if status[q] != "completed"]
    steps = sorted(r.sample(range(last), len(open_q)))
    return {**dict(zip(open_q, (lx.MILESTONES[k] for k in steps), strict=True)),
            **{q: lx.MILESTONES[last] for q in done}}


def _goals(product: str) -> list[str]:
    """Goal bases for ``product``: the lexicon's hand-written ones, then (for a growing world's later projects,
    once those are all pursued) :func:`~hcrbench.synth.world_model.lexicon_growth.growth_goals`."""
    return lx.PRODUCT_GOALS[product] + lg.growth_goals(product, lx.PRODUCT_FEATURES)


def _goal(r, product: str, used: set[str]) -> str:
    """A goal about ``product`` whose base no earlier project has (a scope suffix at most varies it: two projects
    never pursue one goal in two regions); the lexicon's goals first, then the growth goals; once every base is
    taken, a numbered phase of a scoped one."""
    free = [g for g in lx.PRODUCT_GOALS[product] if g not in used] or [g for g in _goals(product) if g not in used]
    base = r.choice(free) if free else r.choice(lx.PRODUCT_GOALS[product])
    used.add(base)
    goal = base + (r.choice(lx.GOAL_SCOPES) if r.random() < 0.5 else "")
    k = 2
    while goal in used:
        goal, k = f"{base + lx.GOAL_SCOPES[1]} (phase {k})", k + 1
    used.add(goal)
    return goal


def _product_with_goals(r, products: list[Product], used: set[str]) -> Product:
    """The product a new project delivers into: a random one, or, once its goals are all taken, one with a
    lexicon goal left, then one with a growth goal left (so goals stay distinct as long as any product has one)."""
    product = products[r.randrange(len(products))]
    if all(g in used for g in lx.PRODUCT_GOALS[product.name]):
        left = [x for x in products if any(g not in used for g in lx.PRODUCT_GOALS[x.name])]
        if not left and all(g in used for g in _goals(product.name)):
            left = [x for x in products if any(g not in used for g in _goals(x.name))]
        product = r.choice(left) if left else product
    return product


def _growth_systems(seed: int, n_docs: int, teams: list[Team], people: list[Person],
                    admins: set[str]) -> list[System]:
    """The systems the corpus adds after its core block (:func:`systems_at`): growth system k takes the k-th kind
    and brand word of seeded orders that do not depend on the corpus size, and an administrator from its owning
    team who exists by its catalogue entry, is not its lead, administers nothing else when the team has such a
    member (else one other system of the core) and has a profile when one can (this year's joiners all have one)."""
    kinds = list(range(len(lg.GROWTH_SYSTEMS)))
    rng(seed, "growth_system_kinds").shuffle(kinds)
    brands = list(lg.SYSTEM_BRANDS)
    rng(seed, "growth_system_brands").shuffle(brands)
    out = []
    grown: set[str] = set()
    for k in range(systems_at(n_docs) - LEXICON_SYSTEMS):
        suffix, kind, vendor, owner = lg.GROWTH_SYSTEMS[kinds[k]]
        r = rng(seed, "growth_system", k)
        entry = CORE_DOCS + max(0, k - CORE_EXTRA_SYSTEMS) * SYSTEM_PERIOD + SYSTEM_PHASE  # its catalogue entry
        there = people[:people_at(entry if k >= CORE_EXTRA_SYSTEMS else CORE_DOCS)]
        lead = teams[int(owner[1:])].lead
        staff = [p.id for p in there if p.team == owner and p.id not in (lead, "P0000") and not p.left]
        cands = [x for x in staff if x not in admins]
        joiners = [x for x in cands if int(x[1:]) >= CORE_PEOPLE]
        # when every member already administers a system, one of them takes this one too (never a second grown
        # system, never the lead, who runs the team)
        shared = [x for x in staff if x not in grown]
        admin = r.choice(joiners or cands or shared or [lead])
        admins.add(admin)
        grown.add(admin)
        out.append(System(f"SYS-{LEXICON_SYSTEMS + k + 1:02d}", f"{brands[k]} {suffix}", kind, vendor, owner, admin,
                          r.randint(12, 90)))
    return out


def build_world(seed: int, n_docs: int) -> World:
    """The world for a corpus of ``n_docs`` documents (entities only; events come from the schedule)."""
    teams = [Team(f"T{i:02d}", n, d, dom) for i, (n, d, dom) in enumerate(lx.TEAMS)]
    people = _build_people(seed, people_at(n_docs), teams)
    by_team: dict[str, list[str]] = {}
    gone = {p.id for p in people if p.left}  # leavers hold no post (world_rules_year.leavers_hold_no_post)
    for p in people[:CORE_PEOPLE]:
        by_team.setdefault(p.team, []).append(p.id)

    products = []
    for i, (name, desc) in enumerate(lx.PRODUCTS):
        r = rng(seed, "product", i)
        team = "T09" if i % 2 == 0 else r.choice(["T02", "T03", "T05", "T04"])
        mgr = r.choice([x for x in by_team.get("T09", []) if x != "P0000" and x not in gone] or ["P0010"])
        products.append(Product(f"PRD-{i + 1:02d}", name, desc, mgr, team,
                                f"{r.randint(2, 6)}.{r.randint(0, 9)}", r.sample(lx.PRODUCT_FEATURES, 4)))

    systems = []
    for i, (name, kind, vendor) in enumerate(lx.SYSTEMS):
        r = rng(seed, "system", i)
        owner = lx.SYSTEM_OWNERS[name]  # the team whose work the system serves (HRIS: People Operations ...)
        lead = teams[int(owner[1:])].lead
        admin = r.choice([x for x in by_team.get(owner, []) if x not in (lead, "P0000") and x not in gone] or [lead])
        # users never outnumber the staff of the smallest world once its leavers are gone (company-wide tools
        # reach nearly everyone)
        staff = CORE_PEOPLE - N_LEAVERS
        users = r.randint(staff - 20, staff - 2) if name in lx.COMPANY_WIDE_SYSTEMS else r.randint(12, 90)
        systems.append(System(f"SYS-{i + 1:02d}", name, kind, vendor, owner, admin, users))
    systems += _growth_systems(seed, n_docs, teams, people, {s.admin for s in systems})

    policies = []
    counters: dict[str, int] = {}
    topics = lx.POLICY_TOPICS + lg.GROWTH_POLICY_TOPICS[:policies_at(n_docs) - LEXICON_POLICIES]
    for i, (prefix, dom, concept, word, params, owner_i) in enumerate(topics):
        r = rng(seed, "policy", i)
        counters[prefix] = counters.get(prefix, 0) + r.randint(1, 6)
        term = r.choice(lx.SYNONYMS[concept])
        title = f"{term[0].upper()}{term[1:]} {word}"
        vals = []
        for name, unit, lo, hi in params:
            v1 = r.randint(lo, (lo + hi) // 2)
            v2 = v1 if r.random() < 0.4 else min(hi, v1 + r.randint(1, max(1, (hi - lo) // 4)))
            v3 = min(hi, v2 + r.randint(1, max(1, (hi - lo) // 4))) if r.random() < 0.7 else v2
            if unit == "USD":
                v1, v2, v3 = (round(x, -1) for x in (v1, v2, v3))
            vals.append({"name": name.replace("{term}", term), "unit": unit, "values": [v1, v2, v3]})
        _every_version_changes(vals, params)
        eff = [f"2024-{m:02d}-{r.randint(1, 28):02d}" for m in (r.randint(1, 2), r.randint(4, 5), r.randint(7, 8))]
        owner = teams[owner_i]
        policies.append(Policy(f"{prefix}-{counters[prefix] + 10:03d}", concept, term, title, dom, owner.id,
                               owner.lead, vals, eff))

    projects = []
    used_goals: set[str] = set()
    for p in range(projects_at(n_docs)):
        r = rng(seed, "project", p)
        bound = CORE_PEOPLE if p < CORE_PROJECTS else people_at(
            CORE_DOCS + (p - CORE_PROJECTS) * PROJECT_PERIOD + PROJECT_PHASE)
        for _ in range(50):  # leads come from delivery teams (engineering, product, programs, IT)
            lead = people[r.randrange(17, bound)]
            if teams[int(lead.team[1:])].domain in DELIVERY_DOMAINS and not lead.left:
                break
        if lead.left:  # (never seen) fall back to the first who stays
            lead = next(x for x in people[17:bound] if not x.left)
        code = lx.code_name(p)  # every project has its own code name, no namesake of another's
        st, status = {}, r.choice(["on track", "on track", "at risk", "delayed"])
        for qi, q in enumerate(lx.QUARTERS):
            if qi:
                status = r.choice({"on track": ["on track", "at risk", "completed"],
                                   "at risk": ["on track", "delayed", "at risk"],
                                   "delayed": ["at risk", "on hold", "delayed"],
                                   "on hold": ["on hold", "delayed"], "completed": ["completed"]}[status])
            st[q] = status
        ms = _milestones(r, st)
        partners = sorted({t.id for t in r.sample(teams, 2)} - {lead.team})
        product = _product_with_goals(r, products, used_goals)
        projects.append(Project(f"PRJ-{101 + p}", code, _goal(r, product.name, used_goals), lead.id, lead.team,
                                product.id, dept_head(teams, lead.team),
                                r.randrange(120, 2400, 10), st, ms, partners))

    r = rng(seed, "key_entities")
    key_people = r.sample([p.id for p in people[17:CORE_PEOPLE] if not p.left], 8)
    uses = {x.id: sum(p.product == x.id for p in projects[:CORE_PROJECTS]) for x in products}
    top_products = sorted(products, key=lambda x: (-uses[x.id], x.id))[:3]
    key = key_people + [x.id for x in r.sample(projects[:CORE_PROJECTS], 6)] + \
        [x.id for x in r.sample(systems[:LEXICON_SYSTEMS], 3)] + [x.id for x in top_products]
    return World(seed, n_docs, teams, people, projects, products, systems, policies, key)
