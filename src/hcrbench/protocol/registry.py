"""Every protocol rule as one small declarative object in one registry: the figure it judges, its thresholds and
margin, its standard of evidence, the verdict each control must get and the function that replays it.

One standard of evidence, both ways: a rule decides (go / pass on one side, no-go / kill / stop on the
other, soft no-go between) only when the figure's whole 95% interval lies past the threshold of that verdict;
otherwise it is "not decidable at n = N (needs ~ M)". :func:`decide` is that standard, written once, on numpy
arrays so the same code judges one experiment and a million simulated ones (:mod:`operating`).

A rule is ``higher_is_better`` (nDCG differences, sibling distinctiveness, r) or not (error and failure rates).
For a higher-is-better figure with interval ``[lo, hi]``: positive when ``lo > go``, negative when ``hi < nogo``;
when ``go < nogo`` (an improvement that must reach a margin: go = "surely positive", no-go = "surely short of the
margin") both can hold: that is ``soft`` (a real but small effect); when ``go > nogo`` (two bands, e.g. r >= 0.7
go, r < 0.3 no-go) an interval wholly between them is ``soft`` too. The design's ``margin`` is the effect the rule
must detect with power >= 0.8 at the n it is run on (truths at ``centre`` + {0, ±margin, ±2 margin} in
:mod:`operating`); Cohen's d is reported, never required (docs/protocol.md: the design's contradiction).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.protocol.rules import (
    GO,
    MAX_N,
    NOGO,
    UNDECIDABLE,
    confidence,
    z_level,
)

Z80 = 0.8416212335729143  # one-sided 80% power
#: verdict codes of :func:`decide` (numpy int8)
UND, POS, NEG, MID = 0, 1, -1, 2
#: the smallest practically meaningful nDCG@10 difference of the design (its margins are 0.03 / 0.05 / 0.08)
DESIGN_MARGIN = 0.03
POWER = 0.8
NOMINAL_ONE_SIDED = 0.025  # a 95% two-sided interval decides one wrong side at most this often


def nominal_one_sided() -> float:
    """How often an interval at :func:`rules.confidence` decides one wrong side at most (0.025 at 95%)."""
    c = confidence()
    return NOMINAL_ONE_SIDED if c == 0.95 else (1 - c) / 2


@dataclass(frozen=True)
class Rule:
    """One protocol rule. ``go`` / ``nogo``: the thresholds the whole interval must pass for the positive /
    negative verdict; ``positive`` / ``negative`` / ``soft``: its verdict words; ``controls``: the verdict(s)
    each control must get (any of them); ``routing_log``: the rule reads the subject's routing log (tree-only)."""

    id: str
    name: str
    stage: str                 # "checkpoint" | "hypothesis"
    figure: str                # the figure it judges, in words
    kind: str                  # "difference" | "proportion" | "mean" | "correlation"
    go: float
    nogo: float
    margin: float
    higher_is_better: bool = True
    positive: str = GO
    negative: str = NOGO
    soft: str | None = None
    centre: float | None = None  # the "0" truth of the operating table (default: the nogo threshold)
    evidence: str = "the whole 95% interval past the threshold of the verdict"
    controls: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    routing_log: bool = False
    component: str = ""
    interval: str = "t"        # the interval it decides on: "t", "cluster-robust" (CR2; each query its own cluster
    #                            when none are known, where it is the paired t), "betting", "wilson", "normal", "fisher"
    params: Mapping[str, float] = field(default_factory=dict)  # its other thresholds, by name (the one place)
    order: float = 100.0       # where its row stands among its stage's rows (the judge walks the registry in order)
    short: str = ""            # its short human name (the bottom line, the console, the report); default: its name
    reads_subject: bool = True  # judged on a subject (the system and each protocol control), not on the run alone
    seed_mean_note: bool = False  # its text says "mean over k seeds" when the system is a seed group
    oracle_gated: bool = False  # not judged on any subject while the oracle context fails the sufficiency gate
    role: str = ""             # what the verdict step asks of it beyond its row: "architecture" (the single kill
    #                            criterion: invalidates, and go needs it), "margin" (the margin checkpoint the overall
    #                            replay re-decides), "growth" (judged again on growth.json)

    @property
    def truth_centre(self) -> float:
        return self.nogo if self.centre is None else self.centre

    def truths(self) -> list[float]:
        """The known truths the operating table replays: centre + {-2m, -m, 0, +m, +2m}."""
        c, m = self.truth_centre, self.margin
        return [round(c + k * m, 10) for k in (-2, -1, 0, 1, 2)]

    def simulate(self, inputs: Any, *, reps: int = 1000, seed: int = 0) -> dict[str, Any] | None:
        """This rule replayed on known-truth systems built from ``inputs`` (:class:`operating.Inputs`): its
        operating characteristics at ``inputs.n`` (:func:`operating.operating`; the replay is chosen by ``kind``
        and ``interval``)."""
        from hcrbench.protocol.operating import operating

        return operating(self, inputs, reps=reps, seed=seed)

    def words(self, code: int) -> str:
        return {POS: self.positive, NEG: self.negative, MID: self.soft or UNDECIDABLE}.get(code, UNDECIDABLE)

    @property
    def display(self) -> str:
        """Its short human name (:mod:`words`)."""
        return self.short or self.name.lower()

    def n_needed(self, sd: float | None = None) -> int | None:
        """The protocol's one "n needed" for this rule: the n at which it has power 0.8 at its own margin, by the
        kind of figure it judges (paired differences and means: :func:`n_for_power` on the per-unit ``sd``;
        Wilson-judged rates: :func:`n_for_power_proportion`; a Fisher-z r: :func:`n_for_power_r` a margin past
        its go band)."""
        if self.kind in ("difference", "mean"):
            return n_for_power(sd, self.margin)
        if self.kind == "proportion":
            return n_for_power_proportion(self)
        if self.kind == "correlation":
            return n_for_power_r(self.go, -self.margin)
        return None

    def worlds_needed(self, world_sd: float | None) -> int | None:
        """The test worlds at which this rule, judged on an interval over worlds (the worlds its clusters, a t on
        worlds - 1 df), has power 0.8 at its own margin: :func:`worlds_for_power` on ``world_sd``, the sd of one
        world's mean difference (:func:`world_sd`). None for a figure that is not a paired difference or mean."""
        return worlds_for_power(world_sd, self.margin) if self.kind in ("difference", "mean") else None

    def sentence(self) -> str:
        """The rule in one declarative sentence, from its own fields (thresholds, margin, interval, words)."""
        side = "above" if self.higher_is_better else "below"
        other = "below" if self.higher_is_better else "above"
        soft = f"; {self.soft} between" if self.soft else ""
        return (f"{self.name}: {self.figure}; {self.positive} when the whole interval lies {side} {self.go:g}, "
                f"{self.negative} when it lies {other} {self.nogo:g}{soft}; sized for power {POWER:g} at a "
                f"margin of {self.margin:g} ({self.interval} interval)")

    # ---- what the verdict step asks of a rule (each rule's file overrides what applies to it)

    def judge(self, ctx: Any, s: Any, *, full_size: bool | None = None) -> dict[str, Any] | None:
        """Its row for subject ``s`` (the system or a protocol control) of the run in ``ctx``
        (:class:`subject.Context`); None when it reads no subject."""
        return None

    def judge_run(self, ctx: Any, s: Any) -> dict[str, Any]:
        """Its row in the run's ``verdicts.json`` (default: :meth:`judge` on the system)."""
        row = self.judge(ctx, s)
        if row is None:
            raise NotImplementedError(f"rule {self.id!r} judges no subject and defines no judge_run")
        return row

    def replay_inputs(self, ctx: Any, s: Any, row: dict[str, Any]) -> Any | None:
        """What its operating characteristics are replayed from on this run (:class:`operating.Inputs`), given
        its judged ``row``; None when there is nothing to replay."""
        return None

    def replay_inputs_from_out(self, folder: Any) -> Any | None:
        """The same, read back from a finished experiment folder (:class:`operating_inputs.Folder`)."""
        return None

    def power_plan(self, plan: Any) -> list[Any]:
        """Its entries in ``verdicts.json["power_plan"]`` (:class:`field.PlanEntry`), from the pilot differences
        in ``plan`` (:class:`field.Pilot`)."""
        return []

    def fail_fast(self, watch: Any, runs: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """``--fail-fast``: ``(label, row)`` once the runs so far (``runs``) are enough to judge this checkpoint
        (``watch``: :class:`verdicts.FailFast`, with ``cfg``, ``data``, ``out``), else None; a rule that never
        stops a run early says None."""
        return None

    def simulated(self, s: dict[str, Any]) -> str | None:
        """Its verdict on one simulated draw ``s`` (:mod:`simulate`), None when it is not simulated there."""
        return None

    def pre_interval(self, s: dict[str, Any]) -> str | None:
        """Its verdict on ``s`` as it read before it decided on intervals (:mod:`simulate`: point estimates)."""
        return None


def decide(rule: Rule, lo: Any, hi: Any) -> np.ndarray:
    """The standard of evidence on intervals (scalars or arrays): :data:`POS`, :data:`NEG`, :data:`MID` (soft)
    or :data:`UND`; a missing (NaN) interval is undecidable."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    if not rule.higher_is_better:  # judge -figure against -thresholds
        lo, hi = -hi, -lo
        g, b = -rule.go, -rule.nogo
    else:
        g, b = rule.go, rule.nogo
    ok = np.isfinite(lo) & np.isfinite(hi)
    pos = ok & (lo > g)
    neg = ok & (hi < b)
    out = np.full(np.broadcast(lo, hi).shape, UND, dtype=np.int8)
    out[pos & ~neg] = POS
    out[neg & ~pos] = NEG
    if rule.soft is not None:
        out[pos & neg] = MID                                  # go < nogo: surely positive, surely short of the margin
        between = ok & ~pos & ~neg & (hi < g) & (lo > b) if g > b else np.zeros_like(pos)
        out[between] = MID                                    # go > nogo: surely between the two bands
    return out


def decide_one(rule: Rule, lo: float | None, hi: float | None) -> int:
    """:func:`decide` on one interval (None: undecidable)."""
    if lo is None or hi is None:
        return UND
    return int(decide(rule, lo, hi))


def n_for_power(sd: float | None, margin: float, *, power: float = POWER, alpha: float | None = None) -> int | None:
    """The n at which a paired mean with per-unit sd ``sd`` detects a true difference of ``margin`` with power
    0.8 at two-sided ``alpha`` (default: 1 - :func:`rules.confidence`, 5%): the one "n needed" of every paired-difference rule, the power plan and the operating
    report (:func:`hcrbench.stats.power.required_n`, the noncentral t); None without a positive sd or margin, or
    beyond :data:`rules.MAX_N`. ``margin`` is the rule's own (``get(rule_id).margin``), read from this registry."""
    from hcrbench.stats.power import required_n_or_inf

    if sd is None or not math.isfinite(sd) or sd <= 0 or margin <= 0:
        return None
    if alpha is None:
        alpha = 1 - confidence()
    need = required_n_or_inf(margin, sd, power=power, alpha=alpha)
    return int(need) if math.isfinite(need) and need <= MAX_N else None


def worlds_for_power(world_sd: float | None, margin: float, *, power: float = POWER, alpha: float | None = None
                     ) -> int | None:
    """The number of test worlds at which a t interval over world means (the worlds the clusters: CR2 over equal
    worlds is the one-sample t of their means, on worlds - 1 df) decides a true difference ``margin`` past its
    threshold with power 0.8 at two-sided ``alpha``: the noncentral t of :func:`n_for_power` with the world as the
    unit, ``world_sd`` the sd of one world's mean difference. Sizing in queries instead (the per-query sd on
    n - 1 df, then over the queries per world) counts df the interval does not have (t(3) is 3.18 where t(239) is
    1.97)."""
    return n_for_power(world_sd, margin, power=power, alpha=alpha)


def world_sd(se: float | None, topic_se: float | None, worlds: int | None) -> float | None:
    """The sd of one world's mean difference that :func:`worlds_for_power` sizes on, from an interval over
    ``worlds`` worlds: ``sqrt(worlds x max(se^2, topic_se^2))``, ``se`` the interval's standard error (between the
    worlds' means: worlds - 1 df, one at two worlds) and ``topic_se`` the one over the queries' topic clusters alone
    (the same mean's sampling within the worlds, on many df). A world's mean varies by its queries' sampling plus
    what the worlds themselves differ by (``between_worlds``, :mod:`hcrbench.stats.variance_components`); the
    moment estimate of that component, truncated at 0 as the design-effect view has it, is ``se^2 - topic_se^2``,
    so the sum is the larger of the two. On one df ``se`` alone comes out small by chance in many draws (half
    the time below 0.45 of its square): the floor keeps the figure from promising power 0.8 on a lucky pair of
    worlds. What it cannot see is a between-world component larger than the queries' sampling, which two worlds
    measure on one df (docs/protocol.md, "Calibration on fresh worlds")."""
    if not worlds or worlds < 1:
        return None
    v = max(float(se or 0.0) ** 2, float(topic_se or 0.0) ** 2)
    return math.sqrt(worlds * v) if v > 0 and math.isfinite(v) else None


def sd_from(lo: float | None, hi: float | None, n: int | None) -> float | None:
    """The per-unit sd behind a normal interval ``[lo, hi]`` at :func:`rules.confidence` of a mean of ``n``
    units."""
    if lo is None or hi is None or not n or hi <= lo:
        return None
    return (hi - lo) / 2 / z_level() * math.sqrt(n)


def n_for_power_proportion(rule: Rule) -> int:
    """The n at which a Wilson-judged rate rule has power 0.8 on each side: the truth a margin past its go (and
    its no-go) boundary decided, at two-sided 1 - :func:`rules.confidence` (z sd at the boundary + z80 sd at the truth)."""
    s = 1.0 if rule.higher_is_better else -1.0
    need = []
    for p0, p1 in ((rule.go, rule.go + s * rule.margin), (rule.nogo, rule.nogo - s * rule.margin)):
        p0, p1 = min(max(p0, 0.01), 0.99), min(max(p1, 0.01), 0.99)
        need.append(math.ceil(((z_level() * math.sqrt(p0 * (1 - p0)) + Z80 * math.sqrt(p1 * (1 - p1))) / rule.margin) ** 2))
    return max(need)


def n_for_power_r(r_go: float, margin: float) -> int | None:
    """Conditions a Fisher-z interval of r needs to tell ``r_go + margin`` from ``r_go`` with power 0.8."""
    a, b = math.atanh(max(min(r_go + margin, 0.999), -0.999)), math.atanh(max(min(r_go, 0.999), -0.999))
    if a == b:
        return None
    return math.ceil(((z_level() + Z80) / abs(a - b)) ** 2) + 3


# ------------------------------------------------------------------------------------------------ the registry

REGISTRY: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    if rule.id in REGISTRY:
        raise ValueError(f"rule {rule.id!r} registered twice")
    REGISTRY[rule.id] = rule
    ordered = sorted(REGISTRY.values(), key=lambda r: r.order)  # every walk of the registry is in row order
    REGISTRY.clear()
    REGISTRY.update((r.id, r) for r in ordered)
    return rule


def get(rule_id: str) -> Rule:
    return REGISTRY[rule_id]


def rules(stage: str | None = None) -> list[Rule]:
    """Every registered rule in the order its row stands (``stage``: "checkpoint" or "hypothesis" only)."""
    return sorted((r for r in REGISTRY.values() if stage is None or r.stage == stage), key=lambda r: r.order)


def with_role(role: str) -> Rule | None:
    """The rule that plays ``role`` (``Rule.role``), or None."""
    return next((r for r in rules() if r.role == role), None)


def unregister(rule_id: str) -> None:
    REGISTRY.pop(rule_id, None)


def replace(rule: Rule) -> Rule:
    """Put ``rule`` in place of the registered rule of its id (a changed threshold or margin, e.g. in a test:
    every reader of the registry sees it)."""
    REGISTRY[rule.id] = rule
    return rule


def expected(control: str) -> dict[str, tuple[str, ...]]:
    """``{rule id: verdicts}`` that ``control`` must get (the rules that state one)."""
    return {r.id: r.controls[control] for r in REGISTRY.values() if control in r.controls}


def needs_routing_log() -> set[str]:
    """The tree-only rules: judged only when the subject writes a routing log."""
    return {r.id for r in REGISTRY.values() if r.routing_log}


def undecided(n: int | None, need: int | None, unit: str = "") -> dict[str, Any]:
    """The structured twin of :func:`text_undecidable` (a row's ``undecided`` field): the n it was judged at, the
    n power 0.8 at its margin needs (None: no n in reach decides it) and the unit when n does not count
    queries."""
    return {"at_n": n, "needs_n": need or None, "unit": unit or None}


def undecided_worlds(rule: Rule, n: int | None, wsd: float | None, worlds: int | None
                     ) -> tuple[int | None, dict[str, Any]]:
    """``(needs_n, undecided field)`` of a row judged on an interval over ``worlds`` worlds, sized in worlds
    (:meth:`Rule.worlds_needed` on ``wsd``, :func:`world_sd`): ``needs_n`` is those worlds' queries at this row's
    queries per world, and the field carries ``world_sd`` and, where more worlds than it has are needed,
    ``needs_worlds`` (which :func:`hcrbench.protocol.batches.price_undecided` keeps)."""
    need_w = rule.worlds_needed(wsd) if n and worlds else None
    need = None if need_w is None else max(1, math.ceil(need_w * n / worlds - 1e-9))
    und = undecided(n, need)
    if wsd is not None:
        und["world_sd"] = round(float(wsd), 6)
    if need_w is not None and worlds is not None and need_w > worlds:
        und["needs_worlds"] = int(need_w)
    return need, und


def text_undecidable(n: int | None, need: int | None, unit: str = "") -> str:
    """``not decidable at n = N (needs ~ M)`` in one place. When ``n`` already reaches the power-based M, saying
    "needs ~ M" would be false: the row says instead that power at the margin is reached and the estimate sits too
    close to the threshold for this n to decide (more queries narrow the interval but need not decide it)."""
    u = f" {unit}" if unit else ""
    if need and n is not None and need <= n:
        return (f"not decidable at n = {n}{u} (power 0.8 at the margin is reached at n ~ {need:,}{u}: the estimate "
                "sits near the threshold, so more evidence narrows the interval but need not decide it)")
    return f"not decidable at n = {n}{u}" + (f" (needs ~ {need:,}{u})" if need else " (no n in reach decides it)")


def _load() -> None:
    from hcrbench.protocol.ruleset import load

    load()


_load()


def __getattr__(name: str) -> Any:
    """H1a's rate clause and H1b's clause rules live in their rules' files (re-exported by their old names)."""
    if name == "H1A_RATE":
        return get("H1a").rate_rule()  # type: ignore[attr-defined]
    if name == "H1B_CLAUSES":
        return get("H1b").clauses()  # type: ignore[attr-defined]
    raise AttributeError(name)
