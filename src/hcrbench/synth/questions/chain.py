"""Chain queries (two-hop and 3+-hop): each asks for the value at the end of a chain of facts the words name, and
:mod:`hcrbench.synth.questions.properties` rejects one that a single page answers (two consecutive hops in one document, or
the answer already in a document that states the first hop)."""

from __future__ import annotations

import random
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from itertools import combinations

from hcrbench.synth.questions.catalog import Catalog, QueryPlan
from hcrbench.synth.world_model.facts import fact_value

#: The fewest hops of a 3+-hop chain.
MULTI_HOPS = 3


def distinct_hops(chain: list[str], docs_stating: Callable[[str], AbstractSet[int]],
                  least: int = MULTI_HOPS) -> bool:
    """True when ``chain`` has at least ``least`` hops and no document states two of them (any two, not only
    consecutive ones), so an answer needs one document per hop: >= ``least`` distinct documents."""
    if len(chain) < least:
        return False
    docs = [docs_stating(f) for f in chain]
    return all(not (a & b) for a, b in combinations(docs, 2))


def _chain(c: Catalog, cat: str, diff: str, origin: str, text: str, facts: list[str], ents: list[str],
           intent: str, **params) -> QueryPlan | None:
    """A chain whose answer is the value of its last hop."""
    if any(not c.stated(f) for f in facts):
        return None
    plan = QueryPlan(cat, diff, origin, text, fact_value(c.w, facts[-1]), list(dict.fromkeys(facts)),
                     list(dict.fromkeys(ents)), True)
    plan.intent, plan.params = intent, params
    return plan


