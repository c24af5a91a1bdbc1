"""``evaluate(qrels, runs, metrics)``: trec_eval-exact per-query values, means and a denominator ledger.

The qrels are indexed once; each run is encoded to its judged hits (:mod:`hcrbench.metrics.encode`) and every
measure is computed from them (:mod:`hcrbench.metrics.compute`). Semantics are trec_eval's and are documented in
``docs/metrics.md``.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hcrbench.data.display import ResultDisplay
from hcrbench.data.pages import small_pages
from hcrbench.data.subtopics import SubtopicQrels, read_subtopic_qrels
from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.metrics._groups import count_before
from hcrbench.metrics.aggregate import aggregate, measure_of
from hcrbench.metrics.coerce import as_qrels, encode_run, named_runs
from hcrbench.metrics.compute import compute_all
from hcrbench.metrics.diversity import alpha_ndcg
from hcrbench.metrics.encode import Hits, QrelsIndex, rank_hits
from hcrbench.metrics.foreign import foreign_values
from hcrbench.metrics.keyed import MeasureKeyed
from hcrbench.metrics.ledger import Ledger
from hcrbench.metrics.measures import FOREIGN, Measure, parse_measures

MISSING_POLICIES = ("zero", "skip")


@dataclass
class RunEvaluation(ResultDisplay):
    """One run's scores: ``values[metric]`` is a float array aligned with ``query_ids``."""

    name: str
    query_ids: list[str]
    values: dict[str, np.ndarray]
    ledger: Ledger
    measures: list[Measure] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.values = MeasureKeyed(self.values)  # readable by any alias: values["mrr@10"] is values["RR@10"]

    @property
    def means(self) -> dict[str, float]:
        """Each metric's value over ``query_ids``, aggregated as the measure's own tool does
        (:mod:`hcrbench.metrics.aggregate`): the mean (NaN when no query was averaged); GMAP's geometric mean
        (trec_eval's ``gm_map``); the sum for the counts (``NumRel``, ``NumRet``, ``NumRelRet``, ir_measures'
        ``NumQ``...: trec_eval's ``all`` line, ``ir_measures.calc_aggregate``). Keys answer to any alias.
        """
        known = {m.name: m for m in self.measures}
        return MeasureKeyed({m: aggregate(known.get(m) or measure_of(m), v) for m, v in self.values.items()})

    @property
    def per_query(self) -> dict[str, dict[str, float]]:
        """``{metric: {query_id: value}}`` (metric keys answer to any alias)."""
        return MeasureKeyed({m: dict(zip(self.query_ids, v.tolist())) for m, v in self.values.items()})

    def __getitem__(self, metric: str) -> np.ndarray:
        return self.values[metric]

    def _display_title(self) -> str:
        return f"RunEvaluation {self.name!r}: means over {len(self.query_ids)} queries"

    def _display_rows(self) -> list[tuple[str, str]]:
        """One row per metric (its mean), then what the ledger says the means are over."""
        from hcrbench.data.display import fmt

        rows = [(m, fmt(float(v))) for m, v in self.means.items()]
        d = self.ledger.to_dict()
        for key in ("zero_filled", "ignored", "no_relevant"):
            v = d.get(key)
            if v:
                rows.append((f"ledger: {key.replace('_', ' ')}", f"{len(v)} queries"))
        return rows

    def __repr__(self) -> str:
        means = ", ".join(f"{m}={v:.4f}" for m, v in list(self.means.items())[:6])
        more = ", ..." if len(self.values) > 6 else ""
        return f"RunEvaluation({self.name!r}, {len(self.query_ids)} queries: {means}{more})"


