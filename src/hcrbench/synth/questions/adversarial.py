"""Hand-written adversarial query patterns (``adversarial.toml``) instantiated against the world.

Each pattern's ``kind`` fixes which facts it needs (so its qrels are derived from provenance like every other
query); its wordings come from the TOML file. A category's generator hands a share of its draws to the patterns
of that category (:func:`with_patterns`); the queries they make are tagged ``origin = "adversarial"`` and carry
the pattern's name.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any

from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.questions.tiers import TIERS
from hcrbench.synth.world_model.facts import fact_value

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@lru_cache(maxsize=1)
def patterns() -> list[dict[str, Any]]:
    """The patterns of the shipped ``adversarial.toml`` (validated: known kind and category, some wordings)."""
    data = tomllib.loads(resources.files("hcrbench.synth.questions").joinpath("adversarial.toml").read_text("utf-8"))
    out = data.get("pattern", [])
    for p in out:
        if (p.get("kind") not in KINDS or not p.get("text") or not 0 < float(p.get("share", 0)) < 1
                or ("tier" in p and p["tier"] not in TIERS)):
            raise ValueError(f"adversarial.toml: bad pattern {p.get('name')!r}")
    return out


def _plan(c: Catalog, p: dict, diff: str, text: str, answer: Any, facts: list[str], ents: list[str],
          chain: bool = False, **params: Any) -> QueryPlan | None:
    if any(not c.stated(f) for f in facts):
        return None
    plan = QueryPlan(p["category"], diff, "adversarial", text, answer, facts, ents, chain)
    plan.extra["pattern"] = p["name"]
    plan.intent, plan.params = p["kind"], params
    return plan


def outdated_version(c: Catalog, r: random.Random, p: dict, diff: str) -> QueryPlan | None:
    pol = c.pick(r, c.w.policies)
    k = r.randrange(2)
    prm = pol.params[k]
    if prm["values"][2] in prm["values"][:2]:
        return None  # the trap needs every older version to state another figure
    fid = f"pol:{pol.id}:v2:param{k}"
    return _plan(c, p, diff, r.choice(p["text"]).format(param=prm["name"], title=pol.title), fact_value(c.w, fid),
                 [fid], [pol.id], policy=pol.id, param=k)


def wrong_branch_location(c: Catalog, r: random.Random, p: dict, diff: str) -> QueryPlan | None:
    dec = c.pick(r, c.core_decisions)
    appr = c.w.get(dec["approver"])
    facts = [f"dec:{dec['id']}:approver", f"per:{appr.id}:location"]
    return _plan(c, p, diff, r.choice(p["text"]).format(decision=dec["id"]), appr.location, facts,
                 [dec["id"], appr.id], chain=True, decision=dec["id"])


def negation_owner(c: Catalog, r: random.Random, p: dict, diff: str) -> QueryPlan | None:
    """Of four named systems (one or two owned by the team), which are not owned by it: the words bound the
    answer, and every named system's owner is a needed fact (each must be checked)."""
    w = c.w
    team = c.pick(r, [w.get(t) for t in sorted({s.owner_team for s in w.systems})])
    # every named system is an expected entity of the query (it names them), so all four come from the split's
    # own; each system's ownership stated in at most a quarter of the relevant-document cap (R@100 reachable)
    fit = [s for s in w.systems if c.usable(s.id) and len(c.docs_stating(f"sys:{s.id}:owner")) <= 25]
    own = [s for s in fit if s.owner_team == team.id]
    others = [s for s in fit if s.owner_team != team.id]
    k = min(len(own), r.choice([1, 2]))
    if not k or len(others) < 4 - k:
        return None
    named = c.sample(r, own, k) + c.sample(r, others, 4 - k)
    r.shuffle(named)
    listed = ", ".join(s.name for s in named[:-1]) + " and " + named[-1].name
    return _plan(c, p, diff, r.choice(p["text"]).format(team=team.name, systems=listed),
                 [s.name for s in named if s.owner_team != team.id], [f"sys:{s.id}:owner" for s in named],
                 [team.id], team=team.id, systems=[s.id for s in named])


def near_duplicate_access_review(c: Catalog, r: random.Random, p: dict, diff: str) -> QueryPlan | None:
    reviewed = sorted({c.specs[d].ref["system"] for d in c.by_type.get("access_review", [])})
    if not reviewed:
        return None
    sy = c.w.get(c.pick(r, reviewed))
    fid = f"sys:{sy.id}:removed"
    return _plan(c, p, diff, r.choice(p["text"]).format(system=sy.name), fact_value(c.w, fid).split()[0],
                 [fid], [sy.id], system=sy.id)


def deep_and_shallow(c: Catalog, r: random.Random, p: dict, diff: str) -> QueryPlan | None:
    """A top-level fact (the system's vendor) beside a 3-hop leaf chain (its administrator, their manager, where
    that manager is based): a 3+-hop query needs >= 3 hops. Where the slot asks for evidence over 400
    tokens (``c.target``), the leaf is one level further up (four hops, the ``text_deeper`` wordings)."""
    sy = c.pick(r, c.w.systems)
    adm = c.w.get(sy.admin)
    if adm.manager is None:
        return None
    mgr = c.w.get(adm.manager)
    ups = [adm.id, mgr.id]
    texts = p["text"]
    if c.state.target == ("hard", False) and mgr.manager and p.get("text_deeper"):
        mgr = c.w.get(mgr.manager)  # a slot asking for evidence over 400 tokens: one level further up
        ups.append(mgr.id)
        texts = p["text_deeper"]
    facts = [f"sys:{sy.id}:vendor", f"sys:{sy.id}:admin", *(f"per:{x}:manager" for x in ups[:-1]),
             f"per:{mgr.id}:location"]
    plan = _plan(c, p, diff, r.choice(texts).format(system=sy.name),
                 [sy.vendor, mgr.location], facts, [sy.id, *ups], chain=True, system=sy.id)
    if plan is not None:
        plan.extra["chain"] = facts[1:]  # the deep part: administrator, their manager, where they are based
    return plan


KINDS: dict[str, Callable[..., QueryPlan | None]] = {
    "outdated_version": outdated_version, "wrong_branch_location": wrong_branch_location,
    "negation_owner": negation_owner, "near_duplicate_access_review": near_duplicate_access_review,
    "deep_and_shallow": deep_and_shallow,
}


def with_patterns(category: str, gen: Callable) -> Callable:
    """``gen`` for ``category``, handing each pattern of that category its share of the draws."""
    mine = [p for p in patterns() if p["category"] == category]
    if not mine:
        return gen

    def draw(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
        u = r.random()
        for p in mine:
            if u < float(p["share"]):
                return KINDS[p["kind"]](c, r, p, diff)
            u -= float(p["share"])
        return gen(c, r, diff)

    return draw
