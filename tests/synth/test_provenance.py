"""Meridian 2 ground truth: fact provenance, exhaustive derived qrels, minimal evidence, category properties.

Everything is re-checked from the written files (and, where a fact's value is needed, from a rebuilt world),
on several seeds.
"""

from __future__ import annotations

import functools
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from hcrbench.data import iter_jsonl, read_corpus
from hcrbench.data.evidence import BUDGET_TOKENS, read_evidence
from hcrbench.data.tokens import default_counter
from hcrbench.synth import build_world
from hcrbench.synth.corpus.stems import content_stems
from hcrbench.synth.world_model.facts import Statement, check_statement, fact_value, subject_name
from hcrbench.synth.world_model.schedule import iter_specs

SEEDS = [(0, "small"), (5, "small"), (3, "medium")]  # some wordings only reach core entities at medium
# Facts whose value next to the subject's name does not by itself state them (versioned values, a person named
# beside the team that owns a policy): the rescan looks for their recorded wordings only.
LOOSE = r":v\d:|:status:|:milestone:|^per:.*:(team|manager)$|^team:|^pol:.*:owner$"
# A person's name beside a project's or system's name states a relation only with a word for it ("Dalia Varga
# opened the Osprey meeting" does not say she leads Osprey; "Osprey, whose lead is Dalia Varga" does).
CUES = {"lead": r"\blead|\bled\b|\bheads?\b|\bruns\b|accountable|in charge", "admin": r"admin",
        "approver": r"approv|sign|ratif|endorse", "owner": r"own|implement|deliver", "sponsor": r"sponsor",
        "manager": r"manag|reports? to|product", "reporter": r"report|opened|raised|logged|filed|flagged",
        "assignee": r"assign|claimed|handl|took|picked|owner"}


@pytest.fixture(scope="module", params=[pytest.param(c, marks=pytest.mark.slow) if c == (5, "small") else c for c in SEEDS],
                ids=[f"{s}-{n}" for s, n in SEEDS])
def folder(request, tmp_path_factory, meridian_copy) -> Path:
    seed, size = request.param
    out = tmp_path_factory.mktemp(f"m2-{seed}") / size
    meridian_copy(out, size, seed=seed, grow=True)
    return out


def _meta(folder: Path) -> list[dict]:
    return [o for _, o in iter_jsonl(folder / "queries.meta.jsonl")]


def _prov(folder: Path) -> dict[str, list[dict]]:
    by_fact: dict[str, list[dict]] = defaultdict(list)
    for _, row in iter_jsonl(folder / "provenance.jsonl"):
        by_fact[row["fact_id"]].append(row)
    return by_fact


def _world(folder: Path):
    man = json.loads((folder / "manifest.json").read_text())
    w = build_world(man["seed"], man["n_docs"])
    for _ in iter_specs(w):
        pass
    return w


def _sentences(text: str, lines: bool = True) -> set[str]:
    """Every sentence of a document (and, with ``lines``, every whole line), without list markers."""
    out: set[str] = set()
    for line in text.splitlines():
        line = line.strip().removeprefix("- ")
        if lines:
            out.add(line)
        out.update(s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip())
    return out


def test_provenance_is_verbatim_and_agrees_with_the_world(folder):
    corpus = read_corpus(folder / "corpus.jsonl")
    w = _world(folder)
    n = 0
    for _, row in iter_jsonl(folder / "provenance.jsonl"):
        assert corpus[row["doc_id"]].text[row["start"]:row["end"]] == row["text"]
        st = Statement(int(row["doc_id"][4:]), row["start"], row["end"], row["fact_id"], row["text"])
        assert check_statement(w, st, corpus[row["doc_id"]].text.split("\n", 1)[0]) is None
        n += 1
    assert n > 2000


def test_facts_have_several_surface_forms(folder):
    forms: dict[str, set[str]] = defaultdict(set)
    for fid, rows in _prov(folder).items():
        kind = fid.split(":")[0] + ":" + fid.split(":")[-1] if fid.startswith("per") else fid.split(":")[0]
        for r in rows:
            forms[kind].add(re.sub(r"[A-Z][a-z]+ [A-Z][a-z']+|\d[\d,.]*", "X", r["text"])[:40])
    assert len(forms["per:location"]) >= 3 and len(forms["pol"]) >= 5 and len(forms["per:role"]) >= 3