@dataclass
class EvaluationResult:
    """All runs of one evaluation, in input order."""

    metrics: list[str]
    runs: dict[str, RunEvaluation]
    rel_threshold: int = 1
    missing: str = "zero"

    def __getitem__(self, name: str) -> RunEvaluation:
        return self.runs[name]

    def __iter__(self):
        return iter(self.runs.values())

    def __len__(self) -> int:
        return len(self.runs)

    @property
    def means(self) -> dict[str, dict[str, float]]:
        """``{run: {metric: mean}}``."""
        return {name: r.means for name, r in self.runs.items()}

    @property
    def ledger(self) -> dict[str, Ledger]:
        return {name: r.ledger for name, r in self.runs.items()}

    @property
    def per_query(self):
        """A pandas DataFrame with columns ``run, query_id, <metric>...`` (one row per run and query)."""
        import pandas as pd

        frames = []
        for name, r in self.runs.items():
            cols: dict[str, Any] = {"run": [name] * len(r.query_ids), "query_id": list(r.query_ids)}
            cols.update({m: r.values[m] for m in self.metrics})
            frames.append(pd.DataFrame(cols))
        return pd.concat(frames, ignore_index=True)

    def metric_name(self, name: str) -> str:
        """This evaluation's name for a measure spelled any accepted way (``ndcg_cut_10`` -> ``nDCG@10``); a name
        the registry does not know is returned as given (stats.compare uses this instead of parsing names)."""
        from hcrbench.metrics.measures import parse_measure

        try:
            return parse_measure(name).name
        except InputError:
            return name

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"metrics": [...], "runs": {NAME: {"means", "per_query", "ledger"}}}``."""
        return {
            "metrics": list(self.metrics),
            "rel_threshold": self.rel_threshold,
            "missing": self.missing,
            "runs": {
                name: {"means": r.means, "per_query": r.per_query, "ledger": r.ledger.to_dict()}
                for name, r in self.runs.items()
            },
        }

    # -- tables: notebooks, papers, pandas ------------------------------------------------------------------
    def to_frame(self, per_query: bool = False):
        """The means as a pandas DataFrame (one row per run, one column per metric, index ``run``);
        ``per_query=True`` gives :attr:`per_query`'s long table instead."""
        if per_query:
            return self.per_query
        import pandas as pd

        means = self.means
        return pd.DataFrame([means[r] for r in self.runs], index=pd.Index(list(self.runs), name="run"),
                            columns=list(self.metrics))

    def _table(self, digits: int, comparisons: Any, alpha: float, mark: str) -> tuple[list[str], list[list[str]]]:
        from hcrbench.data.display import fmt

        significant = {(c.run, c.metric) for c in (comparisons or []) if c.significant(alpha)}
        means = self.means
        rows = [[name] + [fmt(means[name][m], digits) + (mark if (name, m) in significant else "")
                          for m in self.metrics] for name in self.runs]
        return ["run", *self.metrics], rows

    def _letters(self, comparisons: Any, alpha: float, letters_by: str, superscript: bool) -> dict | None:
        """ranx's significance letters ``{(run, metric): letters}`` when ``comparisons`` are all-pairs (from
        ``compare(res, pairs="all")``: they carry Tukey's p and a ``letters`` method); None otherwise (the
        baseline-only ``†`` marks then apply). Duck-typed: this stage does not import hcrbench.stats."""
        if not comparisons or not any(getattr(c, "p_tukey", None) is not None for c in comparisons):
            return None
        fn = getattr(comparisons, "letters", None)
        return None if fn is None else fn(list(self.runs), alpha=alpha, p=letters_by, superscript=superscript)

    def _letter_table(self, digits: int, letters: dict, sup: Any) -> tuple[list[str], list[list[str]]]:
        """ranx's ``Report`` layout: ``#`` (the run's letter), the run, each mean followed by ``sup(letters)``."""
        from hcrbench.data.display import fmt

        means = self.means
        rows = [[_letter(i), name] + [fmt(means[name][m], digits) + sup(letters.get((name, m), ""), name, m)
                                      for m in self.metrics] for i, name in enumerate(self.runs)]
        return ["#", "run", *self.metrics], rows

    def to_markdown(self, digits: int = 4, comparisons: Any = None, alpha: float = 0.05,
                    letters_by: str = "p_holm") -> str:
        """A Markdown table of the means; with ``comparisons`` (from :func:`hcrbench.compare`) a ``†`` marks each
        mean that differs from the baseline's with Holm-adjusted p < ``alpha``. With all-pairs comparisons
        (``compare(res, pairs="all")``) the table is ranx's: a ``#`` letter column and each mean followed by the
        superscript letters of the runs it beats with ``letters_by`` p <= ``alpha`` (``p_holm``, ``p``, ``t_p``:
        ranx's ``student``, ``p_tukey``: ranx's ``tukey``), e.g. ``0.6942ᵃᶜ``."""
        from hcrbench.data.display import markdown_table

        letters = self._letters(comparisons, alpha, letters_by, superscript=True)
        if letters is not None:
            table = markdown_table(*self._letter_table(digits, letters, lambda s, n, m: s))
        else:
            table = markdown_table(*self._table(digits, comparisons, alpha, " †"))
        legend = self._legend(comparisons, alpha, letters_by, letters is not None)
        return table + (f"\n{legend}\n" if legend else "")

    def _legend(self, comparisons: Any, alpha: float, letters_by: str, lettered: bool) -> str:
        """The sentence defining the table's marks (empty without comparisons: nothing is marked)."""
        from hcrbench.metrics.legend import dagger_legend, letters_legend

        if not comparisons:
            return ""
        return letters_legend(comparisons, alpha, letters_by) if lettered else dagger_legend(comparisons, alpha)

    def to_latex(self, digits: int = 4, comparisons: Any = None, alpha: float = 0.05, caption: str = "",
                 letters_by: str = "p_holm") -> str:
        """A LaTeX ``table`` (booktabs) of the means; ``comparisons`` mark significant differences with ``†``.
        With all-pairs comparisons, ranx's ``Report.to_latex`` marks instead: ``0.6942$^{ac}$\\hphantom{$^{b}$}``
        (the letters of the runs it beats, then a phantom of the others so the columns stay aligned). As in ranx,
        the best mean of each metric is in boldface (the first run with the highest rounded mean), and the caption
        says so and defines the marks (test, threshold, correction and family, baseline)."""
        from hcrbench.data.display import latex_table

        letters = self._letters(comparisons, alpha, letters_by, superscript=False)
        legend = self._legend(comparisons, alpha, letters_by, letters is not None)
        caption = " ".join(t for t in (caption, "The best results are highlighted in boldface.", legend) if t)
        keys = {}  # placeholder -> LaTeX: latex_table escapes cells, so the marks go in after it
        best = self._best(digits)

        def bold(header: list[str], rows: list[list[str]], first: int) -> tuple[list[str], list[list[str]]]:
            for i, name in enumerate(self.runs):
                for j, m in enumerate(self.metrics):
                    if best.get(m) == name:
                        cell = rows[i][first + j]
                        number = cell.split("†")[0].split("ZZ")[0].rstrip()
                        key = f"ZZBOLD{len(keys)}ZZ"
                        keys[key] = rf"\textbf{{{number}}}"
                        rows[i][first + j] = key + cell[len(number):]
            return header, rows

        if letters is None:
            out = latex_table(*bold(*self._table(digits, comparisons, alpha, "†"), 1), caption=caption)
            for key, tex in keys.items():
                out = out.replace(key, tex)
            return out.replace("†", r"$^\dagger$")
        names = list(self.runs)

        def sup(won: str, name: str, metric: str) -> str:
            beaten = set(re.findall(r"[a-z][0-9]*", won))  # a, b, ..., z, a1, b1, ...
            others = "".join(_letter(i) for i, n in enumerate(names) if n != name and _letter(i) not in beaten)
            tex = (f"$^{{{won}}}$" if won else "") + (f"\\hphantom{{$^{{{others}}}$}}" if others else "")
            key = f"ZZLETTERS{len(keys)}ZZ"
            keys[key] = tex
            return key

        out = latex_table(*bold(*self._letter_table(digits, letters, sup), 2), caption=caption)
        for key, tex in keys.items():
            out = out.replace(key, tex)
        return out

    def _best(self, digits: int) -> dict[str, str]:
        """Per metric, the run ranx's LaTeX bolds: the first with the highest mean rounded to ``digits`` (none
        when no mean is above 0, as ranx starts from 0)."""
        best: dict[str, str] = {}
        for m in self.metrics:
            top = 0.0
            for name in self.runs:
                v = round(float(self.means[name][m]), digits)
                if v > top:
                    top, best[m] = v, name
        return best

    def _repr_html_(self) -> str:
        return self.to_html()

    def __rich__(self) -> Any:
        """The means as a rich table (``rich.print(result)``): one row per run, one column per metric."""
        from rich.markup import escape
        from rich.table import Table

        from hcrbench.data.display import fmt

        table = Table("run", *map(escape, self.metrics), "queries", title=f"hcrbench evaluation: {len(self.runs)} "
                      f"runs, rel_threshold {self.rel_threshold}", title_justify="left")
        means = self.means
        for name, r in self.runs.items():
            table.add_row(escape(name), *(fmt(float(means[name][m])) for m in self.metrics), str(len(r.query_ids)))
        return table

    def to_html(self, digits: int = 4, comparisons: Any = None, alpha: float = 0.05,
                letters_by: str = "p_holm") -> str:
        """An HTML table of the means (what Jupyter shows); with all-pairs comparisons, ranx's ``#`` column and
        superscript letters as in :meth:`to_markdown`, and a caption saying what they mean."""
        from hcrbench.data.display import html_table

        n = {len(r.query_ids) for r in self.runs.values()}
        queries = f"{n.pop()} queries" if len(n) == 1 else "queries per run differ"
        caption = f"hcrbench evaluation: {len(self.runs)} runs, {queries}, rel_threshold {self.rel_threshold}"
        letters = self._letters(comparisons, alpha, letters_by, superscript=True)
        legend = self._legend(comparisons, alpha, letters_by, letters is not None)
        caption += f". {legend}" if legend else ""
        if letters is None:
            return html_table(*self._table(digits, comparisons, alpha, " †"), caption=caption)
        return html_table(*self._letter_table(digits, letters, lambda s, n, m: s), caption=caption)

    def __repr__(self) -> str:
        header, rows = self._table(4, None, 0.05, "")
        shown = rows[:20]
        width = [max(len(r[i]) for r in [header, *shown]) for i in range(len(header))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, width)) for r in [header, *shown]]
        if len(rows) > len(shown):
            lines.append(f"... {len(rows) - len(shown)} more runs")
        return f"EvaluationResult(means of {len(self.runs)} runs)\n" + "\n".join(lines)


