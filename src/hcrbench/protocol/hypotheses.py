"""The design's hypotheses as pure rules on plain numbers: H1a, H1b, H1c, the failure rate, the corpus-size rule
and the single kill criterion. Each lives in its rule's file (:mod:`hcrbench.protocol.ruleset`), re-exported here
by the names scripts import.

A negative result of H1a, H1b, H1c or the failure rate is ``no-go``: "a specific component needs fixing"
(``component`` names it), never a verdict on the architecture. Only the single kill criterion says ``kill``, and
only at the full corpus size; at a smaller size it says ``not decidable`` and names the command that decides it.
"""

from __future__ import annotations

from hcrbench.protocol import registry as _registry  # noqa: F401  (loads every rule)
from hcrbench.protocol.ruleset._gates import SIZES_COMMAND, harness_gate, oracle_gate
from hcrbench.protocol.ruleset._gates import unpaired as _unpaired
from hcrbench.protocol.ruleset.corpus_size import corpus_size
from hcrbench.protocol.ruleset.failure_rate import failure_rate
from hcrbench.protocol.ruleset.h1a import h1a
from hcrbench.protocol.ruleset.h1b import _clause, h1b
from hcrbench.protocol.ruleset.h1c import distinct_conditions, h1c
from hcrbench.protocol.ruleset.kill import single_kill

__all__ = ["SIZES_COMMAND", "_clause", "_unpaired", "corpus_size", "distinct_conditions", "failure_rate", "h1a",
           "h1b", "h1c", "harness_gate", "oracle_gate", "single_kill"]
