"""A report a reader trusts at first sight, rendered in headless Chromium: no Markdown or Python literals, a
table of contents, every mark explained in the legend, one p value per row, wide tables scrolling inside their
card (at a laptop's and a narrow window's width); and the routing plot's axis zoomed to the differences."""

from __future__ import annotations

import json

import pytest

from hcrbench.report import plots

from .cdp import Browser
from .conftest import MARK
from .reader_checks import FIXTURE_MAX_HEIGHT, MAX_HEIGHT, READER, problems
from .test_report_chromium import chromium  # noqa: F401  (the fixture: skip with its reason when absent)


@pytest.mark.parametrize("width", [1280, 760])
def test_the_rendered_report_passes_every_reader_check(chromium, written, width):  # noqa: F811
    with Browser(chromium) as b:
        b.open(written["html"].resolve().as_uri(), width=width, height=900)
        state = json.loads(b.evaluate(READER))
    for key in ("text", "others"):  # the fixture's hostile query text (conftest.MARK) is corpus text, shown as is
        state[key] = state[key].replace(MARK.split("&")[0].strip(), "")
    assert problems(state, max_height=FIXTURE_MAX_HEIGHT if width == 1280 else None) == []
    assert state["legend"] and state["toc"][0] == "#verdicts" and "#legend" in state["toc"]
    assert state["folds"]  # the long tables open on a click, each under its one-line summary


def test_the_checks_catch_what_the_issue_found():
    bad = {"text": "kill: p p = 0.079; `hcrbench quickstart`; eps None; links False; {'a': 1}", "others": "✓ UNDER-NS",
           "legend": "✓", "sections": ["verdicts", "gate"], "toc": ["#verdicts"], "sups": 2,
           "pcols": [{"id": "t-comparisons", "cols": ["p", "Holm p"], "rows": [2]}],
           "wraps": [{"id": "t-x", "right": 1500, "sectionRight": 1200, "overflow": "visible", "scrolls": False}],
           "pageWidth": 1500, "viewWidth": 1280, "height": 20_500, "firstScreen": 1400, "viewHeight": 900,
           "folds": ["two\nlines"], "ids": ["t-controls", "verdict", "t-controls"]}
    found = "\n".join(problems(bad))
    for what in ("'p p'", "'`'", "'None'", "'False'", "\"{'\"", "'UNDER-NS' is used but not in the legend",
                 "superscript", "misses ['gate']", "2 p columns", "a row with 2 p values", "does not name its family", "scrolls sideways",
                 "sticks out of its card", "20,500 px long", "below the first screen", "not one line",
                 "ids used twice (a link jumps to the first): ['t-controls']"):
        assert what in found, what


def test_the_routing_axis_is_zoomed_to_values_near_one_and_not_when_they_spread():
    near = {"hcr": {"routing": {"eps_any": [0.01, 0.03, 0.05], "n_queries": 59, "accuracy": 0.95,
                                "predicted_power": 0.92}}}
    low = plots.zoom_floor(plots.routing_values(near))
    assert 0.5 <= low < min(plots.routing_values(near)) and low == pytest.approx(round(low / 0.05) * 0.05)
    spread = {"hcr": {"routing": {"eps_any": [0.2, 0.6], "n_queries": 9, "accuracy": 0.3}}}
    assert plots.zoom_floor(plots.routing_values(spread)) == 0.0


def test_the_screenshot_script_renders_the_top_of_the_report(chromium, written, tmp_path):  # noqa: F811
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "report_screenshot.py"
    out = tmp_path / "shot.png"
    r = subprocess.run([sys.executable, str(script), str(written["html"].parent), "--out", str(out)],
                       capture_output=True, text=True, check=False, timeout=120)
    assert r.returncode == 0, r.stderr
    from PIL import Image, ImageStat

    img = Image.open(out).convert("L")
    assert img.size == (1280, 1000) and ImageStat.Stat(img).var[0] > 500  # the page, not a blank image
    bad = subprocess.run([sys.executable, str(script), str(tmp_path / "nope")], capture_output=True, text=True,
                         check=False, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_quickstarts_report_is_short_and_passes_every_reader_check(chromium, tmp_path):  # noqa: F811
    """The report of a real quickstart (hash encoder: every system of the field, HCR the subject), at 1280 px:
    at most MAX_HEIGHT long as it opens, the verdict on the first screen, every reader check."""
    import os
    import subprocess

    out = tmp_path / "qs"
    r = subprocess.run(["hcrbench", "quickstart", "--worlds", "1", "--encoder", "hash", "--out", str(out), "--seeds", "2",
                        "--n-trials", "80", "--resamples", "1000", "--quiet"], capture_output=True, text=True,
                       check=False, timeout=1200, env={**os.environ, "HCRBENCH_HOME": str(tmp_path / "home")})
    assert r.returncode == 0, r.stderr[-3000:]
    with Browser(chromium) as b:
        b.open((out / "report.html").resolve().as_uri(), width=1280, height=900)
        state = json.loads(b.evaluate(READER))
    assert problems(state, max_height=MAX_HEIGHT) == [], state["height"]
