"""World facts and where they are stated: the single source of Meridian's ground truth (generator 2).

A fact is one attribute of one world entity, named by a stable id (``per:P0012:location``,
``pol:HR-POL-043:v2:param0``, ``tkt:INC-20006:root_cause`` ...). Renderers key the sentences they write; this
module maps each ``(document, key)`` to the facts that sentence states, so every statement of every fact is
recorded with its exact span while the text is written (:class:`Statement`). Qrels are then derived from these
statements, never from a planned "evidence document", so a fact stated in five documents makes all five relevant.
:func:`fact_value` gives the world's value of a fact as it is written in text; the consistency check
(:func:`check_statement`) asserts that every recorded statement contains that value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hcrbench.synth.corpus.text import amount, human_date, money
from hcrbench.synth.world_model import lexicon as lx
from hcrbench.synth.world_model.entities import World
from hcrbench.synth.world_model.schedule import DocSpec
from hcrbench.synth.world_model.seeds import rng


@dataclass(frozen=True)
class Statement:
    """One statement of one fact: ``corpus[doc].text[start:end] == text`` (``provenance.jsonl`` line)."""

    doc: int
    start: int
    end: int
    fact_id: str
    text: str


def _qlabel(q: str) -> str:
    return f"{q[-2:]} {q[:4]}"


def _by_id(w: World, records: str, rid: str) -> dict[str, Any]:
    """``w.<records>`` (a list of dicts with an "id") looked up by id, through an index cached on the world and
    rebuilt when the list has grown."""
    items = getattr(w, records)
    idx = getattr(w, f"_{records}_index", None)
    if idx is None or len(idx) != len(items):
        idx = {r["id"]: r for r in items}
        setattr(w, f"_{records}_index", idx)
    return idx[rid]


def _ticket(w: World, tid: str) -> dict[str, Any]:
    return _by_id(w, "tickets", tid)


def _decision(w: World, did: str) -> dict[str, Any]:
    return _by_id(w, "decisions", did)


def fact_value(w: World, fid: str) -> str:
    """The world's value of ``fid`` exactly as documents write it (used for answers and the consistency check)."""
    from hcrbench.synth.corpus.render_events import DECISION_OPTIONS, SEVERITY

    kind, subj, *rest = fid.split(":")
    attr = rest[0]
    if kind == "per":
        p = w.get(subj)
        if attr == "manager":
            return w.get(p.manager).name
        if attr == "team":
            return w.get(p.team).name
        if attr == "joined":
            return human_date(p.joined)
        return {"role": p.role, "location": p.location}[attr]
    if kind == "team":
        return w.get(w.get(subj).lead).name
    if kind == "pol":
        p = w.get(subj)
        if attr == "approver":
            return w.get(p.approver).name
        if attr == "owner":
            return w.get(p.owner_team).name
        v = int(attr[1:])
        if rest[1] == "effective":
            return human_date(p.effective[v])
        prm = p.params[int(rest[1][5:])]
        return amount(prm["values"][v], prm["unit"])
    if kind == "prj":
        p = w.get(subj)
        if attr in ("lead", "sponsor"):
            return w.get(getattr(p, attr)).name
        if attr == "budget":
            return money(p.budget_k)
        if attr == "goal":
            return p.goal
        if attr == "product":
            return w.get(p.product).name
        if attr == "status":
            return p.status[rest[1]]
        return p.milestone[rest[1]]
    if kind == "sys":
        s = w.get(subj)
        if attr == "owner":
            return w.get(s.owner_team).name
        if attr == "admin":
            return w.get(s.admin).name
        if attr == "removed":  # the access review's finding (same draw as the renderer's)
            fr = rng(w.seed, "access_review", s.id)
            n_acc = fr.randint(max(2, s.users * 3 // 4), s.users)
            return f"{fr.randrange(1, min(25, n_acc))} were removed"
        return {"kind": s.kind, "vendor": s.vendor, "users": str(s.users)}[attr]
    if kind == "prd":
        p = w.get(subj)
        if attr == "manager":
            return w.get(p.manager).name
        return {"description": p.description, "version": p.version}[attr]
    if kind == "tkt":
        t = _ticket(w, subj)
        if attr in ("reporter", "assignee"):
            return w.get(t[attr]).name
        if attr == "system":
            return w.get(t["system"]).name
        if attr == "severity":
            return SEVERITY[t["severity"]].split(" (")[0]
        if attr == "duration":
            return f"{t['duration_min']}"
        if attr == "date":
            return human_date(t["date"])
        return t.get("cause") or lx.ROOT_CAUSES[t["root_cause"]]  # generator 4: the incident's own cause
    if kind == "dec":
        d = _decision(w, subj)
        if attr in ("approver", "owner"):
            return w.get(d[attr]).name
        if attr == "cost":
            return money(d["cost_k"])
        return DECISION_OPTIONS[d["option"]]
    if kind == "mtg":
        return w.get(rest[1]).name
    raise KeyError(fid)


def fact_entities(fid: str, w: World) -> list[str]:
    """The world entities a fact is about (subject first), used for entity-spanning queries and topical grades."""
    kind, subj, *rest = fid.split(":")
    out = [subj]
    if kind == "mtg":
        out.append(rest[1])
    if kind == "prj" and rest[0] in ("lead", "sponsor"):
        out.append(getattr(w.get(subj), rest[0]))
    elif kind == "tkt" and rest[0] in ("reporter", "assignee", "system"):
        t = _ticket(w, subj)
        out.append(t[rest[0]])
        if rest[0] == "system" and t["project"]:
            out.append(t["project"])  # the incident that hit a project is part of that project's story
    elif kind == "dec" and rest[0] in ("approver", "owner", "option"):
        d = _decision(w, subj)
        out.append(d["project"] if rest[0] == "option" else d[rest[0]])
    elif kind == "mtg":
        out.append(w.meetings[int(subj[4:]) - 1]["project"])  # MTG-00001 is meetings[0]
    elif kind == "per" and rest[0] == "manager":
        out.append(w.get(subj).manager)
    elif kind == "sys" and rest[0] == "admin":
        out.append(w.get(subj).admin)
    return out


def _person(w: World, pid: str, *attrs: str) -> list[str]:
    """A person's facts; a team lead's title that names the team ("Site Reliability Lead") also states who
    leads that team."""
    out = [f"per:{pid}:{a}" for a in attrs]
    if "role" in attrs:
        p = w.get(pid)
        t = w.get(p.team)
        if t.lead == pid and t.name in p.role:
            out.append(f"team:{t.id}:lead")
    return out


def key_facts(w: World, s: DocSpec, key: str) -> list[str]:
    """The facts the sentence keyed ``key`` in document ``s`` states (empty for keys that state no world fact)."""
    t, ref = s.doc_type, s.ref
    if t == "policy":
        p, v = w.get(ref["policy"]), ref["version"]
        if key == "approver":
            return [f"pol:{p.id}:owner", f"pol:{p.id}:approver", *_person(w, p.approver, "role")]
        if key == "owner":
            return [f"pol:{p.id}:owner", f"pol:{p.id}:approver"]
        if key == "effective":
            return [f"pol:{p.id}:v{v}:effective"]
        if key.startswith("param"):
            return [f"pol:{p.id}:v{v}:{key}"]
        if (key.startswith("change") and key[6:].isdigit()) or key == "change":  # the j-th changed figure
            j = int(key[6:] or 0)
            changed = [k for k, prm in enumerate(p.params) if prm["values"][v] != prm["values"][v - 1]]
            return [f"pol:{p.id}:v{v - 1}:param{changed[j]}", f"pol:{p.id}:v{v}:param{changed[j]}"] \
                if j < len(changed) else []
        if key == "system":
            return [f"sys:{ref['system']}:owner"]
        return []
    if t == "project_status":
        p, q = w.get(ref["project"]), ref["quarter"]
        return {"lead": [f"prj:{p.id}:lead"], "status": [f"prj:{p.id}:status:{q}"],
                "milestone": [f"prj:{p.id}:milestone:{q}"], "budget": [f"prj:{p.id}:budget"],
                "product": [f"prj:{p.id}:product", f"prd:{p.product}:description"]}.get(key, [])
    if t == "project_update":
        p = ref["project"]
        return [f"prj:{p}:status:2024-Q3", f"prj:{p}:milestone:2024-Q3"] if key == "status" else []
    if t == "project_charter":
        p = w.get(ref["project"])
        if key == "lead":
            return [f"prj:{p.id}:lead", *_person(w, p.lead, "role", "team")]
        if key.startswith("ms:"):
            return [f"prj:{p.id}:milestone:{key[3:]}"]
        return {"goal": [f"prj:{p.id}:goal"], "sponsor": [f"prj:{p.id}:sponsor"], "budget": [f"prj:{p.id}:budget"],
                "product": [f"prj:{p.id}:product"]}.get(key, [])
    if t in ("system_overview", "system_status"):
        sid = ref["system"]
        if t == "system_status":
            return [f"sys:{sid}:admin", f"sys:{sid}:owner"] if key == "admin" else []
        return {"kind": [f"sys:{sid}:kind"], "vendor": [f"sys:{sid}:vendor", f"sys:{sid}:users"],
                "owner": [f"sys:{sid}:owner"], "admin": [f"sys:{sid}:admin"]}.get(key, [])
    if t == "profile":
        pid = ref["person"]
        if key == "role":
            return _person(w, pid, "role", "team")
        if key == "team":
            return _person(w, pid, "team")
        if key == "location":
            return _person(w, pid, "joined", "location")
        if key == "manager":
            return _person(w, pid, "manager")
        if key == "projects":
            return [f"prj:{x}:lead" for x in ref["projects"]]
        return []
    if t == "team_page":
        if key == "lead":
            return [f"team:{ref['team']}:lead"]
        if key.startswith("member:"):
            return _person(w, key[7:], "team", "role", "location")
        return []
    if t == "product_spec":
        pid = ref["product"]
        return {"description": [f"prd:{pid}:description"], "version": [f"prd:{pid}:version"],
                "manager": [f"prd:{pid}:manager"]}.get(key, [])
    if t == "incident":
        tid = w.tickets[ref["ticket"]]["id"]
        if key == "assignee":
            return [f"tkt:{tid}:date", f"tkt:{tid}:reporter", f"tkt:{tid}:assignee"]
        if key == "summary":
            return [f"tkt:{tid}:system"]
        if key == "fix":
            return [f"sys:{w.tickets[ref['ticket']]['system']}:owner"]
        if key == "project":
            return [f"prj:{w.tickets[ref['ticket']]['project']}:lead"]
        return [f"tkt:{tid}:{key}"] if key in ("severity", "duration", "root_cause") else []
    if t == "decision":
        d = w.decisions[ref["decision"]]
        if key == "approver":
            return [f"dec:{d['id']}:approver", f"dec:{d['id']}:owner"]
        if key == "context":
            return [f"prj:{d['project']}:goal"]
        if key == "delivery":  # the decision's owner is the project's lead (world rule), and the text says so
            return [f"prj:{d['project']}:lead"]
        return {"decision": [f"dec:{d['id']}:option"], "cost": [f"dec:{d['id']}:cost"]}.get(key, [])
    if t == "meeting":
        m = w.meetings[ref["meeting"]]
        if key == "goal":  # a discussion point that names the project's goal
            return [f"prj:{m['project']}:goal"]
        return [f"mtg:{m['id']}:attendee:{a}" for a in m["attendees"]] if key == "attendees" else []
    if t == "announcement":
        topic = ref["topic"]
        if key == "signature":
            return _person(w, ref["author"], "role")
        if topic == "policy":
            p, v = ref["policy"], ref["version"]
            return {"headline": [f"pol:{p}:v{v}:effective"], "param0": [f"pol:{p}:v{v}:param0"]}.get(key, [])
        if topic == "people" and key == "headline":
            return _person(w, ref["person"], "role")
        if topic == "farewell" and key == "headline":
            return _person(w, ref["person"], "role", "team")
        if topic == "people" and key == "team":
            return _person(w, ref["person"], "team")
        if topic == "system" and key == "owner":
            return [f"sys:{ref['system']}:owner"]
        if topic == "project" and key == "lead":
            return [f"prj:{ref['project']}:lead"]
        return []
    if t == "team_news":
        if key == "project":
            return [f"prj:{ref['project']}:goal"]
        if key == "newcomer":
            return _person(w, ref["person"], "role", "team", "joined")
        return []
    if t == "ops_digest" and key.startswith("row:"):
        tid = key[4:]
        return [f"tkt:{tid}:system", f"tkt:{tid}:severity", f"tkt:{tid}:duration"]
    if t == "access_review" and key == "findings":
        return [f"sys:{ref['system']}:removed"]
    if t == "release_notes" and key == "manager":
        return [f"prd:{ref['product']}:manager"]
    if t == "onboarding" and key == "buddy":
        return []
    return []


def check_statement(w: World, st: Statement, header: str = "") -> str | None:
    """Why ``st`` disagrees with the world (neither its text nor its document's first line ``header``, which a
    table row or bullet relies on, holds the fact's value), or None when it agrees."""
    value = fact_value(w, st.fact_id)
    if value not in st.text and value not in header:
        return f"{st.fact_id}: expected {value!r} in {st.text!r}"
    return None


def subject_name(w: World, fid: str) -> str:
    """The string that names a fact's subject in text (a person's or system's name, a code name, an id)."""
    kind, subj = fid.split(":")[:2]
    if kind in ("tkt", "dec", "mtg", "pol"):
        return subj
    e = w.get(subj)
    for attr in ("code_name", "name"):
        if hasattr(e, attr):
            return getattr(e, attr)
    return subj


__all__ = ["Statement", "check_statement", "fact_entities", "fact_value", "key_facts", "subject_name"]
