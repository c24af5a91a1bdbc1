"""Every protocol rule as one small declarative object in one registry: the figure it judges, its thresholds and
margin, its standard of evidence, the verdict each control must get and the function that replays it.

One standard of evidence, both ways (issue #33): a rule decides (go / pass on one side, no-go / kill / stop on the
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
    DIAGNOSE,
    EASY_EPS_MAX,
    FAIL_CONCERN,
    FAIL_OK,
    GO,
    H1A_MIN_RATE,
    H1A_SOFT,
    H1B_ENTITY,
    H1B_OVER_RERANK,
    H1B_OVER_SINGLE,
    H1C_GO_R,
    H1C_KILL_R,
    INCONCLUSIVE,
    KILL,
    KILL_MARGIN,
    MAX_N,
    NOGO,
    PASS,
    SOFT,
    TREE_SANITY_MIN,
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
    return rule


def get(rule_id: str) -> Rule:
    return REGISTRY[rule_id]


STOP = DIAGNOSE

register(Rule("tree_sanity", "Tree sanity", "checkpoint", "mean sibling distinctiveness (cosine distance)", "mean",
              go=TREE_SANITY_MIN, nogo=TREE_SANITY_MIN, margin=0.05, positive=PASS, negative=STOP,
              routing_log=True, component="tree construction"))
register(Rule("easy_routing", "Routing on easy single-branch queries", "checkpoint",
              "routing error eps at the worst level (Wilson 95%)", "proportion", go=EASY_EPS_MAX, nogo=EASY_EPS_MAX,
              margin=0.05, higher_is_better=False, positive=PASS, negative=STOP, routing_log=True,
              controls={"oracle": (PASS, UNDECIDABLE), "perfect": (PASS, UNDECIDABLE), "degraded": (STOP, UNDECIDABLE)},
              component="routing"))
register(Rule("vs_kill_baseline", "System vs the kill baseline", "checkpoint",
              "system - kill baseline on nDCG@10 (paired 95% interval)", "difference", go=-KILL_MARGIN,
              nogo=-KILL_MARGIN, margin=DESIGN_MARGIN, positive=PASS, negative=STOP,
              # the betting interval is valid at every n and wide at small n: the oracle may be "not decidable"
              # there (never stopped)
              controls={"oracle": (PASS, UNDECIDABLE), "clone": (PASS, UNDECIDABLE), "degraded": (STOP, UNDECIDABLE),
                        "twin": (PASS, UNDECIDABLE), "plus_margin": (PASS, UNDECIDABLE),
                        "minus_margin": (STOP, UNDECIDABLE)},
              component="retrieval quality", interval="betting"))
register(Rule("token_efficiency", "Token efficiency", "checkpoint",
              "system sufficiency@400 - flat sufficiency@400 (paired normal 95%)", "difference", go=0.0, nogo=0.0,
              margin=0.05, positive=PASS, negative=STOP, controls={"oracle": (PASS, UNDECIDABLE)},
              component="context selection"))
register(Rule("H1a", "Sufficiency under a 400-token budget", "hypothesis",
              "system sufficiency@400 - kill baseline sufficiency@400 (paired normal 95%); go also needs the "
              f"Wilson interval of the rate above {H1A_MIN_RATE:.0%} and non-inferiority to flat@600",
              "difference", go=-H1A_SOFT, nogo=-H1A_SOFT, margin=H1A_SOFT, centre=-H1A_SOFT,
              controls={"oracle": (GO, SOFT, UNDECIDABLE), "perfect": (GO, SOFT, UNDECIDABLE),
                        "clone": (GO, SOFT, INCONCLUSIVE, UNDECIDABLE), "degraded": (NOGO, SOFT, UNDECIDABLE)},
              component="context selection"))
register(Rule("H1b", "Dual path", "hypothesis",
              f"dual - best single path (margin {H1B_OVER_SINGLE}), dual - flat+reranker ({H1B_OVER_RERANK}), "
              f"entity-spanning ({H1B_ENTITY}): raw nDCG@10 differences", "difference", go=0.0,
              nogo=H1B_OVER_SINGLE, margin=H1B_OVER_SINGLE, soft=SOFT, centre=0.0, routing_log=True,
              controls={"oracle": (GO, SOFT, UNDECIDABLE)}, component="dual path"))
register(Rule("H1c", "Routing explains quality", "hypothesis",
              "Pearson r(routing accuracy, nDCG@10) over conditions of distinct accuracy (Fisher-z 95%)",
              "correlation", go=H1C_GO_R, nogo=H1C_KILL_R, margin=0.2, soft=SOFT, centre=0.5, routing_log=True,
              component="routing"))
register(Rule("failure_rate", "Failure rate on budget-feasible queries", "hypothesis",
              "share of budget-feasible queries whose context at 400 tokens is insufficient (Wilson 95%)",
              "proportion", go=FAIL_OK, nogo=FAIL_CONCERN, margin=0.05, higher_is_better=False, soft=SOFT,
              centre=(FAIL_OK + FAIL_CONCERN) / 2,
              controls={"oracle": (GO, UNDECIDABLE), "perfect": (GO, UNDECIDABLE)},
              component="context selection"))
register(Rule("corpus_size", "Corpus size", "hypothesis",
              "system - kill baseline on entity-spanning + multi-hop queries at medium (paired 95%)", "difference",
              go=0.0, nogo=0.0, margin=DESIGN_MARGIN, centre=0.0, component="scaling"))
register(Rule("kill", "Single kill criterion", "hypothesis",
              "system - kill baseline on nDCG@10 at the full size (its own family of one)", "difference", go=0.0,
              nogo=0.0, margin=DESIGN_MARGIN, negative=KILL, centre=0.0, interval="cluster-robust",
              controls={"oracle": (GO, UNDECIDABLE), "clone": (UNDECIDABLE, INCONCLUSIVE),
                        "degraded": (KILL, UNDECIDABLE),
                        "twin": (UNDECIDABLE, INCONCLUSIVE), "plus_margin": (GO, UNDECIDABLE),
                        "minus_margin": (KILL, UNDECIDABLE)},
              component="architecture"))

#: H1b's three clauses (their margins): the clause rules the H1b row combines
H1B_CLAUSES = {
    "single": Rule("H1b:single", "dual vs single path", "clause", "dual - best single path", "difference", go=0.0,
                   nogo=H1B_OVER_SINGLE, margin=H1B_OVER_SINGLE, soft=SOFT),
    "rerank": Rule("H1b:rerank", "dual vs flat+reranker", "clause", "dual - flat+reranker", "difference", go=0.0,
                   nogo=H1B_OVER_RERANK, margin=H1B_OVER_RERANK, soft=SOFT),
    "entity": Rule("H1b:entity", "entity-spanning", "clause", "dual - flat+reranker, entity-spanning", "difference",
                   go=0.0, nogo=H1B_ENTITY, margin=H1B_ENTITY, soft=SOFT),
}
#: H1a's rate clause: the Wilson interval of the system's sufficiency@400 above 55%
H1A_RATE = Rule("H1a:rate", "sufficiency@400 >= 55%", "clause", "sufficiency@400 (Wilson 95%)", "proportion",
                go=H1A_MIN_RATE, nogo=H1A_MIN_RATE, margin=0.05)


def expected(control: str) -> dict[str, tuple[str, ...]]:
    """``{rule id: verdicts}`` that ``control`` must get (the rules that state one)."""
    return {r.id: r.controls[control] for r in REGISTRY.values() if control in r.controls}


def needs_routing_log() -> set[str]:
    """The tree-only rules: judged only when the subject writes a routing log."""
    return {r.id for r in REGISTRY.values() if r.routing_log}


def text_undecidable(n: int | None, need: int | None, unit: str = "") -> str:
    """``not decidable at n = N (needs ~ M)`` in one place. When ``n`` already reaches the power-based M, saying
    "needs ~ M" would be false: the row says instead that power at the margin is reached and the estimate sits too
    close to the threshold for this n to decide (more queries narrow the interval but need not decide it)."""
    u = f" {unit}" if unit else ""
    if need and n is not None and need <= n:
        return (f"not decidable at n = {n}{u} (power 0.8 at the margin is reached at n ~ {need:,}{u}: the estimate "
                "sits near the threshold, so more evidence narrows the interval but need not decide it)")
    return f"not decidable at n = {n}{u}" + (f" (needs ~ {need:,}{u})" if need else " (no n in reach decides it)")
