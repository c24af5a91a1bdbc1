"""Template wording measures (synth/checks/describe_templates.py): skeletons, degenerate ranges and pasted parameter
names, checked on hand-made queries, and computed by ``describe`` on a small generated suite."""

from __future__ import annotations

import json

from hcrbench.synth.checks.describe_templates import (
    MAX_REPEAT_SHARE,
    degenerate_range,
    meridian_templates,
    pasted_parameters,
    skeleton,
    template_props,
    template_summary,
)


def test_queries_that_differ_only_in_ids_dates_numbers_and_names_share_a_skeleton():
    a = skeleton("Which incident tickets were raised from June 2024 to July 2024 inclusive?")
    b = skeleton("Which incident tickets were raised from 3 January 2023 to Q2 2024 inclusive?")
    assert a == b == "which incident tickets were raised from <date> to <date> inclusive?"
    assert skeleton("What was the root cause of INC-24241?") == skeleton("What was the root cause of HR-POL-7?")
    assert skeleton("Who leads project Aurora 3?") == skeleton("Who leads project Kestrel?") == \
        "who leads project <name>?"
    assert skeleton("Who is R. Castillo at Meridian?") == "who is <name> at <name>?"


def test_lists_of_any_length_are_one_mask_and_other_wording_is_another_skeleton():
    three = skeleton("For INC-29521, INC-23841 and INC-23601, where is the manager based?")
    two = skeleton("For INC-23401 and INC-20801, where is the manager based?")
    assert three == two == "for <list>, where is the manager based?"
    assert skeleton("Where is the manager of INC-23401 based?") != two


def test_degenerate_ranges_name_the_same_bound_twice():
    assert degenerate_range("Which tickets were raised from September 2024 to September 2024 inclusive?")
    assert degenerate_range("How did the cap change between version 1 and version 1?")
    assert degenerate_range("Incidents opened between the start of June 2024 and the end of June 2024.")
    assert not degenerate_range("Which tickets were raised from September 2024 to October 2024 inclusive?")
    assert not degenerate_range("How did the cap change between version 1 and version 10?")
    assert not degenerate_range("Compare Kestrel with Kestrel 2: from Kestrel to Kestrel 2, what changed?")


def test_pasted_parameter_names_are_code_style_tokens_only():
    assert pasted_parameters("Which incidents were opened after from_month?") == ["from_month"]
    assert pasted_parameters("What is the docType of {team}?") == ["docType", "{team}"]
    assert pasted_parameters("Show tickets where severity=1") == ["severity=1"]
    # gene and disease names with mixed case are ordinary words of a real query
    assert pasted_parameters("ADAR1 binds to Dicer to cleave pre-miRNA in vCJD carriers.") == []


def test_the_summary_counts_repeats_within_each_group_only():
    queries = {"a1": "What did DEC-0426 decide?", "a2": "What did DEC-0428 decide?", "a3": "What did DEC-0500 decide?",
               "a4": "Who approved DEC-0426?", "b1": "What did DEC-0426 decide?", "b2": "Who signed INC-7?"}
    groups = {q: q[0] for q in queries}
    s = template_summary(queries, groups)
    assert s["by_group"]["a"]["repeating"] == 3 and s["by_group"]["a"]["repeat_share"] == 0.75
    assert s["by_group"]["a"]["top_skeleton"] == "what did <id> decide?"
    # b1 has a's skeleton but is alone in its group: not a repeat
    assert s["by_group"]["b"]["repeat_share"] == 0.0 and s["repeat_share"] == 0.5
    assert template_summary(queries)["by_group"]["all"]["repeating"] == 4


def test_describe_rows_read_a_meridian_folder(tmp_path):
    metas = [{"query_id": f"MQ{i}", "category": c, "text": t} for i, (c, t) in enumerate([
        ("detail", "What did DEC-0426 decide?"), ("detail", "What did DEC-0427 decide?"),
        ("aggregation", "Which tickets were raised from May 2024 to May 2024 inclusive?"),
        ("aggregation", "Which tickets did team_name raise?")])]
    (tmp_path / "queries.meta.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metas))
    s = meridian_templates(tmp_path)
    assert s["by_group"]["detail"]["repeat_share"] == 1.0 and s["by_group"]["aggregation"]["repeat_share"] == 0.0
    repeat, odd = template_props(tmp_path)
    assert repeat["measured"] == {"all": 0.5, "highest (detail)": 1.0}
    assert odd["measured"] == [1, 1]
    assert not repeat["met"] and not odd["met"]  # 0.5 > MAX_REPEAT_SHARE; a degenerate range and a pasted name


def test_describe_reports_skeleton_repeats_and_lexical_overlap_of_a_generated_suite(tmp_path):
    from hcrbench.synth import describe, generate_meridian
    from hcrbench.synth.checks.describe_lexical import meridian_overlap

    generate_meridian(tmp_path, "small", seed=31, n_queries=60, grow=False)
    rows = {p["property"]: p for p in describe(tmp_path, write=False)["properties"]}
    tpl = meridian_templates(tmp_path)
    assert rows["queries repeating a template skeleton of their category"]["measured"]["all"] == tpl["repeat_share"]
    assert sum(g["queries"] for g in tpl["by_group"].values()) == 60
    # the generator's wording: few repeated skeletons, no degenerate range, no pasted name
    assert tpl["repeat_share"] <= MAX_REPEAT_SHARE and tpl["degenerate_ranges"] == tpl["pasted_parameters"] == 0
    assert rows["degenerate ranges; pasted parameter names (queries)"]["met"]
    lex = rows["lexical overlap of queries with their relevant documents"]["measured"]
    assert lex["no term shared"] == meridian_overlap(tmp_path)["all"]["no_shared_term"]
