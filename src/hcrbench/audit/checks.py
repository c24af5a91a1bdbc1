"""The audit's checks: each takes the loaded :class:`~hcrbench.audit.core.Bench` and returns one :class:`Check`.

Every check states its figure, its threshold and a few examples, so a reader can open the documents and judge.
Thresholds are constants here (a benchmark linter's defaults, not laws); ``status`` is ``ok``, ``FAIL`` or ``skip``
(the folder lacks what the check needs, e.g. a second split or answer strings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.audit.text import inverted, near_duplicate_pairs, normalise, stems
from hcrbench.synth.questions.dedup import QUESTION_WORDS, differ_in_a_name

#: Share of checked queries with at least one suspected false negative above which the check fails.
MAX_FALSE_NEGATIVE_QUERIES = 0.10
#: Queries in a duplicate or near-duplicate pair (share of the split) above which the check fails.
MAX_DUPLICATE_QUERIES = 0.01
#: Share of the split's queries with a relevant document that is also relevant in another split.
MAX_SHARED_RELEVANT = 0.10
#: Oracle ceilings below this (per category, nDCG@10 or R@100) fail.
MIN_CEILING = 0.95
#: Share of a run's top-k documents without a judgment above which the check fails.
MAX_UNJUDGED = 0.50
KEY_TERMS = 4
#: Rarest key terms (not 1-2 digit numbers) an answer string must stand beside to count.
SUBJECT_TERMS = 2
NEAR_DUP = 0.8
EXAMPLES = 3


@dataclass
class Check:
    name: str
    status: str  # ok | FAIL | skip
    summary: str
    value: float | None = None
    threshold: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "summary": self.summary, "value": self.value,
                "threshold": self.threshold, "details": self.details, "examples": self.examples}


def _verdict(value: float, threshold: float, above_fails: bool = True) -> str:
    bad = value > threshold if above_fails else value < threshold
    return "FAIL" if bad else "ok"


def false_negatives(b: Any) -> Check:
    """Unjudged documents that contain a query's answer string (when its metadata has one and the query does not
    name it) together with its subject (its ``SUBJECT_TERMS`` rarest key terms), or all its key terms (its ``KEY_TERMS`` rarest content terms;
    queries with fewer than 2 are not checked by terms, and a multi-word name in the query counts as held only as
    the phrase, :func:`_name_phrases`).

    A document the folder judges for the query in a secondary view (``qrels-<view>/<split>.tsv``, e.g. Meridian's
    topical grades: "about a query entity, states no needed fact") has been looked at: holding every key term is what
    made it topical, so the key-term test does not count it; the answer-string test still does, since a judged
    non-answer that holds the answer beside the subject contradicts its judgment."""
    qids = [q for q in b.qrels.query_ids if q in b.query_text]
    df = {t: len(p) for t, p in b.doc_index.items()}
    norm_docs: list[str] | None = None
    checked = with_suspects = total = by_answer = explained = 0
    examples: list[str] = []
    for q in qids:
        judged = set(b.qrels[q])
        seen = b.other_judged.get(q, set())
        asked = normalise(b.query_text[q])
        # an answer the query itself names ("Which of A, B, C and D ...?") tells nothing about a document naming it
        answers = [a for a in map(normalise, b.answers.get(q, [])) if len(a) >= 4 and a not in asked]
        terms = sorted((t for t in b.query_stems[q] if t in df), key=lambda t: (df[t], t))[:KEY_TERMS]
        why: dict[int, str] = {}
        if len(terms) >= 2:
            names = _name_phrases(b.query_text[q])
            if names and norm_docs is None:
                norm_docs = [normalise(t) for t in b.doc_texts]
            for i in set.intersection(*(set(b.doc_index[t]) for t in terms)):
                if names and not all(n in norm_docs[i] for n in names):  # type: ignore[index]
                    continue  # "Wei Bauer ... manager Oskar Osei" holds 'wei' and 'osei', not "Wei Osei"
                if b.doc_ids[i] in seen:
                    explained += b.doc_ids[i] not in judged
                else:
                    why[i] = "all of " + ", ".join(terms)
        subject = _subject(terms)
        if answers and subject:
            if norm_docs is None:
                norm_docs = [normalise(t) for t in b.doc_texts]
            # the answer string about the query's subject: a short answer ("approved", a city) also stands in
            # documents about other subjects, so a document counts only when it also holds the subject's terms
            docs = set.intersection(*(set(b.doc_index[t]) for t in subject))
            hit = {i for i in docs if any(a in norm_docs[i] for a in answers)}
            by_answer += bool(hit - {i for i in hit if b.doc_ids[i] in judged})
            for i in hit:
                why[i] = f"the answer string beside {', '.join(map(repr, subject))}"
        if len(terms) < 2 and not (answers and subject):
            continue
        checked += 1
        suspects = sorted((b.doc_ids[i], r) for i, r in why.items() if b.doc_ids[i] not in judged)
        if suspects:
            with_suspects += 1
            total += len(suspects)
            if len(examples) < EXAMPLES:
                more = f" (+{len(suspects) - 2} more)" if len(suspects) > 2 else ""
                examples.append(f"{q}: unjudged " + "; ".join(f"{d} contains {r}" for d, r in suspects[:2]) + more)
    if not checked:
        return Check("false_negatives", "skip", "no query has an answer string or 2+ key terms found in the corpus")
    share = with_suspects / checked
    also = f"; {explained} more hold every key term but are judged in a secondary qrels view" if explained else ""
    return Check("false_negatives", _verdict(share, MAX_FALSE_NEGATIVE_QUERIES),
                 f"{with_suspects} of {checked} queries ({share:.0%}) have unjudged documents containing their answer "
                 f"or all their {KEY_TERMS} rarest key terms ({total} documents; {by_answer} queries by answer "
                 f"string{also})", share, MAX_FALSE_NEGATIVE_QUERIES,
                 {"queries_checked": checked, "queries_with_suspects": with_suspects, "suspect_documents": total,
                  "by_answer_string": by_answer, "judged_in_secondary_view": explained}, examples)


_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")


def _name_phrases(text: str) -> list[str]:
    """Multi-word names in a query, normalised: runs of two or more capitalised words or numbers after the first
    word ("Wei Osei", "People Operations", "August 2024"). A document holds a name when it holds the phrase, not
    its words apart."""
    toks = _TOKEN.findall(text)
    out: list[str] = []
    run: list[str] = []
    for t in [*toks[1:], ""]:
        if t and (t[0].isupper() or t.isdigit()) and t.lower() not in QUESTION_WORDS:
            run.append(t)
            continue
        if len(run) >= 2:
            out.append(normalise(" ".join(run)))
        run = []
    return list(dict.fromkeys(out))


def _subject(terms: list[str]) -> list[str]:
    """The key terms an answer string must stand beside: the ``SUBJECT_TERMS`` rarest that are not one- or
    two-digit numbers (a day, an hour or a count such as '22' stands in dates and timestamps of unrelated
    documents; ids such as '0408' and years are kept); those only when the query has nothing else."""
    words = [t for t in terms if not (t.isdigit() and len(t) <= 2)]
    return (words or terms)[:SUBJECT_TERMS]


def duplicate_queries(b: Any) -> Check:
    """Duplicates in wording or in evidence. Wording: queries of the split with identical text, or the same
    content stems, or word-shingle Jaccard >= 0.8 with another query of any split. Evidence: two queries of the
    same split with the identical set of relevant documents (grade > 0; any BEIR folder), or, where metadata
    lists them (Meridian), the identical set of needed facts: a second question answered by exactly the same
    documents is not a second independent observation, however it is worded."""
    ids = list(b.all_query_ids)
    split_q = set(q for q in b.qrels.query_ids if q in b.query_text)
    texts = [b.query_text[q] for q in ids]
    pairs = {(i, j) for i, j, _ in near_duplicate_pairs(texts, NEAR_DUP)}
    by_stems: dict[tuple, list[int]] = {}
    for i, q in enumerate(ids):
        s = b.query_stems[q]
        if s:
            by_stems.setdefault(tuple(sorted(s)), []).append(i)
    for members in by_stems.values():
        pairs.update((members[x], j) for x in range(len(members)) for j in members[x + 1:])
    pairs = {(i, j) for i, j in pairs if (ids[i] in split_q or ids[j] in split_q)
             and not _differ_in_a_name(texts[i], texts[j])}
    evidence = _evidence_pairs(b, sorted(split_q))
    involved = {ids[i] for p in pairs for i in p if ids[i] in split_q} | {q for p in evidence for q in p}
    share = len(involved) / max(len(split_q), 1)
    examples = [f"{ids[i]} ~ {ids[j]}: {texts[i]!r} / {texts[j]!r}" for i, j in sorted(pairs)[:EXAMPLES]]
    examples += [f"{a} ~ {c}: {why}: {b.query_text[a]!r} / {b.query_text[c]!r}"
                 for (a, c), why in sorted(evidence.items())[:EXAMPLES]]
    cross = sum(1 for i, j in pairs if b.split_of.get(ids[i]) != b.split_of.get(ids[j]))
    return Check("duplicate_queries", _verdict(share, MAX_DUPLICATE_QUERIES),
                 f"{len(involved)} of {len(split_q)} queries ({share:.1%}) in {len(pairs)} duplicate or "
                 f"near-duplicate pairs ({cross} across splits) and {len(evidence)} pairs with the same relevant "
                 "set or needed facts", share, MAX_DUPLICATE_QUERIES,
                 {"pairs": len(pairs), "cross_split_pairs": cross, "queries": len(involved),
                  "evidence_pairs": len(evidence),
                  "same_relevant_set": sum("relevant" in w for w in evidence.values()),
                  "same_needed_facts": sum("facts" in w for w in evidence.values())}, examples)


def _evidence_pairs(b: Any, queries: list[str]) -> dict[tuple[str, str], str]:
    """Pairs of the split's queries with the identical non-empty relevant set or needed-fact set."""
    groups: dict[tuple[str, frozenset], list[str]] = {}
    for q in queries:
        rel = frozenset(d for d, g in b.qrels[q].items() if g > 0)
        if rel:
            groups.setdefault(("same relevant set", rel), []).append(q)
        facts = frozenset(b.facts.get(q) or ())
        if facts:
            groups.setdefault(("same needed facts", facts), []).append(q)
    out: dict[tuple[str, str], str] = {}
    for (why, _), qs in groups.items():
        for i, a in enumerate(qs):
            for c in qs[i + 1:]:
                out[(a, c)] = f"{out[(a, c)]}, {why}" if (a, c) in out else why
    return out


