"""The verdict block a console run ends with (hcrbench.report.verdict_block): at most 15 lines, the subject named,
every rule in one vocabulary, no internal keys, the comparison with the best simple system."""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from hcrbench.report.verdict_block import MAX_LINES, REASON, WORDS, block_lines, print_block, shorten, word

#: verdicts.json of a real quickstart (hash encoder, Meridian small, the verdict seed), its rule texts whole.
REAL = Path(__file__).parent / "data" / "quickstart_verdicts.json"

STATUSES = ["pass", "go", "soft no-go", "no-go", "kill", "stop and diagnose: routing", "not decidable",
            "inconclusive", "not run", "invalidated"]


def _verdicts(system: str, statuses: list[str]) -> dict:
    cps = [{"id": f"cp{i}", "name": f"Rule {i}", "status": s,
            "text": f"{s}: failure_rate need(s) `hcrbench quickstart --sizes small,medium,full` here"}
           for i, s in enumerate(statuses[: len(statuses) // 2])]
    hy = [{"id": f"H{i}", "name": f"Hypothesis {i}", "verdict": s, "text": f"{s} at n = 5; more"}
          for i, s in enumerate(statuses[len(statuses) // 2:])]
    return {"system": system, "kill_baseline": "rerank", "metric": "nDCG@10", "size": "small", "overall": "no-go",
            "checkpoints": cps, "hypotheses": hy,
            "vs_best_simple": {"system": system, "seeds": [system], "best": "bm25", "metric": "nDCG@10",
                               "subject_mean": 0.61, "best_mean": 0.59, "delta": 0.02, "ci": [-0.01, 0.05], "n": 59,
                               "cost_item": "chunks scored", "cost_subject": 500.0, "cost_best": 3750.0,
                               "cost_ratio": 500 / 3750}}


def test_every_status_maps_into_the_one_vocabulary():
    assert {word(s) for s in STATUSES} <= set(WORDS)
    assert word("pass") == word("go") == "go" and word("stop and diagnose: context selection") == "stop"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(STATUSES), min_size=1, max_size=16),
       st.sampled_from(["tfidf", "my-retriever", "hcr"]))
def test_the_block_is_short_names_the_subject_and_speaks_one_vocabulary(statuses, system):
    v = _verdicts(system, statuses)
    lines = [t for _, t in block_lines(v, report="OUT/report.html", tables="OUT/console.txt")]
    assert len(lines) <= MAX_LINES
    assert lines[0].startswith(f"verdict for {system} ") and f"for {system}" in lines[1]
    assert lines[-1] == "report: OUT/report.html"
    text = "\n".join(lines)
    assert "need(s)" not in text and "`" not in text and "None" not in text
    for ln in lines:
        if ln.startswith("  "):  # the rule lines: a word of the vocabulary, then the rules
            assert any(ln[2:].startswith(w + " ") for w in WORDS), ln
    assert "vs the best simple system, bm25: " + system + " 0.610 vs 0.590 nDCG@10, +0.020 (fixed-n 95% CI " in text
    assert "(0.13x)" in text and "not distinguishable" in text
    assert "…" not in text  # a reason is shortened by whole sentences, never cut


def test_the_command_that_decides_names_the_subject():
    v = _verdicts("tfidf", ["not run", "not decidable"])
    text = "\n".join(t for _, t in block_lines(v))
    assert "run hcrbench quickstart --sizes small,medium,full --system tfidf" in text


def test_print_block_writes_each_line_whole():
    buf = io.StringIO()
    print_block(Console(file=buf, width=40, color_system=None), _verdicts("tfidf", ["pass", "no-go"]),
                report="/a/very/long/path/that/is/longer/than/forty/columns/report.html")
    assert buf.getvalue().splitlines()[-1] == "report: /a/very/long/path/that/is/longer/than/forty/columns/report.html"


def test_no_registry_key_appears_in_the_block():
    """One human vocabulary: the rules by name, never the registry's ids (easy_routing, vs_kill_baseline, ...)."""
    from hcrbench.protocol.registry import REGISTRY
    from hcrbench.protocol.verdicts import bottom_line

    keys = [k for k in REGISTRY if "_" in k] + ["kill_baseline", "beam_only", "need(s)"]
    cps = [{"id": k, "name": r.name, "status": "not decidable", "text": f"not decidable: {k} needs n ~ 300; "
            "failure_rate and vs_kill_baseline see `hcrbench quickstart --sizes small,medium,full`"}
           for k, r in REGISTRY.items() if r.stage == "checkpoint"]
    hy = [{"id": k, "name": r.name, "verdict": "no-go", "component": "x", "text": f"no-go: {k} is short",
           "evidence": {"operating": {"needs_n": 400}}, "before_operating": True}
          for k, r in REGISTRY.items() if r.stage == "hypothesis" and k != "kill"]
    v = {**_verdicts("tfidf", []), "checkpoints": cps, "hypotheses": hy, "overall": "no-go"}
    v["bottom_line"] = bottom_line(v)
    text = "\n".join(t for _, t in block_lines(v, report="r.html", tables="c.txt")) + "\n" + v["bottom_line"]
    for k in keys:
        assert k not in text, (k, text)
    assert "failure rate" in text and "`" not in text


def test_a_run_file_subject_has_no_cost_ratio():
    v = _verdicts("my-run", ["go"])
    v["vs_best_simple"].update(cost_note="unknown (a run file made outside hcrbench)", cost_ratio=None)
    lines = [t for _, t in block_lines(v)]
    line = next(t for t in lines if t.startswith("cost, "))
    assert line == "cost, my-run vs bm25: unknown (a run file made outside hcrbench)"
    from hcrbench.report.verdict_block import best_line

    assert best_line(v, None).endswith("; cost unknown (a run file made outside hcrbench)")  # the README's one line
    assert " vs 3,750" not in "\n".join(lines)


def test_a_real_quickstarts_block_cuts_no_sentence_and_keeps_what_would_decide():
    v = json.loads(REAL.read_text(encoding="utf-8"))
    lines = [t for _, t in block_lines(v, report="OUT/report.html", tables="OUT/console.txt")]
    text = "\n".join(lines)
    assert len(lines) <= MAX_LINES and "…" not in text and "..." not in text
    assert lines[0].startswith(f"verdict for {v['system']} ") and f"for {v['system']}" in lines[1]
    assert "token efficiency undecided: at n = 91; needs n ~ 560" in lines  # the aside goes, the need stays
    assert "(needs ~ 190 conditions, by replay)" in text  # H1c: what it needs survives its other asides
    for ln in lines:
        if ln.startswith("  "):
            assert any(ln[2:].startswith(w + " ") for w in WORDS), ln
        if " undecided: " in ln:  # a reason in whole sentences: no dangling "(" and no clause ending in ":"
            reason = ln.split(" undecided: ", 1)[1]
            assert reason.count("(") == reason.count(")") and reason.count("[") == reason.count("]")
            assert not reason.rstrip().endswith((":", ",", ";", "—")), ln


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["at n = 59", "needs n ~ 241 (false decisions 23.9% > nominal 2.5%)",
                                 "on this harness", "a perfect retriever fails 33% of the queries (> 5%; control)",
                                 "r = 0.90 (Fisher 95% [-0.47, +1.00])", "vs hcr-beam (chosen on dev)",
                                 "delivery and selection, not retrieval, would be judged (x@400 0.3 vs y 0.1)"]),
                min_size=1, max_size=6, unique=True), st.integers(40, 160))
def test_shorten_keeps_whole_parts_and_never_cuts(parts, limit):
    import re

    text = ": ".join(parts)
    out = shorten(text, limit)
    assert out and "…" not in out and out.count("(") == out.count(")") and out.count("[") == out.count("]")
    tokens = re.compile(r"[^\s():;\[\],]+")
    it = iter(tokens.findall(text))
    assert all(w in it for w in tokens.findall(out)), (text, out)  # only whole words, in order, left out
    if len(text) <= limit:
        assert out == text
    assert len(out) <= limit or "(" not in out  # over the limit only once every aside has gone
    assert REASON >= 100


def test_the_overall_words_of_verdicts_json_map_to_the_blocks_words():
    """verdicts.json's overall (go, inconclusive, soft no-go, no-go, stop and diagnose, invalidated) in the block's
    vocabulary: a killed system is never shown as undecided."""
    assert word("invalidated") == "kill" and word("inconclusive") == "undecided"
    assert word("stop and diagnose") == "stop" and word("no-go") == "no-go"


def test_the_console_report_and_block_say_the_same_word_for_the_overall_verdict():
    from hcrbench.report.sections import headline
    from hcrbench.report.verdicts import print_protocol

    for overall, said in (("inconclusive", "UNDECIDED"), ("invalidated", "KILL")):
        v = {**json.loads((REAL.parent / "verdicts.json").read_text(encoding="utf-8")), "overall": overall,
             "discipline": {"split": "test", "locked": True, "times_scored": 2}}
        block = [t for _, t in block_lines(v)]
        assert block[1].startswith(f"bottom line: {said} for ")
        buf = io.StringIO()
        print_protocol(Console(file=buf, width=200, no_color=True), v)
        out = buf.getvalue()
        assert f"bottom line: {said} — " in out and overall.upper() not in out
        assert "time(s)" not in out and "scored 2 times" in out  # no plural hedges
        headline(v)  # the report's verdict section builds from the same words


def test_a_system_over_whole_documents_is_not_said_to_score_chunks():
    """A plugin indexing whole documents counts docs_scored: the cost line says documents, not chunks."""
    from hcrbench.experiment.cost import scored_unit
    from hcrbench.protocol.verdicts import cost_summary

    assert scored_unit("mine", False, ["docs_scored"]) == "documents"
    assert scored_unit("bm25", True, ["docs_scored"]) == scored_unit("hcr", False, []) == "chunks"
    v = _verdicts("mine", ["go"])
    v["vs_best_simple"]["cost_units"] = ["documents", "chunks"]
    text = "\n".join(t for _, t in block_lines(v))
    assert "500 documents vs 3,750 chunks scored per query (0.13x)" in text and "500 vs 3,750" not in text
    doc = {"cost": {"mine": {"chunks_scored": 1000.0, "reranker_calls": 0.0},
                    "rerank": {"chunks_scored": 3751.0, "reranker_calls": 100.0}}}
    line = cost_summary(doc, "mine", ["mine"], "rerank", "nDCG@10", 0.01, ["nDCG@10"], ("documents", "chunks"))["line"]
    assert "1,000 documents scored vs 3,751 chunks (0.27x)" in line


def test_the_kill_baseline_rule_shortened_for_the_block_is_still_a_sentence():
    """Its interval, dropped to fit the block, took the sentence's grammar with it ("trails rerank by 0.016
    nDCG@10 reaches the -0.02 margin"): the margin clause stands on its own."""
    from hcrbench.protocol.checkpoints import kill_baseline_margin

    row = kill_baseline_margin(-0.016, -0.118, 0.086, n=96, baseline="rerank", system="mine")
    v = {**_verdicts("mine", []), "overall": "inconclusive", "checkpoints": [{**row, "name": "vs rerank"}]}
    text = "\n".join(t for _, t in block_lines(v))
    assert "nDCG@10 reaches" not in text
    assert "mine trails rerank by 0.016 nDCG@10: its 95% interval reaches the -0.02 margin" in text, text


def test_a_rule_the_harness_cannot_decide_reads_as_a_sentence():
    row = {"id": "H1a", "name": "H1a", "verdict": "not decidable",
           "text": "not decidable on this harness: a perfect retriever fails 34% of the budget-feasible queries at "
                   "400 tokens (> 5%; control row perfect)"}
    v = {**_verdicts("mine", []), "overall": "inconclusive", "hypotheses": [row]}
    text = "\n".join(t for _, t in block_lines(v))
    assert "undecided on this harness: a perfect retriever fails 34%" in text and "undecided: on this" not in text


def test_the_routing_section_says_the_tree_rows_are_comparators_when_the_subject_writes_no_log(tmp_path):
    from hcrbench.report.inputs import ReportInputs
    from hcrbench.report.model import Para
    from hcrbench.report.sections import Context
    from hcrbench.report.sections_hcr import routing_section

    tm = json.loads((REAL.parent / "tree_metrics.json").read_text(encoding="utf-8"))
    texts = {}
    for main in ("mine", next(iter(tm))):
        sec = routing_section(Context(ReportInputs(tmp_path, tree_metrics=tm), "nDCG@10", "rerank", main, [], "f"))
        texts[main] = " ".join(b.text + " ".join(b.items) for b in sec.blocks if isinstance(b, Para))
    assert "mine, the system under test, writes no routing log" in texts["mine"]
    assert "H1c criterion" not in texts["mine"]
    tree = texts[next(iter(tm))]
    assert "writes no routing log" not in tree and "H1c criterion" in tree


def test_an_undecided_bottom_line_says_why_in_counts():
    v = {**_verdicts("mine", ["go", "not decidable", "not decidable", "not run"]), "overall": "inconclusive"}
    line = [t for _, t in block_lines(v)][1]
    assert line == "bottom line: UNDECIDED for mine: no rule is against it; 2 rules undecided, 1 go", line


def test_the_protocols_bottom_line_names_the_subject_and_no_file_key():
    from hcrbench.protocol.verdicts import bottom_line

    kill = {"id": "kill", "name": "Single kill criterion", "verdict": "not decidable",
            "evidence": {"size": "small", "at_full_size_this_would_be": "not decidable"}}
    v = {"system": "mine", "overall": "inconclusive", "checkpoints": [],
         "hypotheses": [{"id": "token_efficiency", "name": "Token efficiency", "verdict": "not decidable",
                         "before_operating": "x", "evidence": {"operating": {"needs_n": 270}}}, kill]}
    line = bottom_line(v)
    assert line.startswith("no rule decided for or against mine; size small cannot decide the kill criterion "
                           "(nor could it be read at this size)"), line
    assert "verdicts.json" not in line and "would be not decidable" not in line
    kill["evidence"]["at_full_size_this_would_be"] = "kill"
    assert "(read at this size it would be kill)" in bottom_line(v)


def test_the_reports_verdict_tables_show_no_internal_keys(tmp_path):
    """The hypotheses table showed ids like failure_rate / corpus_size, the controls table plus_margin; the
    console's controls table too."""
    from hcrbench.report.inputs import ReportInputs
    from hcrbench.report.model import Table
    from hcrbench.report.sections import Context, verdicts_section
    from hcrbench.report.verdicts import controls_table

    v = json.loads((REAL.parent / "verdicts.json").read_text(encoding="utf-8"))
    v["hypotheses"] += [h for h in json.loads(REAL.read_text(encoding="utf-8"))["hypotheses"] if "_" in h["id"]]
    v["controls"] = [{"control": c, "rule": "kill", "expected": "kill or not decidable", "got": "kill", "ok": True}
                     for c in ("oracle", "twin", "plus_margin", "minus_margin")]
    ids = {h["id"] for h in v["hypotheses"]}
    assert any("_" in i for i in ids)  # the fixture has rules whose id is a key
    sec = verdicts_section(Context(ReportInputs(tmp_path, verdicts=v), "nDCG@10", "rerank", v["system"], [], "f"))
    cells = [c.text for b in sec.blocks if isinstance(b, Table) for row in b.rows for c in row]
    assert not any(t in ("failure_rate", "corpus_size", "plus_margin", "minus_margin") for t in cells), cells
    assert "twin + margin" in cells and "twin - margin" in cells
    buf = io.StringIO()
    Console(file=buf, width=200, no_color=True).print(controls_table(v))
    assert "plus_margin" not in buf.getvalue() and "twin + margin" in buf.getvalue()


KILL_ROW = {"id": "kill", "name": "Single kill criterion", "verdict": "not decidable", "interval": [-0.070, 0.010],
            "interval_kind": "cluster-robust CR2 t 99.6904% (110 clusters)", "text": "not decidable at n = 285",
            "evidence": {"judged_against": "bm25"}}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["not decidable", "kill", "go", "inconclusive"]),
       st.sampled_from([[-0.05, -0.01], [0.01, 0.04], [-0.01, 0.03]]), st.sampled_from([1, 3]),
       st.sampled_from(["bm25", "dense"]))