def _preview(ids: list[str], n: int = 5) -> str:
    head = ", ".join(repr(q) for q in ids[:n])
    return head + (", ..." if len(ids) > n else "")


NDEVAL_NOTE = "alpha_nDCG without subtopics reads the qrels file's second column as the subtopic (ndeval's convention)"


def _subtopics(subtopics: Any, qrels: Any = None) -> SubtopicQrels:
    if subtopics is None and isinstance(qrels, (str, os.PathLike)) and not str(qrels).startswith("irds:"):
        return subtopics_from_qrels_file(qrels)
    if subtopics is None:
        raise InputError("alpha_nDCG needs subtopic qrels: evaluate(..., subtopics=SubtopicQrels | dict | path), "
                         "or pass the qrels as a file path (its second column is then the subtopic, as in ndeval)",
                         field="subtopics")
    if isinstance(subtopics, SubtopicQrels):
        return subtopics
    if isinstance(subtopics, (str, os.PathLike)):
        return read_subtopic_qrels(subtopics)
    return SubtopicQrels.from_dict(subtopics)


def subtopics_from_qrels_file(path: Any) -> SubtopicQrels:
    """A ``qid subtopic docid rel`` reading of a TREC qrels file (ndeval's convention for alpha-nDCG)."""
    try:
        return read_subtopic_qrels(path)
    except InputError as e:
        raise InputError(f"{e.problem} ({NDEVAL_NOTE}; otherwise pass subtopic qrels: --subtopics FILE, "
                         f"subtopics=)", path=e.path, line=e.line,
                         field=e.field) from None