_differ_in_a_name = differ_in_a_name


def split_leakage(b: Any) -> Check:
    """Relevant sets, relevant documents, expected entities and needed facts (metadata ``facts``) shared between the
    split and the other splits."""
    others = {s: qr for s, qr in b.all_qrels.items() if s != b.split}
    if not others:
        return Check("split_leakage", "skip", f"only one split ({b.split}): nothing to leak into")
    mine = {q: frozenset(d for d, g in b.qrels[q].items() if g > 0) for q in b.qrels.query_ids}
    other_sets: set[frozenset] = set()
    other_docs: set[str] = set()
    other_entities: set[str] = set()
    other_facts: set[str] = set()
    for qr in others.values():
        for q in qr.query_ids:
            if q in mine:
                continue  # the same query judged in two splits is the duplicate check's business
            rel = frozenset(d for d, g in qr[q].items() if g > 0)
            if rel:
                other_sets.add(rel)
            other_docs |= rel
            other_entities |= set(b.entities.get(q, ()))
            other_facts |= set(b.facts.get(q, ()))
    same_set = [q for q, s in mine.items() if s and s in other_sets]
    shared_doc = [q for q, s in mine.items() if s & other_docs]
    has_entities = any(b.entities.get(q) for q in mine)
    shared_ent = [q for q in mine if set(b.entities.get(q, ())) & other_entities] if has_entities else []
    has_facts = any(b.facts.get(q) for q in mine)
    shared_fact = [q for q in mine if set(b.facts.get(q, ())) & other_facts] if has_facts else []
    n = max(len(mine), 1)
    share = len(shared_doc) / n
    # A document states many facts, so two splits may each judge it relevant for different questions: that is
    # reported, and fails only where the splits share a topic (the same relevant set, an expected entity or a
    # needed fact: the audit's rule) or, without entity metadata to tell, when the share of queries sharing a
    # relevant document is high.
    fail = (bool(same_set) or bool(shared_ent) or bool(shared_fact)
            or (not has_entities and share > MAX_SHARED_RELEVANT))
    ent_text = f"; {len(shared_ent)} share an expected entity" if has_entities else "; no entity metadata"
    if has_facts:
        ent_text += f", {len(shared_fact)} a needed fact"
    examples = [f"{q}: same relevant set as a query of {', '.join(others)}" for q in same_set[:2]]
    examples += [f"{q}: shares entities {sorted(set(b.entities[q]) & other_entities)[:3]}" for q in shared_ent[:1]]
    examples += [f"{q}: shares needed facts {sorted(set(b.facts[q]) & other_facts)[:3]}" for q in shared_fact[:1]]
    examples += [f"{q}: relevant {sorted(mine[q] & other_docs)[:3]} also relevant in {', '.join(others)}"
                 for q in shared_doc[:EXAMPLES - len(examples)] if q not in same_set]
    return Check("split_leakage", "FAIL" if fail else "ok",
                 f"against {', '.join(others)}: {len(same_set)} of {len(mine)} {b.split} queries have an identical "
                 f"relevant set, {len(shared_doc)} ({share:.0%}) share a relevant document{ent_text}",
                 share, MAX_SHARED_RELEVANT,
                 {"identical_relevant_sets": len(same_set), "shared_relevant_document": len(shared_doc),
                  "shared_entity": len(shared_ent) if has_entities else None,
                  "shared_fact": len(shared_fact) if has_facts else None}, examples[:EXAMPLES])