def test_the_best_simple_line_names_its_interval_and_what_the_deciding_rule_says(verdict, ci, look, against):
    """One difference, two intervals: the best-simple line's fixed-n 95% one is labelled so and never read as the
    decision; when the kill criterion judges the same pair its own (clustered, sequential) interval and word
    follow, whatever either says; against another pair the line names no rule."""
    from hcrbench.report.verdicts import decided_by_line

    v = _verdicts("hcr", ["go"])
    v["vs_best_simple"]["ci"] = ci
    v["hypotheses"] = [{**KILL_ROW, "verdict": verdict, "evidence": {"judged_against": against}}]
    v["sequential"] = {"look": look, "max_looks": 6}
    v["confidence"] = 0.9969039837891523
    v["decided_by"] = {"test": "hcr vs bm25", "delta": 0.02, "ci": [-0.070, 0.010], "n": 59}
    line = next(t for _, t in block_lines(v) if t.startswith("vs the best simple system"))
    assert "(fixed-n 95% CI [" in line and " on this fixed-n 95% CI" in line
    assert ("worse" in line) == (ci[1] < 0) and ("better" in line) == (ci[0] > 0)
    said = {"not decidable": "is undecided", "inconclusive": "is undecided", "kill": "says kill", "go": "says go"}
    deciding = (f"the kill criterion (clustered 99.6904% sequential interval [-0.070, +0.010], look {look} of 6) "
                f"{said[verdict]}")
    assert (deciding in line) == (against == "bm25"), line
    assert "95%" not in decided_by_line(v) and "99.6904% sequential interval [-0.070, +0.010]" in decided_by_line(v)


def test_a_difference_that_rounds_to_zero_is_never_printed_as_zero():
    """"hcr leads rerank by 0.000": the rule texts (kill baseline margin, kill) and the cost line show enough
    decimals for a non-zero difference, and say "ties with" for an exact 0."""
    from hcrbench.protocol.checkpoints import kill_baseline_margin
    from hcrbench.protocol.words import leads_words, signed_diff

    for d, want in ((0.00027, "leads rerank by 0.0003 nDCG@10"), (-0.00004, "trails rerank by 0.00004 nDCG@10"),
                    (0.0, "ties with rerank on nDCG@10"), (0.0123, "leads rerank by 0.012 nDCG@10")):
        assert want in leads_words("mine", "rerank", d, "nDCG@10")
        row = kill_baseline_margin(d, -0.047, 0.047, n=285, baseline="rerank", system="mine")
        assert want in row["text"] and "by 0.000 " not in row["text"], row["text"]
    assert signed_diff(0.00027) == "+0.0003" and signed_diff(-0.0123) == "-0.012" and signed_diff(0.0) == "0"
