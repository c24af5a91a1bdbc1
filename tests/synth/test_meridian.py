"""Meridian generator: determinism, superset growth, splits, evidence spans, OOD, targets, CLI errors."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hcrbench.cli import main
from hcrbench.data import iter_jsonl, load_beir, read_corpus
from hcrbench.errors import InputError
from hcrbench.synth import describe, generate_meridian, resolve_size
from hcrbench.synth.checks.safety import unsafe
from hcrbench.synth.corpus.filler import ALL_POOLS, EXTRAS
from hcrbench.synth.corpus.mentions import MENTION_PREFIXES
from hcrbench.synth.corpus.phrases import DOMAIN_HEADINGS
from hcrbench.synth.corpus.text import TextBuilder
from hcrbench.synth.questions.generators import CATEGORIES
from hcrbench.synth.world_model.lexicon import SYNONYMS

FILES = ["corpus.jsonl", "provenance.jsonl", "queries.jsonl", "queries.meta.jsonl", "evidence.jsonl", "qrels/tune.tsv",
         "qrels/dev.tsv", "qrels/test.tsv", "qrels-topical/tune.tsv", "qrels-topical/dev.tsv",
         "qrels-topical/test.tsv", "world.json", "manifest.json"]


@pytest.fixture(scope="module")
def small(tmp_path_factory, meridian_copy) -> Path:
    out = tmp_path_factory.mktemp("meridian") / "small"
    meridian_copy(out, "small", seed=3, grow=True)
    return out


def _meta(folder: Path) -> list[dict]:
    return [o for _, o in iter_jsonl(folder / "queries.meta.jsonl")]


@pytest.mark.slow  # ~55 s; tests/synth/test_golden_bytes.py pins a small world's bytes in the fast suite
def test_same_seed_gives_identical_bytes(small, tmp_path):
    again = tmp_path / "again"
    m = generate_meridian(again, "small", seed=3, grow=True)
    for f in FILES:
        assert (again / f).read_bytes() == (small / f).read_bytes(), f
    assert set(m["files"]) == set(FILES) - {"manifest.json"}
    other = generate_meridian(tmp_path / "other", "small", seed=4, grow=True)
    assert other["files"]["corpus.jsonl"] != m["files"]["corpus.jsonl"]


def test_manifest_hashes_match_files(small):
    import hashlib

    man = json.loads((small / "manifest.json").read_text())
    assert man["seed"] == 3 and man["size_docs"] == 500 and man["generator_version"]
    assert man["grow"] is True and man["n_docs"] == len((small / "corpus.jsonl").read_text().splitlines())
    for f, h in man["files"].items():
        assert hashlib.sha256((small / f).read_bytes()).hexdigest() == h


def test_growth_is_a_superset(tmp_path):
    small, big = tmp_path / "small", tmp_path / "big"
    generate_meridian(small, "small", seed=3, n_queries=60, grow=False)  # the worlds, not their suites
    generate_meridian(big, 900, seed=3, n_queries=60, grow=False)
    a = (small / "corpus.jsonl").read_text().splitlines()
    b = (big / "corpus.jsonl").read_text().splitlines()
    assert len(a) == 500 and len(b) == 900
    assert b[:500] == a  # small's documents, byte for byte
    wa, wb = (json.loads((f / "world.json").read_text()) for f in (small, big))
    assert wb["people"][: len(wa["people"])] == wa["people"]
    assert len(wb["people"]) > len(wa["people"]) and len(wb["projects"]) > len(wa["projects"])
    # the added documents link new entities to old ones (new cross-domain connections)
    old_ids = {p["id"] for p in wa["people"]} | {p["id"] for p in wa["projects"]} | {s["id"] for s in wa["systems"]}
    added = [json.loads(line)["metadata"] for line in b[500:]]
    mixed = [m for m in added if set(m["entities"]) & old_ids and set(m["entities"]) - old_ids]
    assert len(mixed) >= 50


def test_every_evidence_span_is_verbatim(small):
    corpus = read_corpus(small / "corpus.jsonl")
    n = 0
    for _, row in iter_jsonl(small / "evidence.jsonl"):
        for e in row["evidence"]:
            text = corpus[e["doc_id"]].text
            assert 0 <= e["start"] < e["end"] <= len(text)
            assert text[e["start"]:e["end"]] == e["text"]
            n += 1
    assert n > 1000


def test_evidence_docs_are_judged_relevant(small):
    for m in _meta(small):
        for e in m["evidence"]:
            assert m["qrels"][e["doc_id"]] >= 2, (m["query_id"], e)
        assert set(m["qrels"].values()) <= {0, 1, 2, 3}
        if m["category"] != "out_of_distribution":
            assert max(m["qrels"].values()) >= 2 and m["evidence"]
            assert 0 in m["qrels"].values()  # judged hard negatives


def test_ood_queries_have_no_relevant_documents(small):
    ood = [m for m in _meta(small) if m["category"] == "out_of_distribution"]
    assert len(ood) == 15
    judged = set()
    for split in ("tune", "dev", "test"):
        judged |= {line.split("\t")[0] for line in (small / "qrels" / f"{split}.tsv").read_text().splitlines()[1:]}
    for m in ood:
        assert m["qrels"] == {} and m["evidence"] == [] and m["query_id"] not in judged


def test_category_counts_and_difficulty_shares(small):
    metas = _meta(small)
    assert len(metas) == 300
    for cat, (n, _) in CATEGORIES.items():
        rows = [m for m in metas if m["category"] == cat]
        assert len(rows) == n, cat
        if cat == "out_of_distribution":  # no evidence: the designed 40/35/25
            for diff, share in (("easy", 0.40), ("medium", 0.35), ("hard", 0.25)):
                assert abs(sum(m["difficulty"] == diff for m in rows) / n - share) <= 0.06, (cat, diff)
            continue
        # Meridian 4: tiers are the design's meaning of the chunked evidence (tests/synth/test_tiers.py checks
        # them against the files); each label says it
        for m in rows:
            want = "easy" if m["n_chunks"] == 1 and m["hops"] == 1 else \
                "medium" if m["n_chunks"] <= 3 and len(m["chunk_domains"]) == 1 and m["hops"] <= 2 else "hard"
            assert m["difficulty"] == want, m["query_id"]


def test_splits_are_stratified_and_disjoint(small):
    metas = _meta(small)
    world = json.loads((small / "world.json").read_text())
    tracked = set(world["key_entities"]) | {p["id"] for p in world["projects"]}
    side = {s: {e for m in metas if m["split"] == s for e in m["expected_entities"] if e in tracked}
            for s in ("tune", "test")}
    assert side["tune"] and side["test"]
    assert not side["tune"] & side["test"]
    counts = {s: sum(m["split"] == s for m in metas) for s in ("tune", "dev", "test")}
    assert abs(counts["tune"] / 300 - 0.6) < 0.03 and abs(counts["test"] / 300 - 0.2) < 0.03
    for s in ("tune", "dev", "test"):  # readable by a BEIR loader, split by split
        ds = load_beir(small, s)
        assert set(ds.queries.query_ids) == {m["query_id"] for m in metas if m["split"] == s and m["qrels"]}


def test_vocabulary_mismatch_term_absent_from_answer(small):
    corpus = read_corpus(small / "corpus.jsonl")
    checked = 0
    for m in _meta(small):
        if m["origin"] != "adversarial:vocabulary":
            continue
        q = m["text"].lower()
        answers = [corpus[d].text.lower() for d, g in m["qrels"].items() if g == 3]
        forms = [f for forms in SYNONYMS.values() for f in forms if f.lower() in q]
        assert forms, m["text"]
        assert any(all(f.lower() not in t for t in answers) for f in forms), m["text"]
        checked += 1
    assert checked >= 15


def test_documents_carry_routing_metadata(small):
    corpus = read_corpus(small / "corpus.jsonl")
    for meta in corpus.metadata:
        assert meta["domain"] == meta["domains"][0] and meta["doc_type"] and meta["entities"]
    assert sum("cluster" in m for m in corpus.metadata) >= 9
    assert {m["quarter"] for m in corpus.metadata if m.get("snapshot")} == {"2024-Q1", "2024-Q2", "2024-Q3"}


# Meridian 2 targets not reached yet: measured and reported as missed, never hidden. Every other property must hold;
# a gap that closes must be removed from this list. The text targets (distinct-sentence ratio, 10+-document share,
# vocabulary) are met on medium since the body text became [a|b] templates (phrases*.py, render_phrases*.py).
#: Meridian 4, issue 35 item 1: the small world's core block (14 systems, 20 policies, 24 projects, 120 people) holds
#: too few independent subjects for 300 queries, so by default the world grows until every split has 2/3 of its
#: queries in distinct clusters (generate_meridian; tests/synth/test_suite_growth.py) and describe finds no topic gap.
TOPIC_GAPS = {"independent topics per split (clusters / queries, effective topics)",
              "relevant-document sets repeated within a split"}
#: issue 35 items 3-4: the design's feasible shares in 128-token chunks bound the share of queries that need more
#: than ten documents (60% of entity summaries fit 400 tokens, so few need 11+ documents): 12-14% measured
KNOWN_GAPS = {"queries needing >10 documents"}
#: Missed on some seeds: the tier mix within 10 points (on small: thematic; tests/synth/test_tiers.py's
#: SMALL_TIER_GAPS), and a feasible share where a split runs out of fitting draws (none
#: on the seeds docs/meridian.md's meridian-tiers block measures: tests/synth/test_tiers.py)
MIX_GAP = "difficulty easy/medium/hard per category (target)"
FEASIBLE_GAP = "budget-feasible share per category (128-token chunks, 400 tokens)"
# Small (500 docs) draws each template a quarter as often as medium, so fewer of the options' words are ever drawn:
# its vocabulary (~5,500 words) is reported against no target there; the ">= 6,000" target is the design's for
# medium and up, where describe applies it.
SMALL_GAPS: set[str] = set()


def test_describe_small_meets_every_target_but_the_known_gaps(small):
    res = describe(small)
    assert KNOWN_GAPS | SMALL_GAPS <= set(res["missed"]) <= KNOWN_GAPS | SMALL_GAPS | {MIX_GAP, FEASIBLE_GAP}, \
        res["missed"]
    props = {p["property"]: p["measured"] for p in res["properties"]}
    assert props["distinct-sentence ratio"] >= 0.70 and props["share of sentences found in 10+ documents"] <= 0.10
    assert not res["all_met"] and not TOPIC_GAPS & set(res["missed"])
    assert json.loads((small / "describe.json").read_text()) == res


@pytest.mark.slow
def test_describe_medium_meets_every_target_but_the_known_gaps(tmp_path):
    out = tmp_path / "medium"
    rc = main(["generate", "meridian", "--size", "medium", "--seed", "11", "--out", str(out)])
    assert rc == 0
    assert main(["describe", str(out)]) == 0
    res = json.loads((out / "describe.json").read_text())
    # (on some medium seeds a feasible share or the tier mix is still missed: tests/synth/test_tiers.py and
    # docs/meridian.md list them)
    gaps = KNOWN_GAPS
    assert res["n_docs"] == 2000 and gaps <= set(res["missed"]) <= gaps | {MIX_GAP, FEASIBLE_GAP}, res["missed"]
    props = {p["property"]: p["measured"] for p in res["properties"]}
    assert props["vocabulary (distinct words)"] >= 6400  # the >= 6,000 target with a margin for other seeds


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--size", "huge"], "size"),
        (["--size", "10"], "size"),
        (["--size", "\u00b2"], "size"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "abc"], "--seed"),
    ],
)
def test_cli_bad_flags_exit_2_with_one_line(args, needle, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["generate", "meridian", *args, "--out", str(tmp_path / "x")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err


def test_cli_unwritable_out_exits_2(tmp_path, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    with pytest.raises(SystemExit) as e:
        main(["generate", "meridian", "--out", str(blocker / "sub")])
    assert e.value.code == 2
    assert "out" in capsys.readouterr().err
    with pytest.raises(InputError):
        describe(tmp_path)


def test_refuses_a_non_empty_folder_that_is_not_meridian(tmp_path, capsys):
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(SystemExit) as e:
        main(["generate", "meridian", "--out", str(other)])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(other) in err and "not empty" in err
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]
    (other / "manifest.json").write_text('{"name": "something-else"}')
    with pytest.raises(InputError):
        generate_meridian(other, "small", seed=3, grow=True)
    again = tmp_path / "again"  # (a world at its size: growth plays no part in what a folder may hold)
    first = generate_meridian(again, " Small ", seed=3, n_queries=60, grow=False)
    assert first["size"] == "small"
    assert generate_meridian(again, "small", seed=3, n_queries=60, grow=False) == first  # regenerating is allowed
    assert json.loads((again / "manifest.json").read_text())["size"] == "small"


def test_resolve_size():
    assert resolve_size("small") == 500 and resolve_size("medium") == 2000 and resolve_size("full") == 3500
    assert resolve_size("1234") == 1234 and resolve_size(100_000) == 100_000
    for bad in ("tiny", "499", -5, True, "1e5", "\u00b2", "5\u00b2"):
        with pytest.raises(InputError):
            resolve_size(bad)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=30), st.booleans()), min_size=1, max_size=12))
def test_textbuilder_spans_are_exact(pieces):
    tb = TextBuilder()
    want = {}
    for k, (s, keyed) in enumerate(pieces):
        key = f"k{k}" if keyed else None
        tb.para([(s, key)])
        if key:
            want[key] = s
    text = "".join(tb.parts)
    for key, s in want.items():
        a, b = tb.spans[key]
        assert text[a:b] == s


@pytest.mark.slow
def test_100k_documents_stream_in_minutes(tmp_path):
    import time

    t0 = time.perf_counter()
    # the corpus streamed at the size asked for (grow=False: its 300 queries do not grow the world past it)
    m = generate_meridian(tmp_path / "big", 100_000, seed=1, grow=False)
    assert time.perf_counter() - t0 < 300
    assert m["n_docs"] == 100_000
    with open(tmp_path / "big" / "corpus.jsonl", encoding="utf-8") as fh:
        assert sum(1 for _ in fh) == 100_000


# ------------------------------------------------------------------------------------------- text quality
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _sentences(text: str) -> list[str]:
    """Every line of a document split at sentence ends, without list / heading markers."""
    out = []
    for line in text.splitlines():
        line = line.strip().removeprefix("- ").removeprefix("## ")
        out += [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]
    return out


def test_no_sentence_repeats_within_a_document(small):
    # Nothing is excluded: near-duplicate clusters share wording across their documents, never within one.
    for _, row in iter_jsonl(small / "corpus.jsonl"):
        counts = Counter(s for s in _sentences(row["text"]) if len(s) > 30)
        repeated = [s for s, k in counts.items() if k > 1]
        assert not repeated, (row["_id"], repeated)


def test_documents_name_only_their_own_entities(small):
    # Since 5.2 a page may also name people of its own team in passing ("Last edited by ..."), listed in
    # metadata.mentions and never in its routing entities; outside those lines it names only its own entities.
    world = json.loads((small / "world.json").read_text())
    people = {p["name"]: p["id"] for p in world["people"]}
    passing = 0
    for _, row in iter_jsonl(small / "corpus.jsonl"):
        ents, mentioned = set(row["metadata"]["entities"]), set(row["metadata"].get("mentions", []))
        assert not ents & mentioned, row["_id"]
        named = {pid for name, pid in people.items() if name in row["text"]}
        assert named <= ents | mentioned, (row["_id"], named - ents - mentioned)
        body = "\n".join(x for x in row["text"].splitlines() if not x.startswith(MENTION_PREFIXES))
        assert {pid for name, pid in people.items() if name in body} <= ents, row["_id"]
        passing += bool(named & mentioned)
    assert passing > 0


def test_filler_pools_keep_the_ground_truth_safe():
    every = [s for pool in ALL_POOLS.values() for s in pool]
    every += [h for hs in DOMAIN_HEADINGS.values() for h in hs]
    every += [h for sections in EXTRAS.values() for hs, *_ in sections for h in hs]
    assert len({s for pool in ALL_POOLS.values() for s in pool}) == sum(map(len, ALL_POOLS.values()))
    for s in every:  # every option of every template: tests/synth/test_phrases_domain.py
        assert not unsafe(s), (s, unsafe(s))  # synonym form, identifier or unlisted entity
    for pool in (p for sections in EXTRAS.values() for _, p, *_ in sections):
        assert pool in ALL_POOLS, pool


def test_describe_console_script_names_the_missed_targets(small):
    import subprocess

    res = subprocess.run(["hcrbench", "describe", str(small)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    last = res.stdout.strip().splitlines()[-1]
    assert "target(s) missed" in last and "queries needing >10 documents" in last and "describe.json" in last


def test_describe_reports_the_vocabulary_target_on_a_world_under_2000_documents(tmp_path):
    import subprocess

    out = tmp_path / "m"
    generate_meridian(out, "small", seed=3, n_queries=60, grow=False)  # 500 documents
    res = subprocess.run(["hcrbench", "describe", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "vocabulary (distinct words)" not in res.stdout.strip().splitlines()[-1]  # a medium target: not missed
    row = next(line for line in res.stdout.splitlines() if "vocabulary (distinct words)" in line)
    assert "target is for 2,000+" in row