def graded_near_duplicates(b: Any) -> Check:
    """Near-duplicate documents (3-shingle Jaccard >= 0.8) that one query grades differently (judged or not),
    where the twins say the same thing about the query.

    Twins can differ exactly where the query looks: a templated access review of another system, release notes
    naming another manager. So a pair counts only when nothing the query needs sets the twins apart: each twin
    contains every evidence span the other is judged on (when the query's metadata names spans: the same
    needed-fact statements), the twins' metadata ``entities`` differ in none of the query's expected entities (when
    both are given), and the words the twins do not share include no content term of the query."""
    pairs = b.doc_pairs()
    twin: dict[int, list[int]] = {}
    for i, j, _ in pairs:
        twin.setdefault(i, []).append(j)
        twin.setdefault(j, []).append(i)
    pos = {d: i for i, d in enumerate(b.doc_ids)}
    norm: dict[int, str] = {}
    terms: dict[int, set[str]] = {}

    def _norm(i: int) -> str:
        if i not in norm:
            norm[i] = normalise(b.doc_texts[i])
        return norm[i]

    def _same_for(q: str, i: int, j: int) -> bool:
        spans = b.evidence_text.get(q)
        if spans is not None and not (all(normalise(t) in _norm(j) for t in spans.get(b.doc_ids[i], ()))
                                      and all(normalise(t) in _norm(i) for t in spans.get(b.doc_ids[j], ()))):
            return False  # one twin lacks a needed-fact statement the other is judged on
        ents = b.doc_entities
        if ents and (ents[i] ^ ents[j]) & set(b.entities.get(q, ())):
            return False  # the twins are about different entities the query expects
        for x in (i, j):
            if x not in terms:
                terms[x] = stems([b.doc_texts[x]])[0]
        return not (terms[i] ^ terms[j]) & b.query_stems.get(q, set())

    conflicts = explained = 0
    examples: list[str] = []
    for q in b.qrels.query_ids:
        grades = b.qrels[q]
        for d, g in grades.items():
            i = pos.get(d)
            for j in twin.get(i, ()) if i is not None else ():
                other = b.doc_ids[j]
                og = grades.get(other)
                if not ((og is None and g > 0) or (og is not None and og != g and d < other)):
                    continue
                if not _same_for(q, i, j):
                    explained += 1
                    continue
                conflicts += 1
                if len(examples) < EXAMPLES:
                    examples.append(f"{q}: {d} graded {g}, near-duplicate {other} "
                                    f"{'unjudged' if og is None else f'graded {og}'}")
    also = (f"; {explained} more differ where the query looks (evidence, expected entities or query terms)"
            if explained else "")
    summary = (f"{len(pairs)} near-duplicate document pairs in the corpus; {conflicts} (query, pair) cases where "
               f"twins that say the same get different grades (or a relevant one's twin is unjudged){also}")
    return Check("graded_near_duplicates", "FAIL" if conflicts else "ok", summary, float(conflicts), 0.0,
                 {"near_duplicate_pairs": len(pairs), "conflicts": conflicts, "differ_where_the_query_looks": explained},
                 examples)