def _subjects(folder: Path) -> dict[str, str]:
    """What each document is about: the meeting, ticket or decision it writes up, else its first routing entity."""
    out = {row["_id"]: row["metadata"]["entities"][0] for _, row in iter_jsonl(folder / "corpus.jsonl")
           if row["metadata"].get("entities")}
    world = json.loads((folder / "world.json").read_text())
    for kind in ("meetings", "tickets", "decisions"):
        out |= {f"MER-{r['doc']:06d}": r["id"] for r in world[kind]}
    return out


def test_qrels_are_derived_from_provenance_and_exhaustive(folder):
    prov = _prov(folder)
    subject = _subjects(folder)
    graded = set()
    for m in _meta(folder):
        need = set(m["facts"])
        stated: dict[str, set[str]] = defaultdict(set)
        for f in need:
            for r in prov[f]:
                stated[r["doc_id"]].add(f)
        for doc, fs in stated.items():  # every document stating a needed fact is judged relevant: 3 when one of
            own = any(f.split(":")[1] == subject[doc] for f in fs)  # them is about its subject, else 2 (aside)
            assert m["qrels"].get(doc) == (3 if own else 2), (m["query_id"], doc)
            graded.add(m["qrels"][doc])
        for doc, g in m["qrels"].items():  # and nothing else is graded 2 or 3
            assert (g >= 2) == (doc in stated), (m["query_id"], doc, g)
        assert set(m["qrels"].values()) <= {0, 1, 2, 3}
    assert graded == {2, 3}  # both kinds of relevant page occur


@functools.cache
def _name_pattern(subject: str) -> re.Pattern:
    return re.compile(r"(?<![\w-])" + re.escape(subject) + r"(?![\w-]| \d)")


def _names(subject: str, text: str) -> bool:
    """``text`` names ``subject`` as a whole name ("Kestrel", not "Kestrel 2", a later project of that name)."""
    return subject in text and _name_pattern(subject).search(text) is not None


def test_rescan_finds_no_statement_outside_the_qrels(folder):
    """For every needed fact, scan the whole corpus for its surface forms (each recorded wording, and the world's
    value next to the subject's name in one line) and find no document the qrels leave out."""
    corpus = read_corpus(folder / "corpus.jsonl")
    prov = _prov(folder)
    w = _world(folder)
    sentences = {d: _sentences(corpus[d].text) for d in corpus.doc_ids}
    only = {d: _sentences(corpus[d].text, lines=False) for d in corpus.doc_ids}
    texts = {d: corpus[d].text for d in corpus.doc_ids}
    where: dict[str, set[str]] = defaultdict(set)
    for d, ss in sentences.items():
        for s in ss:
            where[s].add(d)

    def by_sentence_docs(forms: set[str]) -> set[str]:
        return set().union(*(where.get(f, set()) for f in forms))

    headers = {d: corpus[d].title + "\n" + corpus[d].text.split("\n", 1)[0] for d in corpus.doc_ids}
    people = {p.name for p in w.people}
    names = people | {x.name for x in (*w.teams, *w.systems, *w.products)}  # entity names: relations need cues
    subject_docs: dict[str, set[str]] = {}
    fact_hits: dict[str, list[str]] = {}  # a fact's statements do not depend on the query that needs it

    def hits(f: str) -> list[str]:
        forms = {r["text"].strip().removeprefix("- ") for r in prov[f]}
        value, subject = fact_value(w, f), subject_name(w, f)
        if subject not in subject_docs:
            subject_docs[subject] = {d for d, t in texts.items() if _names(subject, t)}
        ver = re.search(r":v(\d):", f)
        qtr = re.search(r":(\d{4})-(Q\d)$", f)
        qual = (f"version {int(ver.group(1)) + 1}" if ver
                else f"{qtr.group(2)} {qtr.group(1)}".lower() if qtr else None)
        out = []
        for d in sorted(by_sentence_docs(forms) | subject_docs[subject]):
            ss = sentences[d]
            # a form that does not name its subject ("Owning team: X") relies on the document's header
            # ... and a versioned fact's wording counts only under its version (or quarter)
            hit = any((_names(subject, form) or _names(subject, headers[d]))
                      and (qual is None or qual in form.lower() or qual in headers[d].lower())
                      for form in forms & ss)
            if not hit and not re.search(LOOSE, f) and len(value) > 3:
                cue = CUES.get(f.split(":")[2]) if value in people else None
                hit = any(value in s and _names(subject, s) and (cue is None or re.search(cue, s, re.I))
                          for s in only[d])
            if (not hit and not re.search(LOOSE, f) and len(value.split()) >= 3 and value not in names
                    and _names(subject, headers[d])):
                hit = value in texts[d]  # a distinctive phrase (a goal, a cause) in a page about the subject
            if not hit and re.fullmatch(r"team:[^:]+:lead", f):  # a signature "Rahul Hughes, Site Reliability Lead"
                hit = any(value in s and f"{subject} Lead" in s for s in ss)
            if hit:
                out.append(d)
        return out

    checked = 0
    for m in _meta(folder):
        relevant = {d for d, g in m["qrels"].items() if g >= 2}
        for f in m["facts"]:
            if f not in fact_hits:
                fact_hits[f] = hits(f)
            for d in fact_hits[f]:
                assert d in relevant, (m["query_id"], f, d)
                checked += 1
    assert checked > 1000


