"""The n a rule needs, found by replaying it: the smallest n at which the rule's operating characteristics pass
(false decisions within nominal, the estimated power at the margin >= 0.8, :func:`operating.check`), searched geometrically
(x 1.5) from the n it was run on and refined by bisection. No normal approximation: the replay is the rule itself
on the run's own per-query figures (re-centred, mixture, cluster bootstrap, binomial, bivariate normal), so a
skewed or clustered spread, a conservative interval (the margin checkpoint's betting interval) or a discrete rate
shows in the answer.

Two simplifications keep it fast (a verdict step runs it for every rule that cannot decide): 300 resamples per n
at the four truths that decide (each boundary and the margin past it), and a rule decided on a bootstrap-t
interval is searched with the paired t interval (the two agree at the n such searches end on; at n = 59 they
do not, which is why the table at the run's own n replays the bootstrap-t). The answer is rounded up to two
significant figures: it is an estimate with Monte-Carlo error, printed as "needs n ~ M".
"""

from __future__ import annotations

import dataclasses
import math

from hcrbench.protocol import registry as reg
from hcrbench.protocol.operating import Inputs, check

SEARCH_REPS = 300
CAP = 20_000            # queries (or conditions) beyond which "no n in reach decides it"
GROWTH = 1.5


def _key_truths(rule: reg.Rule) -> list[float]:
    s = 1.0 if rule.higher_is_better else -1.0
    return sorted({round(t, 10) for t in (rule.go, rule.go + s * rule.margin, rule.nogo, rule.nogo - s * rule.margin)})


def _round_up(n: int) -> int:
    if n < 100:
        return n
    step = 10 ** (len(str(n)) - 2)
    return int(math.ceil(n / step) * step)


def search_n(rule: reg.Rule, x: Inputs, *, seed: int = 0, reps: int = SEARCH_REPS, cap: int = CAP
             ) -> tuple[int | None, str]:
    """``(n, how)``: the replayed n at which ``rule`` becomes decidable (None when none up to ``cap``)."""
    proxy = rule.interval == "bootstrap-t" and x.clusters is None
    r = dataclasses.replace(rule, interval="t") if proxy else rule
    truths = _key_truths(rule)
    how = f"replay search over n ({reps} resamples per n at the decisive truths" + \
          (", paired t in place of bootstrap-t" if proxy else "") + \
          (", clusters drawn in proportion" if x.clusters is not None else "") + ")"
    memo: dict[int, bool] = {}

    def ok(n: int) -> bool:
        if n not in memo:
            memo[n] = check(r, dataclasses.replace(x, n=n), reps=reps, seed=seed + n, truths=truths,
                             strict_power=True)[2]
        return memo[n]

    lo, n = int(x.n), int(x.n)
    while True:
        n = max(n + 1, math.ceil(n * GROWTH))
        if n > cap:
            return None, how + f": none up to {cap:,}"
        if ok(n):
            break
        lo = n
    hi = n
    while hi - lo > max(1, hi // 50):
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return _round_up(hi), how