def restrict_hits(hits: Hits, max_docs: int | None, judged_only: bool) -> Hits:
    """trec_eval's ``-M`` (keep each query's top ``max_docs``) then ``-J`` (drop docs without a non-negative
    judgment and re-rank the rest, keeping their order)."""
    q, rank, grade, n_ret = hits.query, hits.rank, hits.grade, hits.n_ret
    if max_docs is not None:
        keep = rank < max_docs
        q, rank, grade, n_ret = q[keep], rank[keep], grade[keep], np.minimum(n_ret, max_docs)
    if judged_only:
        keep = grade >= 0
        q, grade = q[keep], grade[keep]
        rank = count_before(q, np.ones(q.size, dtype=bool))
        n_ret = np.bincount(q, minlength=n_ret.shape[0]).astype(np.int64)
    return Hits(query=q, rank=rank, grade=grade, n_ret=n_ret)


def _unjudged_per_query(hits: Hits, k: int, nq: int) -> np.ndarray:
    """Per qrels query, retrieved docs in the top ``k`` without a judgment (the ledger's ``unjudged_at_k``)."""
    judged = np.bincount(hits.query[hits.rank < k], minlength=nq)
    return (np.minimum(hits.n_ret, k) - judged).astype(np.int64)


def evaluate(
    qrels: Any,
    run_or_runs: Any,
    metrics: Any = "nDCG@10",
    *,
    rel_threshold: int = 1,
    missing: str = "zero",
    max_docs: int | None = None,
    judged_only: bool = False,
    subtopics: Any = None,
) -> EvaluationResult:
    """Score one run or several against qrels with trec_eval semantics.

    ``qrels``: a :class:`~hcrbench.data.Qrels`, ``{qid: {doc: grade}}`` or a qrels path. ``run_or_runs``: a
    :class:`~hcrbench.data.Run`, ``{qid: {doc: score}}``, a path, a list of those or ``{name: run}``.
    ``metrics``: ``"nDCG@10,R@100,RR"``, a list, or trec_eval names. ``rel_threshold``: minimum grade counted
    relevant (nDCG always uses raw grades). ``missing``: ``"zero"`` averages qrels queries absent from a run as
    0 (trec_eval -c); ``"skip"`` leaves them out (trec_eval's default). Queries in a run but not in the qrels are
    ignored. Both cases warn once per run and are listed in each run's :class:`Ledger`. ``max_docs`` keeps only
    each query's top ``max_docs`` retrieved docs (trec_eval ``-M``); ``judged_only`` drops retrieved docs without
    a non-negative judgment before scoring and closes the gaps in the ranking (trec_eval ``-J``). ``subtopics``
    (a :class:`~hcrbench.data.subtopics.SubtopicQrels`, ``{qid: {doc: {subtopic: grade}}}`` or a path) is needed
    by ``alpha_nDCG@k`` only; qrels queries it lacks score 0 (``max_docs``/``judged_only`` do not apply to it).
    Without it, a qrels *path*'s second column is read as the subtopic, as ndeval does (a standard qrels file
    with ``0`` there gives each judged doc one subtopic).
    """
    measures = check_options(metrics, rel_threshold, missing, max_docs)
    diverse = [m for m in measures if m.kind == "alpha_nDCG"]
    sub = _subtopics(subtopics, qrels) if diverse else None
    qrels_obj = as_qrels(qrels)
    runs = named_runs(run_or_runs)
    out: dict[str, RunEvaluation] = {}
    with small_pages():  # short-lived arrays of millions of entries
        index = QrelsIndex.build(qrels_obj)
        for name, run in runs:
            scored = score_run(run, name, index, measures, int(rel_threshold), max_docs, bool(judged_only), sub)
            out[name] = finish_run(name, scored, index, measures, int(rel_threshold), missing, max_docs,
                                   bool(judged_only))
    return EvaluationResult([m.name for m in measures], out, int(rel_threshold), missing)