def oracle_ceilings(b: Any) -> Check:
    """Per category: nDCG@10 and R@100 of the ideal run (judged documents by grade; evidence documents when the
    queries name them), scored on the split's qrels."""
    from hcrbench.data.types import Run
    from hcrbench.metrics import evaluate

    qids = list(b.qrels.query_ids)
    ideal: dict[str, dict[str, float]] = {}
    kind = "qrels"
    for q in qids:
        grades = b.qrels[q]
        ev = b.evidence.get(q)
        if ev:
            kind = "evidence"
            ideal[q] = {d: float(grades.get(d, 0)) + 1.0 for d in ev}
        else:
            ideal[q] = {d: float(g) for d, g in grades.items() if g > 0}
    run = Run.from_dict({q: docs for q, docs in ideal.items() if docs}, name="oracle")
    res = evaluate(b.qrels, run, ["nDCG@10", "R@100"], missing="zero")
    ev = res.runs["oracle"]
    pos = {q: i for i, q in enumerate(ev.query_ids)}
    cats: dict[str, list[int]] = {}
    for q in qids:
        cats.setdefault(b.category.get(q, "all"), []).append(pos[q])
    table = {}
    worst = 1.0
    for c, idx in sorted(cats.items()):
        nd = float(np.mean(ev.values["nDCG@10"][idx]))
        rc = float(np.mean(ev.values["R@100"][idx]))
        table[c] = {"queries": len(idx), "nDCG@10": round(nd, 4), "R@100": round(rc, 4)}
        worst = min(worst, nd, rc)
    low = [f"{c}: nDCG@10 {v['nDCG@10']:.3f}, R@100 {v['R@100']:.3f} ({v['queries']} queries)"
           for c, v in table.items() if min(v["nDCG@10"], v["R@100"]) < MIN_CEILING]
    return Check("oracle_ceilings", _verdict(worst, MIN_CEILING, above_fails=False),
                 f"{kind} oracle over {len(cats)} categor{'y' if len(cats) == 1 else 'ies'}: lowest ceiling "
                 f"{worst:.3f} (nDCG@10 or R@100)", worst, MIN_CEILING, {"oracle": kind, "categories": table},
                 low[:EXAMPLES])


