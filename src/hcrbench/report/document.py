"""``write_report(folder)``: the experiment report, as one self-contained ``report.html``, ``report.md`` and
``tables.tex``, from whatever of the folder's result files exist.

Order (verdicts first, in plain words): verdict and checkpoints, hypotheses; how to read the page (every mark
explained); systems with CIs; per category;
token efficiency; routing and tree quality; gate and controls; ablations; calibration; corpus growth; biggest
wins and losses (query text, escaped); ledger; run details. A section whose input file is absent says "not
run" and what would make it; a file present but malformed stops the report with one InputError naming it.
Plots are PNG, embedded in the HTML (base64) and written to ``report_files/`` for the Markdown. Same folder,
same bytes: no dates, fixed plot metadata, deterministic resampling seeds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hcrbench.data.atomic import atomic_write_bytes, atomic_write_text
from hcrbench.errors import InputError
from hcrbench.report import plots
from hcrbench.report import sections as S
from hcrbench.report import sections_hcr as H
from hcrbench.report.html import render_html, user_text
from hcrbench.report.inputs import ReportInputs, load_inputs, user_strings
from hcrbench.report.latex import render_latex
from hcrbench.report.markdown import render_markdown
from hcrbench.report.model import Figure, Para, Section

FILES_DIR = "report_files"

#: (builder, the file a malformed value in it comes from), in report order.
BUILDERS: list[tuple[Callable[[S.Context], Section], str]] = [
    (S.verdicts_section, "verdicts.json"),
    (S.systems_section, "eval.json"),
    (S.categories_section, "per_query.csv"),
    (S.sufficiency_section, "eval.json"),
    (H.routing_section, "tree_metrics.json"),
    (H.gate_section, "gate.json"),
    (H.ablation_section, "manifest.json"),
    (H.calibration_section, "gate.json"),
    (H.growth_section, "growth.json"),
    (S.queries_section, "per_query.csv"),
    (S.ledger_section, "eval.json"),
    (S.details_section, "manifest.json"),
]


def build_sections(inp: ReportInputs) -> tuple[S.Context, list[Section]]:
    """Every section, in order; a malformed value becomes an InputError naming the file it came from."""
    ctx = S.make_context(inp)
    out = []
    if not plots.available():
        import warnings

        from hcrbench.errors import HcrbenchWarning

        warnings.warn("matplotlib is not installed: the report has no plots (pip install 'hcrbench[plot]')",
                      HcrbenchWarning, stacklevel=2)
    for build, source in BUILDERS:
        try:
            out.append(build(ctx))
        except InputError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            what = f"missing field {e}" if isinstance(e, KeyError) else f"{type(e).__name__}: {e}"
            raise InputError(f"malformed ({what}); cannot draw the '{build.__name__.removesuffix('_section')}' "
                             "section", path=inp.path(source)) from None
    from hcrbench.report.legend import legend_section

    out.insert(1, legend_section())  # after the verdict: every mark of the page explained before it is met
    from hcrbench.report.folds import fold_sections

    fold_sections(out, ctx)  # the HTML's long tables open on a click, under a one-line summary
    if not plots.available() and out and out[0].ran:
        out[0].blocks.append(Para("Plots are left out: matplotlib is not installed (pip install 'hcrbench[plot]').",
                                  kind="note"))
    return ctx, out


def bottom_line(ctx: S.Context) -> str:
    """The report's one sentence: the protocol's bottom line, else the main system against the baseline."""
    v = ctx.inp.verdicts
    if v is not None:
        from hcrbench.protocol.words import plain

        return f"{v['overall']}: {plain(v['bottom_line'])}"
    c = ctx.comparison(ctx.main) if ctx.main else None
    if c is not None:
        return S.plain_comparison(c) + " (no protocol verdicts: verdicts.json is absent)"
    return "no verdicts and no comparisons in this folder (verdicts.json and eval.json are absent)"


def _count(n: object) -> str:
    """A count with thousands separators (3,750), anything else as it is."""
    return f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else str(n)


def _titles(ctx: S.Context) -> tuple[str, str]:
    man = ctx.inp.manifest or {}
    name = man.get("name") or ctx.inp.folder.name
    ds = man.get("dataset") or {}
    bits = [f"{_count(ds.get('n_documents'))} documents, {_count(ds.get('n_queries'))} {ds.get('split', '')} queries"
            if ds else None, f"metric {ctx.metric}", f"baseline {ctx.baseline}" if ctx.baseline else None,
            f"system under test {ctx.main}" if ctx.main else None]
    return f"hcrbench report: {name}", " · ".join(b for b in bits if b)


def _figures(sections: list[Section]) -> list[Figure]:
    return [b for s in sections for b in s.blocks if isinstance(b, Figure)]


@dataclass
class ReportResult:
    """What :func:`make_report` wrote and what a person should read first."""

    paths: dict[str, Path]
    bottom_line: str
    not_run: list[str] = field(default_factory=list)
    context: S.Context | None = None  # what the sections were built from, and the sections themselves, so a
    sections: list[Section] = field(default_factory=list)  # caller can print some without building them again


def write_report(folder: str | Path) -> dict[str, Path]:
    """Write ``report.html``, ``report.md`` (+ ``report_files/*.png``) and ``tables.tex`` into ``folder``;
    returns ``{"html": path, "md": path, "tex": path}``."""
    return make_report(folder).paths


def make_report(folder: str | Path) -> ReportResult:
    """:func:`write_report`, also returning the bottom line and the sections that did not run."""
    folder = Path(folder)
    inp = load_inputs(folder)
    ctx, sections = build_sections(inp)
    title, subtitle = _titles(ctx)
    files: dict[str, str] = {}
    figs = _figures(sections)
    pngs = folder / FILES_DIR
    if figs:
        pngs.mkdir(exist_ok=True)
    for f in figs:
        atomic_write_bytes(pngs / f"{f.key}.png", f.png)
        files[f.key] = f"{FILES_DIR}/{f.key}.png"
    if pngs.is_dir():  # plots of an earlier report that this one no longer draws
        for old in pngs.glob("*.png"):
            if f"{FILES_DIR}/{old.name}" not in files.values():
                old.unlink()
    out = {"html": folder / "report.html", "md": folder / "report.md", "tex": folder / "tables.tex"}
    with user_text(user_strings(inp)):  # a backtick of a name or query text is shown, never made code
        html = render_html(sections, title, subtitle)
    atomic_write_text(out["html"], html)
    atomic_write_text(out["md"], render_markdown(sections, title, subtitle, files))
    atomic_write_text(out["tex"], render_latex(sections, title))
    return ReportResult(out, bottom_line(ctx), [s.title for s in sections if not s.ran], ctx, sections)


def report_drift(folder: str | Path) -> list[str]:
    """The report files in ``folder`` (``report.md``, ``report.html``, ``tables.tex``) whose text differs from a
    fresh rendering of the folder's results, one line each (nothing is written): a number edited in the report
    itself. Empty when the folder has no report or every file matches."""
    folder = Path(folder)
    names = {"md": "report.md", "html": "report.html", "tex": "tables.tex"}
    if not any((folder / n).is_file() for n in names.values()):
        return []
    inp = load_inputs(folder)
    ctx, sections = build_sections(inp)
    title, subtitle = _titles(ctx)
    files = {f.key: f"{FILES_DIR}/{f.key}.png" for f in _figures(sections)}
    with user_text(user_strings(inp)):
        html = render_html(sections, title, subtitle)
    fresh = {"html": html, "md": render_markdown(sections, title, subtitle, files),
             "tex": render_latex(sections, title)}
    return [f"{folder / n}: differs from a fresh rendering of the folder's results (edited after it was written?)"
            for k, n in names.items() if (folder / n).is_file()
            and (folder / n).read_text(encoding="utf-8", errors="replace") != fresh[k]]