def test_evidence_file_lists_every_statement_and_a_minimal_cover(folder):
    prov = _prov(folder)
    ev = read_evidence(folder / "evidence.jsonl")
    metas = {m["query_id"]: m for m in _meta(folder)}
    count = default_counter().count
    assert set(ev) == set(metas)
    for qid, rec in ev.items():
        m = metas[qid]
        assert rec.facts == m["facts"] and not rec.defaulted and rec.answer == m["answer"]
        want = {(r["doc_id"], r["start"], r["end"], f) for f in rec.facts for r in prov[f]}
        assert {(e.doc_id, e.start, e.end, e.fact_id) for e in rec.evidence} == want
        assert {e.fact_id for e in rec.minimal} == set(rec.facts)
        spans = {(e.doc_id, e.start, e.end): e.text for e in rec.minimal}
        assert rec.minimal_tokens == sum(count(t) for t in spans.values())
        assert rec.budget_feasible == (bool(rec.facts) and rec.minimal_tokens <= BUDGET_TOKENS)
        # minimal: for a single fact it is its cheapest statement
        if len(rec.facts) == 1:
            assert rec.minimal_tokens == min(count(e.text) for e in rec.evidence)


def test_category_properties_hold(folder):
    prov = _prov(folder)
    docs_of = {f: {r["doc_id"] for r in rows} for f, rows in prov.items()}
    for m in _meta(folder):
        cat, facts = m["category"], m["facts"]
        if cat == "out_of_distribution":
            assert not facts and not m["qrels"]
            continue
        assert m["answer"] not in ("", [], None) and "appears in" not in str(m["answer"])
        if cat in ("two_hop", "multi_hop"):  # no single document states every hop
            assert len(m["chain"]) == m["hops"] >= (2 if cat == "two_hop" else 3) and set(m["chain"]) <= set(facts)
            assert not set.intersection(*(docs_of[f] for f in facts)), m["query_id"]
            assert 3 in m["qrels"].values()  # a hop's own page (a meeting's notes, a profile) is about its fact
        if m["origin"] == "adversarial:vocabulary":
            ev = set().union(*(content_stems(r["text"]) for f in facts for r in prov[f]))
            assert not content_stems(m["text"]) & ev, m["text"]
        if cat == "ambiguous":
            assert len(m["interpretations"]) >= 2
            for i in m["interpretations"]:
                assert i["qrels"] and set(i["qrels"]) <= {d for d, g in m["qrels"].items() if g >= 2}
        if cat == "thematic":
            assert len(set().union(*(docs_of[f] for f in facts))) >= 2
        if cat == "aggregation":
            assert isinstance(m["answer"], list) and len(m["answer"]) >= 2
        if cat == "entity_spanning":
            assert isinstance(m["answer"], list) and len(facts) >= 6


