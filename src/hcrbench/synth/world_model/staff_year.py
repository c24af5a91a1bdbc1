"""A year of people in the Meridian world (Meridian 4): line managers under team leads, this
year's promotions and leavers.

Called by :func:`hcrbench.synth.world_model.entities.build_world` while people are drawn: person ``j`` draws its line manager and
promotion from its own RNG and from people before it, and the leavers come from the core staff alone, so a bigger
world is still a superset of a smaller one. The rules these keep are in :mod:`hcrbench.synth.checks.world_rules_year`
(``line_managers_not_all_team_leads``, ``promotions_move_up``, ``leavers_hold_no_post``).
"""

from __future__ import annotations

from typing import Any

from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.seeds import rng

FIRST_LINE_MANAGER = 0.4  # chance a new member of a team without a line manager becomes its first
LINE_MANAGER_SHARE = 0.06  # ... and of a team that has one, another (all report to the lead)
REPORTS_TO_LINE_MANAGER = 0.7  # chance a member reports to one of the team's line managers, when it has one
PROMOTED_SHARE = 0.3  # of the staff on a ladder rung above the first who were promoted into it this year
N_LEAVERS = 6  # core staff (who joined before 2024) who leave during the year
CORE_STAFF = 120  # mirrors world.CORE_PEOPLE (leavers come from the core, whatever the corpus size)


def line_role(r, team: Any, people: list[Any]) -> tuple[str, str]:
    """(role, manager) of a new non-lead member of ``team``: now and then the team's line manager (reporting to
    the lead); otherwise a role of the team, reporting to one of the line managers already there (most of the
    time, when there is one) or to the lead."""
    lm_role = lx.LINE_MANAGER_ROLE[team.name]
    lms = [p.id for p in people if p.team == team.id and p.role == lm_role and p.id != team.lead]
    if r.random() < (LINE_MANAGER_SHARE if lms else FIRST_LINE_MANAGER):
        return lm_role, team.lead
    role = r.choice([x for x in lx.TEAM_ROLES[team.name] if x != lm_role])
    if lms and r.random() < REPORTS_TO_LINE_MANAGER:
        return role, r.choice(lms)
    return role, team.lead


def promotion(r, person: Any, teams: list[Any]) -> dict[str, str] | None:
    """This year's promotion of ``person`` into their role (from the rung below it), or None: only staff who
    joined before 2024 and hold a role above a ladder's first rung."""
    below = lx.PROMOTIONS.get(teams[int(person.team[1:])].name, {})
    if person.role not in below or person.joined >= "2024" or r.random() >= PROMOTED_SHARE:
        return None
    return {"date": f"2024-{r.randint(2, 9):02d}-{r.randint(1, 28):02d}", "from": below[person.role]}


def choose_leavers(seed: int, people: list[Any], n_teams: int) -> None:
    """Mark :data:`N_LEAVERS` core staff as leaving this year (``left``: their last day): people who lead, manage,
    were promoted or joined this year stay."""
    lm_roles = set(lx.LINE_MANAGER_ROLE.values())  # only line managers and leads have reports
    ok = [p for p in people[n_teams + 1:CORE_STAFF] if p.role not in lm_roles and not p.promoted
          and p.joined < "2024"]
    r = rng(seed, "leavers")
    for p in r.sample(ok, min(N_LEAVERS, len(ok))):
        p.left = f"2024-{r.randint(2, 9):02d}-{r.randint(1, 28):02d}"


__all__ = ["N_LEAVERS", "choose_leavers", "line_role", "promotion"]