def unjudged_in_run(b: Any, run: Any, k: int = 10) -> Check:
    """Share of the run's top-k documents (split queries) that have no judgment for that query."""
    total = unjudged = 0
    worst: list[tuple[int, str]] = []
    for q in b.qrels.query_ids:
        if q not in run:
            continue
        judged = b.qrels[q]
        top = [d for d, _ in run.ranked(q)[:k]]
        u = sum(1 for d in top if d not in judged)
        total += len(top)
        unjudged += u
        worst.append((-u, q))
    if not total:
        return Check("unjudged_in_run", "skip", f"the run retrieves nothing for the {b.split} queries")
    share = unjudged / total
    examples = [f"{q}: {-u} of top {k} unjudged" for u, q in sorted(worst)[:EXAMPLES] if u]
    return Check("unjudged_in_run", _verdict(share, MAX_UNJUDGED),
                 f"{unjudged} of {total} top-{k} documents ({share:.0%}) are unjudged: scores of this run are a lower "
                 "bound" if share else f"every top-{k} document is judged", share, MAX_UNJUDGED,
                 {"k": k, "unjudged": unjudged, "retrieved": total}, examples)


__all__ = ["Check", "duplicate_queries", "false_negatives", "graded_near_duplicates", "inverted", "oracle_ceilings",
           "split_leakage", "unjudged_in_run"]
