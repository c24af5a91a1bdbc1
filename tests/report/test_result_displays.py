"""Every public result object shows as a table in Jupyter (``_repr_html_``) and in rich (``__rich__``), never as
a raw dataclass dump: evaluation results, runs' evaluations, ledgers, comparisons, tests, intervals, gate results."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from hcrbench.data import read_qrels, read_run
from hcrbench.data.display import ResultDisplay
from hcrbench.metrics import evaluate
from hcrbench.stats import (
    aggregate_seeds,
    compare,
    paired_ci,
    paired_ttest,
    permutation_test,
    project_ci,
    tost,
)
from hcrbench.stats.mcnemar import mcnemar_exact

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DUMP = re.compile(r"\w+\(\w+=")  # what a dataclass repr looks like


def _rich_text(obj) -> str:
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(obj)
    return buf.getvalue()


@pytest.fixture(scope="module")
def objects():
    qrels = read_qrels(EXAMPLES / "cranfield.qrels")
    res = evaluate(qrels, {"a": read_run(EXAMPLES / "bm25.trec"), "b": read_run(EXAMPLES / "bm25_stemmed.trec")},
                   "nDCG@10,AP")
    a, b = res.runs["a"]["AP"], res.runs["b"]["AP"]
    comps = compare(res, n_resamples=200)
    return {
        "EvaluationResult": res, "RunEvaluation": res.runs["a"], "Ledger": res.runs["a"].ledger,
        "Comparison": comps[0], "Comparisons": comps, "TestResult": permutation_test(a, b, n_resamples=200),
        "TTestResult": paired_ttest(a, b), "ConfidenceInterval": paired_ci(a, b, n_resamples=200),
        "EquivalenceResult": tost(a, b, margin=0.05), "McNemarResult": mcnemar_exact(a > 0.3, b > 0.3),
        "SeedAggregate": aggregate_seeds({"0": a, "1": b}), "ProjectedCI": project_ci(0.2, 25, 100),
    }


@pytest.mark.parametrize("name", ["EvaluationResult", "RunEvaluation", "Ledger", "Comparison", "Comparisons",
                                  "TestResult", "TTestResult", "ConfidenceInterval", "EquivalenceResult",
                                  "McNemarResult", "SeedAggregate", "ProjectedCI"])
def test_html_and_rich_are_tables_not_dumps(objects, name):
    obj = objects[name]
    html = obj._repr_html_()
    assert html.startswith("<table>") and "</table>" in html and not DUMP.search(html), name
    text = _rich_text(obj)
    assert not DUMP.search(text) and ("━" in text or "─" in text), name  # a rich table was drawn


def test_the_displays_show_the_numbers(objects):
    res, comp = objects["EvaluationResult"], objects["Comparison"]
    text = _rich_text(res)
    for name, r in res.runs.items():
        assert f"{r.means['AP']:.4f}" in text and name in text
    assert f"{objects['RunEvaluation'].means['nDCG@10']:.4f}" in objects["RunEvaluation"]._repr_html_()
    html = comp._repr_html_()
    assert f"{comp.p_holm:.4f}" in html and "Holm-adjusted" in html and comp.metric in html
    assert f"{objects['TTestResult'].pvalue:.4f}" in _rich_text(objects["TTestResult"])
    assert "184" in objects["Ledger"]._repr_html_()  # unjudged docs in the top 10 of bm25 on Cranfield


def test_every_result_dataclass_of_stats_metrics_and_gate_has_the_displays():
    import dataclasses
    import importlib
    import pkgutil

    import hcrbench

    missing = []
    for pkg in ("stats", "metrics", "gate"):
        mod = importlib.import_module(f"hcrbench.{pkg}")
        for info in pkgutil.iter_modules(mod.__path__):
            m = importlib.import_module(f"hcrbench.{pkg}.{info.name}")
            for obj in vars(m).values():
                result_like = (isinstance(obj, type) and obj.__module__ == m.__name__
                               and dataclasses.is_dataclass(obj)
                               and obj.__name__.endswith(("Result", "Comparison", "Report", "CI", "Interval",
                                                          "Aggregate", "Ledger", "Evaluation")))
                if result_like and not (hasattr(obj, "_repr_html_") and hasattr(obj, "__rich__")):
                    missing.append(f"{m.__name__}.{obj.__name__}")
    assert not missing, missing
    assert issubclass(hcrbench.stats.Comparison, ResultDisplay)
