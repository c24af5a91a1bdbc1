"""What the sufficiency rules (H1a, the failure rate) share: the gates that keep them from judging when the
measure itself, not the system, would be judged, and the corpus-size command a rule at a smaller size names."""

from __future__ import annotations

import math

from hcrbench.protocol.rules import ORACLE_MAX_FAIL, _num, z_level

SIZES_COMMAND = "hcrbench quickstart --sizes small,medium,full"
CI_METHODS = {"t": "paired t", "bca": "paired BCa bootstrap", "percentile": "paired percentile bootstrap"}


def ci_method(name: object) -> str:
    """eval.json's ``ci_method`` in words (``t`` below 300 queries, BCa above)."""
    return CI_METHODS.get(str(name or "t"), str(name))


def oracle_gate(oracle_failure: float | None, n: int | None = None) -> str | None:
    """Why H1a and the failure rate cannot be judged (None when they can): the oracle context (the cheapest
    evidence cover) must fail <= 5% of the budget-feasible queries at 400 tokens."""
    v = _num(oracle_failure)
    if v is None:
        return "not decidable: no oracle row (eval.json sufficiency.systems.oracle)"
    if v > ORACLE_MAX_FAIL:
        return (f"not decidable: the oracle context fails {v:.0%} of {n} budget-feasible queries at 400 tokens "
                f"(> {ORACLE_MAX_FAIL:.0%}): the sufficiency measure, not the system, would be judged")
    return None


def harness_gate(passage_failure: float | None, n: int | None = None, name: str = "passage") -> str | None:
    """Why a sufficiency rule cannot judge (None when it can): the passage-level perfect retriever (the units
    stating the needed facts first, in the subject's own delivery mode) put through the same selection and judge
    fails > 5% of the budget-feasible queries at 400 tokens: a harness defect (units, budget accounting,
    selection or the judge), not a property of any retriever. The perfect *document* ranking gates nothing: a
    ranking of documents cannot say which passage states a fact, and that choice is the system's
    (docs/context.md)."""
    v = _num(passage_failure)
    if v is None or v <= ORACLE_MAX_FAIL:
        return None
    of_n = f" of {n}" if n else ""
    return (f"not decidable: harness defect: the passage-level perfect retriever (control row {name}) fails {v:.0%}"
            f"{of_n} budget-feasible queries at 400 tokens (> {ORACLE_MAX_FAIL:.0%}): units, budget accounting, "
            f"selection or the judge fail the right passages")


def unpaired(a: float, b: float, n: int) -> tuple[float, float]:
    """Normal interval at the protocol's level of the difference of two proportions from ``n`` queries each."""
    se = math.sqrt(max(a * (1 - a), 0.0) / n + max(b * (1 - b), 0.0) / n)
    z = z_level()
    return a - b - z * se, a - b + z * se