def test_ambiguous_surname_queries_cover_every_matching_person(folder):
    """A question about a shared surname or first name (its ``intent``: role, location or team ``_of_surname`` /
    ``_of_first_name``) has one interpretation per person of that name whose fact is stated (within the team the
    words name, where a very large world scopes the name)."""
    w = _world(folder)
    teams = {t.name: t.id for t in w.teams}
    prov = _prov(folder)
    checked = 0
    for m in _meta(folder):
        found = re.fullmatch(r"(role|location|team)_of_(surname|first_name)", m.get("intent") or "")
        if m["category"] != "ambiguous" or not found:
            continue
        aspect, kind = found.groups()
        name, _, team = m["params"][kind].partition(" from ")
        part = -1 if kind == "surname" else 0
        want = {p.name for p in w.people[1:] if p.name.split()[part] == name and prov.get(f"per:{p.id}:{aspect}")
                and (not team or p.team == teams[team])}
        assert {i["label"] for i in m["interpretations"]} == want, m["text"]
        assert name in m["text"] and len(want) >= 2
        checked += 1
    assert checked  # every folder has some

def test_no_duplicate_queries_and_no_relevant_set_shared_across_splits(folder):
    metas = [m for m in _meta(folder) if m["facts"]]
    facts = [tuple(sorted(m["facts"])) for m in metas]
    assert len(set(facts)) == len(facts)
    assert len({m["text"] for m in _meta(folder)}) == 300
    owner: dict[frozenset, str] = {}
    for m in metas:
        rel = frozenset(d for d, g in m["qrels"].items() if g >= 2)
        assert owner.setdefault(rel, m["split"]) == m["split"], m["query_id"]


def test_difficulty_tiers_follow_the_chunked_evidence(folder):
    """Meridian 4: a tier is the design's meaning of the evidence in 128-token chunks (synth/questions/tiers.py), not a
    percentile of a score: easy is one chunk, an infeasible query is hard (tests/synth/test_tiers.py re-derives
    the chunks from the files)."""
    for m in _meta(folder):
        if m["category"] == "out_of_distribution":
            continue
        assert (m["difficulty"] == "easy") == (m["n_chunks"] == 1 and m["hops"] == 1), m["query_id"]
        assert m["budget_feasible_chunks"] or m["difficulty"] == "hard", m["query_id"]


def test_adversarial_patterns_from_the_shipped_toml(folder):
    from hcrbench.synth.questions.adversarial import patterns

    names = {p["name"] for p in patterns()}
    assert len(names) >= 5
    prov, w = _prov(folder), _world(folder)
    adv = [m for m in _meta(folder) if m["origin"] == "adversarial"]
    # every pattern shows up; their shares yield where they conflict with the category's feasible share and tier
    # mix (a wrong-branch chain is hard and fits 400 tokens, while the two-hop targets leave the hard tier to the
    # chains that do not fit) and, in a world grown for its topics (generator 4.3.0), with the join budget (a
    # wrong-branch or deep-and-shallow chain climbs the reporting line through hub managers): 11-18 of 300 on small
    # seeds 0, 1, 5 (16-20 on 4.2.0's 500 documents, 20-26 before the fit targets). A known regression (issue 35
    # closing note), floor lowered from 15 to 10 with it
    missing = names - {m["pattern"] for m in adv}
    assert missing <= {"near-duplicate"} and len(adv) >= 10, (missing, len(adv))
    if missing:  # the systems with an access review are few (8); in a grown world each may already be a topic of
        # the categories filled before detail (aggregation, comparative ...), and a query joining it spends the join
        # budget: the pattern then gives way, never its subjects' rule
        reviewed = {e for _, d in iter_jsonl(folder / "corpus.jsonl") if d["metadata"]["doc_type"] == "access_review"
                    for e in d["metadata"]["entities"] if e.startswith("SYS-")}
        assert reviewed and reviewed <= {e for m in _meta(folder) for e in m["expected_entities"]}
    for m in adv:
        if m["pattern"] == "outdated-version":  # every older version states another figure for the same rule
            (fid,) = m["facts"]
            older = [fid.replace(":v2:", f":v{v}:") for v in (0, 1)]
            assert all(prov[o] and fact_value(w, o) != fact_value(w, fid) for o in older)
        if m["pattern"] == "negation":  # four named systems; the answer is those the team does not own
            team = w.get(m["params"]["team"])
            named = [w.get(s) for s in m["params"]["systems"]]
            assert len(named) == 4 and all(s.name in m["text"] for s in named) and team.name in m["text"]
            assert m["answer"] == [s.name for s in named if s.owner_team != team.id] and m["answer"]
            assert m["facts"] == [f"sys:{s.id}:owner" for s in named]
