"""Render one planned document (:class:`DocSpec`) into title, text, fact spans and routing metadata."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hcrbench.synth.corpus import render_entities as re_
from hcrbench.synth.corpus.doc_kinds import doc_kind
from hcrbench.synth.corpus.filler import pad
from hcrbench.synth.corpus.mentions import mention_lines
from hcrbench.synth.corpus.noise import add_footer, add_typos
from hcrbench.synth.corpus.render_events import RENDERERS
from hcrbench.synth.corpus.render_guides import render_howto, render_minutes, render_spec
from hcrbench.synth.corpus.render_threads import (
    render_announcement_mail,
    render_decision_mail,
    render_incident_chat,
)
from hcrbench.synth.corpus.subjects import allowed_subjects, off_subject, subject_scope
from hcrbench.synth.corpus.text import target_words
from hcrbench.synth.world_model.entities import World
from hcrbench.synth.world_model.schedule import DocSpec
from hcrbench.synth.world_model.seeds import rng

_ALL = {
    "policy": re_.render_policy, "project_status": re_.render_project_status,
    "project_charter": re_.render_project_charter, "system_status": re_.render_system,
    "system_overview": re_.render_system, "profile": re_.render_profile, "team_page": re_.render_team,
    "product_spec": re_.render_product, "eng_process": re_.render_eng_process, **RENDERERS,
}
#: The renderer of a (type, kind) written in another form than its type's page (synth/corpus/doc_kinds.py).
_KINDS = {
    ("incident", "chat_thread"): render_incident_chat, ("decision", "mail_thread"): render_decision_mail,
    ("announcement", "mail_thread"): render_announcement_mail, ("meeting", "minutes"): render_minutes,
    ("system_overview", "howto"): render_howto, ("system_overview", "spec"): render_spec,
}
#: Kinds written as they are, with no filler sections (a thread ends with its last message, minutes with the
#: date of the next meeting).
UNPADDED = frozenset({"chat_thread", "mail_thread", "minutes"})


@dataclass
class RenderedDoc:
    doc_id: str
    title: str
    text: str
    spans: dict[str, tuple[int, int]]
    pieces: list[tuple[int, int]]
    metadata: dict[str, Any]

    def row(self) -> dict[str, Any]:
        """The ``corpus.jsonl`` object."""
        return {"_id": self.doc_id, "title": self.title, "text": self.text, "metadata": self.metadata}

    def mention(self, name: str) -> tuple[int, int] | None:
        """The first keyed fact, else the first sentence or line, that names ``name`` (spans recorded while
        rendering; the flat text is never searched)."""
        for start, end in list(self.spans.values()) + self.pieces:
            if name in self.text[start:end]:
                return start, end
        return None


def render(world: World, spec: DocSpec) -> RenderedDoc:
    """Render ``spec``; the same world and spec always give the same bytes."""
    # Near-duplicate clusters share their wording (and padding): only the facts differ.
    r = rng(world.seed, "cluster", spec.cluster) if spec.cluster else rng(world.seed, "render", spec.index)
    kind = doc_kind(world, spec)
    with subject_scope(off_subject(allowed_subjects(spec.doc_type, spec.entities, spec.cluster, world.get))):
        title, tb = _KINDS.get((spec.doc_type, kind), _ALL[spec.doc_type])(world, spec, r)
        if kind not in UNPADDED:
            pad(tb, r, tb.kind or spec.doc_type, spec.domains, target_words(r))
        tb.finish()
        mentioned: list[str] = []
        if kind not in UNPADDED:
            lines, mentioned = mention_lines(world, spec, tb.text())
            if lines:
                tb.line()
            for line in lines:
                tb.line(line)
    if not spec.cluster:  # near-duplicate clusters keep their shared wording
        add_footer(tb, kind, world.seed, spec.index)
    text = tb.text()
    if not spec.cluster:
        text = add_typos(text, [*tb.spans.values(), *tb.kept], world.seed, spec.index)
    meta: dict[str, Any] = {"domain": spec.domain, "domains": spec.domains, "doc_type": spec.doc_type,
                            "kind": kind, "entities": spec.entities}
    if spec.quarter:
        meta["quarter"] = spec.quarter
        meta["snapshot"] = True
    if spec.cluster:
        meta["cluster"] = spec.cluster
    if spec.date:
        meta["date"] = spec.date
    if mentioned:
        meta["mentions"] = mentioned  # named in passing, no fact (synth/corpus/mentions.py): not what the page is about
    return RenderedDoc(spec.doc_id, title, text, dict(tb.spans), tb.pieces, meta)