def check_options(metrics: Any, rel_threshold: Any, missing: str, max_docs: Any) -> list[Measure]:
    """Refuse bad options of :func:`evaluate` (one line naming the option); the parsed measures."""
    if isinstance(rel_threshold, bool) or not isinstance(rel_threshold, (int, np.integer)):
        raise InputError(f"must be an integer grade, got {rel_threshold!r}", field="rel_threshold")
    if missing not in MISSING_POLICIES:
        raise InputError(f"must be one of {', '.join(MISSING_POLICIES)}, got {missing!r}", field="missing")
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, (int, np.integer))
                                 or max_docs < 1):
        raise InputError(f"must be a positive integer, got {max_docs!r}", field="max_docs")
    return parse_measures(metrics)


@dataclass
class ScoredRun:
    """One run's (or one batch of whole queries') values for every qrels query, before the missing policy picks
    the rows that are averaged. Rows of queries absent from the run hold the value of an empty ranking."""

    computed: dict[str, np.ndarray]  # measure name -> value per qrels query
    present: np.ndarray  # per qrels query: retrieved anything
    run_qids: list[str]  # the run's query ids, in its order
    ignored: list[str]  # run queries not in the qrels
    unjudged: dict[int, np.ndarray]  # cutoff k -> per qrels query, retrieved docs in the top k without a judgment


def ledger_cutoffs(measures: list[Measure]) -> list[int]:
    return sorted({m.cutoff for m in measures if m.cutoff is not None}) or [10]  # type: ignore[misc]