def two_hop(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A two-fact chain; :mod:`properties` rejects it when one document states both hops or when a document that
    states the first hop already contains the answer."""
    w = c.w
    u = r.random()
    if diff == "easy" and u < 0.3:
        sy = c.pick(r, w.systems)
        team = w.get(sy.owner_team)
        return _chain(c, "two_hop", diff, "world", f"Who leads the team that owns {sy.name}?",
                      [f"sys:{sy.id}:owner", f"team:{team.id}:lead"], [sy.id, team.id], "lead_of_owner_team",
                      system=sy.id)
    if diff == "easy" and u < 0.55:
        p = c.pick(r, c.projects)
        prd = w.get(p.product)
        return _chain(c, "two_hop", diff, "world", f"Who is the product manager for the product that {p.code_name} "
                      "changes?", [f"prj:{p.id}:product", f"prd:{prd.id}:manager"], [p.id, prd.id],
                      "manager_of_project_product", project=p.id)
    if diff == "easy" and u < 0.85:
        sy = c.pick(r, w.systems)
        adm = w.get(sy.admin)
        if adm.manager is None:
            return None
        return _chain(c, "two_hop", diff, "world", f"Who does the administrator of {sy.name} report to?",
                      [f"sys:{sy.id}:admin", f"per:{adm.id}:manager"], [sy.id, adm.id], "manager_of_system_admin",
                      system=sy.id)
    if diff == "easy":
        prd = c.pick(r, w.products)
        pm = w.get(prd.manager)
        return _chain(c, "two_hop", diff, "world", f"In which office is the product manager of {prd.name} based?",
                      [f"prd:{prd.id}:manager", f"per:{pm.id}:location"], [prd.id, pm.id],
                      "location_of_product_manager", product=prd.id)
    if diff == "medium" and u < 0.35:
        p = c.pick(r, c.projects)
        lead = w.get(p.lead)
        return _chain(c, "two_hop", diff, "world", f"Where is the lead of project {p.code_name} based?",
                      [f"prj:{p.id}:lead", f"per:{lead.id}:location"], [p.id, lead.id], "location_of_project_lead",
                      project=p.id)
    if diff == "medium" and u < 0.7:
        sy = c.pick(r, w.systems)
        adm = w.get(sy.admin)
        return _chain(c, "two_hop", diff, "world", f"In which office does the primary administrator of {sy.name} "
                      "work?", [f"sys:{sy.id}:admin", f"per:{adm.id}:location"], [sy.id, adm.id],
                      "location_of_system_admin", system=sy.id)
    if diff == "medium":
        t = c.pick(r, c.core_tickets)
        who = w.get(t["assignee"])
        return _chain(c, "two_hop", diff, "world", f"Where is the person assigned to {t['id']} based?",
                      [f"tkt:{t['id']}:assignee", f"per:{who.id}:location"], [t["id"], who.id],
                      "location_of_assignee", ticket=t["id"])
    if u < 0.5:
        t = c.pick(r, c.core_tickets)
        rep = w.get(t["reporter"])
        return _chain(c, "two_hop", diff, "adversarial:wrong-branch", "What is the job title of the person who "
                      f"reported {t['id']}?", [f"tkt:{t['id']}:reporter", f"per:{rep.id}:role"], [t["id"], rep.id],
                      "role_of_reporter", ticket=t["id"])
    dec = c.pick(r, c.core_decisions)
    appr = w.get(dec["approver"])
    return _chain(c, "two_hop", diff, "adversarial:wrong-branch", f"What is the job title of whoever signed off "
                  f"{dec['id']}?", [f"dec:{dec['id']}:approver", f"per:{appr.id}:role"],
                  [dec["id"], appr.id], "role_of_approver", decision=dec["id"])


def multi_hop(c: Catalog, r: random.Random, diff: str) -> QueryPlan | None:
    """A three-fact chain that no document shortcuts (no document states two consecutive hops)."""
    w = c.w
    u = r.random()
    if u < 0.25:
        if "people_after_leads" not in c.cache:  # (one list, so pick's memo finds it again)
            c.cache["people_after_leads"] = w.people[17:]
        per = c.pick(r, c.cache["people_after_leads"])
        mgr = w.get(per.manager)
        if mgr.manager is None:
            return None
        top = w.get(mgr.manager)
        text = (f"Where is the manager of {per.name}'s manager based?" if diff == "easy"
                else f"Two levels up from {per.name}, in which office does that manager work?")
        return _chain(c, "multi_hop", diff, "world", text,
                      [f"per:{per.id}:manager", f"per:{mgr.id}:manager", f"per:{top.id}:location"],
                      [per.id, mgr.id, top.id], "location_of_second_manager", person=per.id)
    if u < 0.5:
        p = c.pick(r, c.projects)
        lead = w.get(p.lead)
        if lead.manager is None:
            return None
        mgr = w.get(lead.manager)
        text = (f"Project {p.code_name}'s lead reports to someone: where is that manager based?" if diff == "easy"
                else f"In which city does the boss of the person running {p.code_name} work?")
        return _chain(c, "multi_hop", diff, "world", text,
                      [f"prj:{p.id}:lead", f"per:{lead.id}:manager", f"per:{mgr.id}:location"],
                      [p.id, lead.id, mgr.id], "location_of_project_lead_manager", project=p.id)
    if u < 0.75:  # the rest go through a ticket (plentiful: a suite scales)
        p = c.pick(r, c.projects)
        prd = w.get(p.product)
        pm = w.get(prd.manager)
        text = (f"Where is the product manager of the product that {p.code_name} changes based?" if diff == "easy"
                else f"{p.code_name} changes a product: in which office does that product's manager sit?")
        return _chain(c, "multi_hop", diff, "world", text,
                      [f"prj:{p.id}:product", f"prd:{prd.id}:manager", f"per:{pm.id}:location"],
                      [p.id, prd.id, pm.id], "location_of_project_product_manager", project=p.id)
    t = c.pick(r, c.core_tickets)
    if r.random() < 0.5:
        who = w.get(t["assignee"])
        if who.manager is None:
            return None
        mgr = w.get(who.manager)
        return _chain(c, "multi_hop", diff, "world", f"Where is the manager of the person assigned to {t['id']} "
                      "based?", [f"tkt:{t['id']}:assignee", f"per:{who.id}:manager", f"per:{mgr.id}:location"],
                      [t["id"], who.id, mgr.id], "location_of_assignee_manager", ticket=t["id"])
    sy = w.get(t["system"])
    adm = w.get(sy.admin)
    if adm.manager is None:
        return None
    return _chain(c, "multi_hop", diff, "adversarial:deep+shallow",
                  f"Who does the primary administrator of the system hit by {t['id']} report to?",
                  [f"tkt:{t['id']}:system", f"sys:{sy.id}:admin", f"per:{adm.id}:manager"],
                  [t["id"], sy.id, adm.id], "manager_of_affected_system_admin", ticket=t["id"])
