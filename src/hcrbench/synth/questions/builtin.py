"""Meridian's ten query categories, each declared once (:class:`~hcrbench.synth.questions.category.QueryCategory`).

Every stage reads a category from here through the registry: the planner its count, fill order and generator
with its variants (:mod:`planner`), the chunk targets its tiers and feasible share (:mod:`tiers`,
:mod:`fit`), the property check its ``check`` (:mod:`properties`), and ``hcrbench describe`` its design
count and feasible share. The generators themselves live with their kind of question (:mod:`generators`,
:mod:`entity`, :mod:`chain`, :mod:`reach`, :mod:`scale`); hand-written adversarial
patterns name their category in ``adversarial.toml``. Declaration order is the order of query ids.

Choices a category makes, and why:

- **tiers**: a detail question needs one fact (one chunk: easy); a chain of two hops, a comparison, an ambiguous
  question, an aggregation or an entity summary needs two documents at least (never one chunk); a 3+-hop chain is
  several levels (hard).
- **fill_rank**: categories whose slots need the most distinct world resources are filled first.
- **slot_order**: by default the designed-hard slots take the hardest targets; a thematic question's, a
  comparison's and a temporal question's designed-hard slots are their vocabulary-mismatch forms, whose evidence
  is one to three policy versions (medium), so they take the medium ones (the design's 15 vocabulary-mismatch
  queries per 300 keep their slots).
- **targeted**: detail's own draws already hold the design's feasible share (one fact, one chunk): aiming its
  slots at targets only spends the world faster. Aggregation takes targets: its negation pattern (four systems'
  owners, within 400 tokens) alone held 25-35% of a small world's aggregations against the design's 10%.
- **scale_forms**: a slot aimed at evidence the category's larger-suite variant does not have takes another form
  of it: a person's job title, team and office is one chunk (easy), and at 900 queries it took 103 of 150
  thematic slots (feasible share 0.97 against the design's 0.85, tiers 112/32/6 against 60/53/37); two colleagues
  are two profiles (medium), a person's title and office with the incidents they reported a profile and one to
  six incident reports (hard; over 400 tokens from three or four). A two-hop question from an incident to its
  reporter's profile crosses two branches (hard, within 400 tokens: no two-hop target), to its system's overview
  stays in one (medium). Targets not listed (and slots without one) take the ``scale`` variant.
- **keep_hard**: thematic, comparative and temporal hard questions are vocabulary-mismatch or snapshot traps:
  their hard draws stay theirs (the suite keeps its share of vocabulary-mismatch queries) until the planner's
  last tries at a slot: a suite of 3,000 on full has more hard comparative slots than the world has policies.
"""

from __future__ import annotations

from hcrbench.synth.questions import reach as qr
from hcrbench.synth.questions import scale as qs
from hcrbench.synth.questions.category import QueryCategory, register
from hcrbench.synth.questions.chain import multi_hop, two_hop
from hcrbench.synth.questions.entity import entity_spanning
from hcrbench.synth.questions.generators import (
    aggregation,
    ambiguous,
    comparative,
    detail,
    out_of_distribution,
    temporal,
    thematic,
)
from hcrbench.synth.questions.properties import (
    ambiguous_property,
    chain_property,
    spanning_property,
    thematic_property,
)

ONE_DOC_OR_MORE = ("medium", "hard")  # two documents at least: never one chunk

THEMATIC = register(QueryCategory(
    "thematic", 50, thematic, feasible=0.85, fill_rank=7, slot_order=("easy", "hard", "medium"),
    reach={("hard", False): ((0.8, qr.thematic_wide),)},
    scale=qs.person_at_a_glance,
    scale_forms={("medium", True): qs.colleagues_at_a_glance, ("hard", True): qs.reporter_at_a_glance,
                 ("hard", False): qs.reporter_at_a_glance},
    keep_hard=True, check=thematic_property,
    description="how Meridian handles a topic: facts stated across several documents"))
ENTITY_SPANNING = register(QueryCategory(
    "entity_spanning", 55, entity_spanning, feasible=0.60, tiers=ONE_DOC_OR_MORE, fill_rank=3,
    reach={("medium", True): ((0.9, qr.entity_narrow),)}, check=spanning_property,
    description="several named aspects of one entity, each answered completely"))
DETAIL = register(QueryCategory(
    "detail", 50, detail, feasible=0.90, tiers=("easy",), fill_rank=8, targeted=False,
    scale=qs.decision_owner, description="one identifier-bound fact"))
TWO_HOP = register(QueryCategory(
    "two_hop", 35, two_hop, feasible=0.50, tiers=ONE_DOC_OR_MORE, fill_rank=4,
    reach={("medium", True): ((0.8, qr.two_hop_within),),
           ("hard", False): ((0.5, qr.two_hop_fanout), (0.8, qr.two_hop_tickets))},
    scale=qs.reporter_fact, scale_forms={("medium", True): qs.incident_system_fact},
    check=chain_property, chain=True, description="a chain of two facts through a bridge entity"))
MULTI_HOP = register(QueryCategory(
    "multi_hop", 15, multi_hop, feasible=0.20, tiers=("hard",), fill_rank=2,
    reach={("hard", False): ((0.35, qr.multi_hop_fanout), (0.35, qr.multi_hop_tickets),
                             (0.7, qr.multi_hop_deep))},
    check=chain_property, chain=True, distinct_hops=True,
    description="a chain of three or more hops, each in its own documents"))
COMPARATIVE = register(QueryCategory(
    "comparative", 25, comparative, feasible=0.40, tiers=ONE_DOC_OR_MORE, fill_rank=6,
    slot_order=("hard", "easy", "medium"), reach={("hard", False): ((0.9, qr.comparative_wide),)},
    scale=qs.longer_or_costlier, keep_hard=True, description="two or more sides that all exist"))
AGGREGATION = register(QueryCategory(
    "aggregation", 20, aggregation, feasible=0.10, tiers=ONE_DOC_OR_MORE, fill_rank=1,
    description="an exhaustive list, the exact answer of a world query"))
TEMPORAL = register(QueryCategory(
    "temporal", 20, temporal, feasible=0.70, fill_rank=5, slot_order=("easy", "hard", "medium"),
    reach={("hard", False): ((0.45, qr.temporal_wide), (0.8, qr.temporal_history))},
    scale=qs.opened_first, keep_hard=True, description="as-of questions over reports and policy versions"))
AMBIGUOUS = register(QueryCategory(
    "ambiguous", 15, ambiguous, feasible=0.60, tiers=ONE_DOC_OR_MORE, fill_rank=0,
    reach={("medium", True): ((0.6, qr.ambiguous_pair),)}, check=ambiguous_property,
    description="two or more interpretations, each answered"))
OUT_OF_DISTRIBUTION = register(QueryCategory(
    "out_of_distribution", 15, out_of_distribution, feasible=None, fill_rank=9, targeted=False,
    needs_facts=False, description="questions the corpus cannot answer by construction"))