def score_run(run: Any, name: str, index: QrelsIndex, measures: list[Measure], rel_threshold: int,
              max_docs: int | None, judged_only: bool, sub: SubtopicQrels | None) -> ScoredRun:
    """Every measure of ``run`` (a :class:`~hcrbench.data.Run` or ``{qid: {doc: score}}``) for every qrels query.

    Each query's values depend on its own lines only, so scoring batches of whole queries and taking each batch's
    ``present`` rows gives the whole run's values (:mod:`hcrbench.metrics.stream`)."""
    enc, run_qids, ignored = encode_run(run, index, name)
    hits = rank_hits(enc, index.n_queries)
    if max_docs is not None or judged_only:
        hits = restrict_hits(hits, max_docs, judged_only)
    present = np.zeros(index.n_queries, dtype=bool)
    present[enc.row_query] = True
    n_retrieved = int(hits.n_ret[present].sum())
    if n_retrieved and not bool((hits.grade >= 0).any()):  # every score 0, from ids of another collection
        warnings.warn(f"run {name!r}: none of its {n_retrieved} retrieved documents is judged in the qrels "
                      "(document ids of another collection? every score is 0; hcrbench validate RUN --qrels "
                      "QRELS fails on it)", HcrbenchWarning, stacklevel=3)
    plain = [m for m in measures if m.kind not in ("alpha_nDCG", FOREIGN) and not m.judged_only]
    computed = compute_all(plain, hits, index, rel_threshold)
    judged = [m for m in measures if m.judged_only and m.kind not in ("alpha_nDCG", FOREIGN)]
    if judged:  # ir_measures' per-measure judged_only: trec_eval -J for these measures only
        computed.update(compute_all(judged, restrict_hits(hits, None, True), index, rel_threshold))
    foreign = [m for m in measures if m.kind == FOREIGN]
    if foreign:
        computed.update(foreign_values(foreign, index.qrels, run, index.qrels.query_ids, max_docs,
                                       bool(judged_only)))
    for m in measures:
        if m.kind == "alpha_nDCG":
            by_q = alpha_ndcg(sub, run, int(m.cutoff), float(m.param("alpha")),  # type: ignore[arg-type]
                              threshold=m.threshold(rel_threshold))
            computed[m.name] = np.array([by_q.get(q, 0.0) for q in index.qrels.query_ids], dtype=np.float64)
    unj = {k: _unjudged_per_query(hits, k, index.n_queries) for k in ledger_cutoffs(measures)}
    return ScoredRun(computed, present, run_qids, ignored, unj)


def finish_run(name: str, scored: ScoredRun, index: QrelsIndex, measures: list[Measure], rel_threshold: int,
               missing: str, max_docs: int | None, judged_only: bool) -> RunEvaluation:
    """The :class:`RunEvaluation` of a scored run: rows by the missing policy, the warnings, the ledger."""
    all_qids = index.qrels.query_ids
    present, run_qids, ignored = scored.present, scored.run_qids, scored.ignored
    n_rel = index.n_relevant(rel_threshold)
    missing_ids = [q for q, p in zip(all_qids, present.tolist()) if not p]
    rows = np.arange(index.n_queries) if missing == "zero" else np.flatnonzero(present)
    if not present.any():  # almost surely mismatched ids; averaging zeros would hide it
        raise InputError(f"run {name!r} shares no query with the qrels (first run ids: "
                         f"{_preview(run_qids)}; first qrels ids: {_preview(all_qids)})", field="query_id")
    if ignored:
        warnings.warn(f"run {name!r}: {len(ignored)} queries not in the qrels are ignored: "
                      f"{_preview(ignored)}", HcrbenchWarning, stacklevel=3)
    if missing_ids:
        what = "counted as 0" if missing == "zero" else "left out of the means"
        warnings.warn(f"run {name!r}: {len(missing_ids)} qrels queries absent from the run are {what}: "
                      f"{_preview(missing_ids)}", HcrbenchWarning, stacklevel=3)
    values = {m.name: scored.computed[m.name][rows] for m in measures}
    qids = [all_qids[i] for i in rows.tolist()]
    unj = {k: int(v[rows].sum()) for k, v in scored.unjudged.items()}
    ledger = Ledger(
        n_queries_averaged=len(qids),
        zero_filled=missing_ids if missing == "zero" else [],
        skipped=missing_ids if missing == "skip" else [],
        ignored=ignored,
        no_relevant=[all_qids[i] for i in rows.tolist() if n_rel[i] == 0],
        unjudged_at_k={k: {"total": t, "mean": t / len(qids)} for k, t in unj.items()},
        rel_threshold=int(rel_threshold),
        missing_policy=missing,
        n_qrels_queries=index.n_queries,
        n_run_queries=len(run_qids),
        max_docs=None if max_docs is None else int(max_docs),
        judged_only=bool(judged_only),
    )
    return RunEvaluation(name, qids, values, ledger, list(measures))


def _letter(i: int) -> str:
    """The i-th run's letter in ranx's tables (a, b, ..., z, then a1, b1, ...; as hcrbench.stats.letters)."""
    return "abcdefghijklmnopqrstuvwxyz"[i % 26] + (str(i // 26) if i >= 26 else "")
