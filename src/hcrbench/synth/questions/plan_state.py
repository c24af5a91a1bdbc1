"""The planner's state while it fills a suite, apart from the catalogue of the corpus it reads.

The catalogue (:class:`~hcrbench.synth.questions.catalog.Catalog`) is where things are in the planned corpus and does not
change while a suite is planned; what does change (which split owns which entity, the slot being drawn, its
target, how hard the planner is still trying) is one :class:`PlanState`, which the planner sets and the
generators read through ``catalog.state``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PlanState:
    """What the planner has decided so far and what the slot being drawn asks for.

    - ``split_owner``: ledger node (``("entity", id)``, ``("fact", id)``) -> the split that owns it;
    - ``split``: the split of the slot being drawn;
    - ``relaxed``: the planner's last tries at a slot (generators drop their size targets);
    - ``claimed``: entities some planned query already names;
    - ``fresh_bias``: chance that ``pick``/``sample`` draw only from entities no query names yet;
    - ``scale_share``: share of a category's draws a larger suite's variants take (:mod:`scale`);
    - ``target``: the slot's ``(tier, feasible)`` target (:mod:`fit`, :mod:`reach`);
    - ``epoch``: bumped for every plan the planner starts (a new ledger and claimed set: lists filtered for the
      last plan's splits are stale)."""

    split_owner: dict = field(default_factory=dict)
    split: str = ""
    relaxed: bool = False
    claimed: set[str] = field(default_factory=set)
    fresh_bias: float = 0.0
    scale_share: float = 0.0
    target: tuple[str, bool] | None = None
    epoch: int = 0
