"""Sentence pools for sections that belong to one document type (policy exceptions, incident lessons, meeting
retrospectives, profile backgrounds, ...). Pure data, same rules as :mod:`hcrbench.synth.phrases`.

Every entry is a template: :func:`hcrbench.synth.text.vary` expands each ``[a|b|c]`` group per document, so one
template yields hundreds to thousands of surface forms and no body sentence recurs across many documents. The
templates live in four modules by document family; this one only assembles them under their pool keys.
"""

from __future__ import annotations

from hcrbench.synth.phrases_extra import MORE_DOCS
from hcrbench.synth.phrases_incident import INCIDENT
from hcrbench.synth.phrases_meeting import MEETING
from hcrbench.synth.phrases_people import ANNOUNCE, POLICY, PROFILE
from hcrbench.synth.phrases_systems import CLUSTER, SYSTEMS

POOLS: dict[str, list[str]] = {**POLICY, **INCIDENT, **MEETING, **SYSTEMS, **PROFILE, **ANNOUNCE, **CLUSTER}
for _pool, _more in MORE_DOCS.items():  # extra templates that widen the vocabulary (see phrases_extra)
    POOLS[_pool] = POOLS[_pool] + _more
