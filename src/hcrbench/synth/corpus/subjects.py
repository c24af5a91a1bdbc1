"""Which business subjects a document's body text may speak of, so no page borrows another domain's vocabulary.

Meridian 4's shared sentence pools put warehouse scanners and merchants' payments into a CI service's outage log,
a "Home location" definition and the HR portal into an API retirement standard. Three subjects have vocabulary a
reader places at once: **commerce** (merchants, checkout, tills, warehouses, stock levels), **people** (the HR
portal, home location, garden leave, works councils, pensions) and **finance** (invoicing, reconciliation,
month-end, payroll). A checked document may use the vocabulary of the subjects its own subject brings (a system's
kind, a policy's domain, a project's product) and of no other: :func:`hcrbench.synth.corpus.render.render` sets :data:`OFF_SUBJECT`
while a document is written, and :func:`hcrbench.synth.corpus.text.pick` and the filler never draw a template of a
subject in it.
:func:`off_subject_words` finds what slipped through in written text (``hcrbench describe`` counts it).
Near-duplicate clusters share their wording across documents and are not checked.
"""

from __future__ import annotations

import functools
import random
import re
from contextvars import ContextVar
from typing import Any

#: The subjects the document being written is not about (set by :class:`subject_scope` around a document; empty
#: draws every template).
OFF_SUBJECT: ContextVar[frozenset[str]] = ContextVar("OFF_SUBJECT", default=frozenset())

# template-level markers (stems, any case): a template that can write one of these speaks of the subject
SUBJECT_MARKERS: dict[str, str] = {
    "commerce": r"merchant|shopper|basket|checkout|card payment|point-of-sale|\btills?\b|warehouse|stock level"
                r"|order entry|order confirmation|kiosk|handheld|peak trading",
    "people": r"HR portal|HR system|home location|garden leave|works council|collective agreement"
              r"|union agreement|labour law|pension|offer letter|employment terms",
    "finance": r"invoic|reconcil|month-end|payroll",
}
SUBJECTS = tuple(SUBJECT_MARKERS)
_MARKER = {s: re.compile(p, re.IGNORECASE) for s, p in SUBJECT_MARKERS.items()}
_LOWER = {s: re.compile(p.lower()) for s, p in SUBJECT_MARKERS.items()}  # on lower-cased text (faster)


@functools.cache
def template_subjects(template: str) -> frozenset[str]:
    """The subjects whose vocabulary a template (or a text) can write."""
    low = template.lower()
    return frozenset(s for s, m in _LOWER.items() if m.search(low))


def on_subject(templates: list[str]) -> list[str]:
    """``templates`` without those that speak of a subject the current document is not about (all of them when
    every one does, so a fact is always written). Always a new list (the filler shuffles and pops it)."""
    off = OFF_SUBJECT.get()
    if not off:
        return list(templates)
    return [t for t in templates if not template_subjects(t) & off] or list(templates)


def sample_on(r: random.Random, templates: list[str], k: int) -> list[str]:
    """``k`` distinct templates, drawn among those on the document's subject when it has ``k`` of them."""
    kept = on_subject(templates)
    return r.sample(kept if len(kept) >= k else templates, k)

# the subjects a system brings, by its kind (a system of any other kind brings none)
SYSTEM_SUBJECTS: dict[str, frozenset[str]] = {
    "customer relationship management": frozenset({"commerce"}),
    "human resources information system": frozenset({"people", "finance"}),
    "finance and procurement system": frozenset({"finance", "commerce"}),
    "payroll system": frozenset({"finance", "people"}),
    "accounts payable automation": frozenset({"finance"}),
    "treasury management system": frozenset({"finance"}),
    "tax calculation engine": frozenset({"finance", "commerce"}),
    "learning management system": frozenset({"people"}),
    "applicant tracking system": frozenset({"people"}),
    "employee survey platform": frozenset({"people"}),
    "fraud screening service": frozenset({"commerce", "finance"}),
    "card issuing platform": frozenset({"commerce", "finance"}),
    "business intelligence tool": frozenset({"finance", "commerce"}),
}
# the subjects a policy brings, by its topic (a Finance Operations policy is "finance", else its domain)
POLICY_SUBJECTS: dict[str, frozenset[str]] = {
    "hr": frozenset({"people", "finance"}), "finance": frozenset({"finance", "people"}),
    "compliance": frozenset({"people"}), "it": frozenset(), "engineering": frozenset(),
}
# the subjects a product brings (a project's documents speak of its product's business)
PRODUCT_SUBJECTS: dict[str, frozenset[str]] = {
    "Meridian Ledger": frozenset({"finance"}), "Meridian Pulse": frozenset({"commerce"}),
    "Meridian Pay": frozenset({"commerce", "finance"}), "Meridian Field": frozenset({"commerce"}),
    "Meridian Insight": frozenset({"finance"}),
}
SYSTEM_TYPES = ("incident", "system_overview", "system_status")
PROJECT_TYPES = ("decision", "meeting", "project_status", "project_update", "project_charter")
CHECKED_TYPES = (*SYSTEM_TYPES, "policy", "eng_process", *PROJECT_TYPES)


def allowed_subjects(doc_type: str, entities: list[str], cluster: str | None, world: Any) -> frozenset[str] | None:
    """The subjects a document may speak of (None: the document is not checked). ``world`` maps an entity id to
    its record, an object (:class:`hcrbench.synth.world_model.entities.World`'s ``get``) or a ``world.json`` dict (``get_json``)."""
    if cluster or doc_type not in CHECKED_TYPES:
        return None
    get = world

    def field(e: Any, name: str) -> Any:
        return e[name] if isinstance(e, dict) else getattr(e, name)

    if doc_type in SYSTEM_TYPES:
        sid = next((e for e in entities if e.startswith("SYS-")), None)
        return SYSTEM_SUBJECTS.get(field(get(sid), "kind"), frozenset()) if sid else frozenset()
    if doc_type == "policy":
        pol = get(entities[0])
        owner = get(field(pol, "owner_team"))
        topic = "finance" if field(owner, "name") == "Finance Operations" else field(pol, "domain")
        return POLICY_SUBJECTS.get(topic, frozenset())
    if doc_type == "eng_process":
        return frozenset()
    pid = next((e for e in entities if e.startswith("PRJ-")), None)
    if pid is None:
        return frozenset()
    product = get(field(get(pid), "product"))
    return PRODUCT_SUBJECTS.get(field(product, "name"), frozenset())


def off_subject(allowed: frozenset[str] | None) -> frozenset[str]:
    """The subjects outside ``allowed`` (none when the document is not checked)."""
    return frozenset() if allowed is None else frozenset(SUBJECTS) - allowed


def off_subject_words(text: str, allowed: frozenset[str] | None) -> list[tuple[str, str]]:
    """(subject, words) of every marker of a subject outside ``allowed`` in ``text``."""
    if allowed is None:
        return []
    return [(s, m.group(0)) for s in SUBJECTS if s not in allowed for m in _MARKER[s].finditer(text)]


class subject_scope:
    """``with subject_scope(off):`` templates of the subjects ``off`` are not drawn while a document is written."""

    def __init__(self, off: frozenset[str]) -> None:
        self.off = off

    def __enter__(self) -> None:
        self.token = OFF_SUBJECT.set(self.off)

    def __exit__(self, *exc: object) -> None:
        OFF_SUBJECT.reset(self.token)


__all__ = ["CHECKED_TYPES", "OFF_SUBJECT", "SUBJECTS", "SUBJECT_MARKERS", "allowed_subjects", "off_subject",
           "off_subject_words", "on_subject", "sample_on", "subject_scope", "template_subjects"]
