"""Measure names: the ``nDCG@10`` syntax users know from ir_measures, plus trec_eval's names.

A :class:`Measure` is a frozen (kind, cutoff, rel, params) record; :func:`parse_measures` turns
``"nDCG@10,R@100,RR"``, ``"P(rel=2)@5"``, ``"RBP(p=0.9)"``, ``"ndcg_cut_10"``, ``"ndcg_cut.5,10"`` or ``"map"``
into them. This is the project's one measure registry: :data:`KINDS` (cutoff policy, rel=), :data:`PARAMS` (other
parameters and their defaults), the aliases, and :data:`TREC_EVAL_NAMES`; the gate parses its metric names here
too. The semantics of every kind are documented in ``docs/metrics.md``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from hcrbench.errors import InputError
from hcrbench.metrics.foreign import FOREIGN, ir_measures_name

# kind -> (cutoff: "required" | "optional" | "none", accepts a rel= threshold)
KINDS: dict[str, tuple[str, bool]] = {
    "nDCG": ("optional", False),
    "P": ("required", True),
    "R": ("required", True),
    "RR": ("optional", True),
    "AP": ("optional", True),
    "Success": ("required", True),
    "Rprec": ("none", True),
    "Judged": ("optional", False),
    "Unjudged": ("required", False),
    "NumRel": ("none", True),
    "NumRet": ("none", True),  # NumRet(rel=r): retrieved docs with grade >= r (ir_measures)
    "NumRelRet": ("none", True),
    "Hits": ("optional", True),  # ranx hits@k: the number of relevant docs in the top k
    "Bpref": ("none", True),
    "infAP": ("none", True),
    "GMAP": ("none", True),
    "IPrec": ("recall", True),  # IPrec@0.1: interpolated precision at recall 0.1
    "11pt_avg": ("none", True),
    "SetP": ("none", True),
    "SetR": ("none", True),
    "SetF": ("none", True),
    "ERR": ("required", False),
    "nERR": ("required", False),
    "RBP": ("optional", True),
    "alpha_nDCG": ("required", True),  # subtopic qrels: evaluate(..., subtopics=) or a qrels file's 2nd column
    "DCG": ("optional", False),  # ranx dcg@k (linear gains) / dcg_burges@k (2^g - 1): nDCG's numerator
    "F1": ("optional", True),  # ranx f1@k: harmonic mean of P@k and R@k (without a cutoff: of set P and R)
}

#: kind -> {parameter: (type, default)} besides ``rel``. A parameter equal to its default is dropped, so
#: ``RBP(p=0.8)`` and ``RBP`` are the same measure.
PARAMS: dict[str, dict[str, tuple[type, object]]] = {
    "nDCG": {"dcg": (str, "log2"), "gains": (dict, None)},
    "DCG": {"dcg": (str, "log2")},
    "RBP": {"p": (float, 0.8)},
    "SetF": {"beta": (float, 1.0)},
    "ERR": {"max": (int, 4)},
    "nERR": {"max": (int, 4)},
    "alpha_nDCG": {"alpha": (float, 0.5)},
}
#: Allowed values of string parameters.
CHOICES: dict[tuple[str, str], tuple[str, ...]] = {("nDCG", "dcg"): ("log2", "exp-log2"),
                                                   ("DCG", "dcg"): ("log2", "exp-log2")}

# Case-insensitive aliases of the kinds (ir_measures spellings and common variants).
_ALIASES: dict[str, str] = {
    "ndcg": "nDCG",
    "p": "P",
    "prec": "P",
    "precision": "P",
    "r": "R",
    "recall": "R",
    "rr": "RR",
    "mrr": "RR",
    "recip_rank": "RR",
    "ap": "AP",
    "map": "AP",
    "success": "Success",
    "s": "Success",
    "hit": "Success",
    "hit_rate": "Success",
    "hitrate": "Success",
    "hits": "Hits",  # ranx: a count, never a success rate
    "bpref": "Bpref",
    "infap": "infAP",
    "gmap": "GMAP",
    "gm_map": "GMAP",
    "iprec": "IPrec",
    "iprec_at_recall": "IPrec",
    "11pt_avg": "11pt_avg",
    "11pt": "11pt_avg",
    "setp": "SetP",
    "set_p": "SetP",
    "setr": "SetR",
    "set_recall": "SetR",
    "setf": "SetF",
    "set_f": "SetF",
    "err": "ERR",
    "nerr": "nERR",
    "alpha_ndcg": "alpha_nDCG",
    "alpha-ndcg": "alpha_nDCG",
    "rbp": "RBP",  # (the exact lower-case ``rbp`` is trec_eval's, p = 0.9: see _PARAM_ALIASES)
    "rprec": "Rprec",
    "r-prec": "Rprec",
    "r_prec": "Rprec",
    "r-precision": "Rprec",  # ranx
    "r_precision": "Rprec",
    "dcg": "DCG",  # ranx (linear gains, as trec_eval's ndcg)
    "f1": "F1",  # ranx
    "judged": "Judged",
    "unjudged": "Unjudged",
    "unj": "Unjudged",
    "numrel": "NumRel",
    "num_rel": "NumRel",
    "numret": "NumRet",
    "num_ret": "NumRet",
    "numrelret": "NumRelRet",
    "num_rel_ret": "NumRelRet",
}

#: trec_eval measure name (``-m`` name, cutoff written ``_k``) -> our kind. ``map``/``recip_rank``/``Rprec``/
#: ``ndcg``/``num_*`` take no cutoff; the ``*_cut``/``P``/``recall``/``success``/``unj`` families take ``_k``.
TREC_EVAL_NAMES: dict[str, str] = {
    "map": "AP",
    "map_cut": "AP",
    "recip_rank": "RR",
    "P": "P",
    "recall": "R",
    "ndcg": "nDCG",
    "ndcg_cut": "nDCG",
    "Rprec": "Rprec",
    "success": "Success",
    "unj": "Unjudged",
    "num_rel": "NumRel",
    "num_ret": "NumRet",
    "num_rel_ret": "NumRelRet",
    "bpref": "Bpref",
    "infAP": "infAP",
    "gm_map": "GMAP",
    "iprec_at_recall": "IPrec",
    "11pt_avg": "11pt_avg",
    "set_P": "SetP",
    "set_recall": "SetR",
    "set_F": "SetF",
}
_TREC_CUT_FAMILIES = ("map_cut", "P", "recall", "ndcg_cut", "success", "unj", "iprec_at_recall")
_TREC_RE = re.compile(r"^(map_cut|ndcg_cut|P|recall|success|unj)[_.](\d+)$")
_TREC_IPREC_RE = re.compile(r"^iprec_at_recall[_.]([0-9]*\.?[0-9]+)$")
#: Other tools' names that carry a parameter: ranx's ``ndcg_burges`` is nDCG with exponential gains.
_PARAM_ALIASES: dict[str, tuple[str, tuple[tuple[str, object], ...]]] = {
    "ndcg_burges": ("nDCG", (("dcg", "exp-log2"),)),
    "dcg_burges": ("DCG", (("dcg", "exp-log2"),)),
    "rbp": ("RBP", (("p", 0.9),)),  # trec_eval's rbp defaults to p = 0.9 (ir_measures' RBP to 0.8)
}
_SPEC_RE = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>[^\s@]+))?$"
)


@dataclass(frozen=True)
class Measure:
    """One measure: ``kind`` (e.g. ``"nDCG"``), an optional rank ``cutoff``, an optional ``rel`` threshold and
    other ``params`` as sorted ``(name, value)`` pairs (``RBP``'s ``p``, nDCG's ``dcg``, IPrec's ``recall``...).

    ``rel`` overrides the evaluation's ``rel_threshold`` for this measure only (ir_measures' ``P(rel=2)@5``).
    Parameters equal to their default are never stored, so equal measures compare equal.
    """

    kind: str
    cutoff: int | None = None
    rel: int | None = None
    params: tuple[tuple[str, object], ...] = ()
    judged_only: bool = False  # ir_measures' per-measure judged_only: unjudged docs dropped for this one only

    @property
    def name(self) -> str:
        """Canonical string, e.g. ``nDCG@10``, ``P(rel=2)@5``, ``AP``, ``RBP(p=0.9)``, ``IPrec@0.1``; a measure
        computed through ir_measures is ``ir_measures:`` + ir_measures' own name (``ir_measures:Compat(p=0.8)``)."""
        if self.kind == FOREIGN:
            return f"{FOREIGN}:{self.params[0][1]}"
        s = self.kind
        shown = [f"rel={self.rel}"] if self.rel is not None else []
        shown += [f"{k}={_fmt(v)}" for k, v in self.params if k != "recall"]
        shown += ["judged_only=True"] if self.judged_only else []
        if shown:
            s += "(" + ",".join(shown) + ")"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        elif self.kind == "IPrec":
            s += f"@{_fmt(self.param('recall'))}"
        return s

    def __str__(self) -> str:
        return self.name

    def threshold(self, default: int) -> int:
        """The relevance threshold this measure uses in an evaluation whose threshold is ``default``."""
        return default if self.rel is None else self.rel

    def param(self, key: str) -> object:
        """A parameter's value, its default when not given (KeyError for a parameter the kind does not take)."""
        for k, v in self.params:
            if k == key:
                return v
        if key == "recall":
            raise KeyError(key)
        return PARAMS[self.kind][key][1]


def _fmt(v: object) -> str:
    if isinstance(v, tuple):  # a gain map
        return "{" + ",".join(f"{g}:{x}" for g, x in v) + "}"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _split_outside(text: str, opening: str, closing: str) -> list[str]:
    """Split on the commas that are not inside ``opening``...``closing`` pairs; strip and drop empty parts."""
    parts, depth, cur = [], 0, []
    for ch in text:
        depth += (ch == opening) - (ch == closing)
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _split_params(text: str) -> list[str]:
    """Split ``rel=2,gains={0:0,1:1}`` on the commas outside braces."""
    return _split_outside(text, "{", "}")


def _split_top_level(spec: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    return _split_outside(spec, "(", ")")


#: Largest cutoff accepted: no ranking is that deep, and larger ones overflow fixed-width arrays.
MAX_CUTOFF = 10**9


def _int(text: str, what: str, spec: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"{what} must be an integer in measure {spec!r}, got {text!r}", field="metrics") from None


def _recall_level(text: str, spec: str) -> float:
    try:
        level = float(text)
    except ValueError:
        level = math.nan
    if not 0.0 <= level <= 1.0:
        raise InputError(f"recall level must be a number in [0, 1] in measure {spec!r}, got {text!r}",
                         field="metrics")
    return level


def _gain_map(value: str, spec: str) -> tuple[tuple[int, int], ...]:
    """``{0:0,1:1,2:3}`` -> ((0, 0), (1, 1), (2, 3)): ir_measures' int-to-int gain mapping."""
    body = value.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise InputError(f"gains must look like {{0:0,1:1,2:3}} in measure {spec!r}, got {value!r}", field="metrics")
    pairs = []
    for item in filter(None, (x.strip() for x in body[1:-1].split(","))):
        g, sep, v = item.partition(":")
        if not sep:
            raise InputError(f"gains must look like {{0:0,1:1,2:3}} in measure {spec!r}, got {value!r}",
                             field="metrics")
        pairs.append((_int(g.strip(), "grade", spec), _int(v.strip(), "gain", spec)))
    if not pairs or len({g for g, _ in pairs}) < len(pairs):
        raise InputError(f"gains must map each grade once in measure {spec!r}", field="metrics")
    return tuple(sorted(pairs))


def _param_value(kind: str, key: str, value: str, spec: str) -> object:
    typ, _ = PARAMS[kind][key]
    if typ is dict:
        return _gain_map(value, spec)
    if typ is str:
        allowed = CHOICES.get((kind, key))
        if allowed and value not in allowed:
            raise InputError(f"{key} must be one of {', '.join(allowed)} in measure {spec!r}, got {value!r}",
                             field="metrics")
        return value
    if typ is int:
        v = _int(value, key, spec)
        if v < 1:
            raise InputError(f"{key} must be a positive integer in measure {spec!r}", field="metrics")
        return v
    try:
        f = float(value)
    except ValueError:
        f = math.nan
    if key in ("p", "alpha") and not 0.0 < f < 1.0:
        raise InputError(f"{key} must be a number in (0, 1) in measure {spec!r}, got {value!r}", field="metrics")
    if not (math.isfinite(f) and f > 0):
        raise InputError(f"{key} must be a positive number in measure {spec!r}, got {value!r}", field="metrics")
    return f


def _lookup_kind(name: str) -> tuple[str | None, tuple[tuple[str, object], ...]]:
    if name in _PARAM_ALIASES:  # exact case: ``rbp`` is trec_eval's, ``RBP`` ir_measures'
        return _PARAM_ALIASES[name]
    if name.lower() in ("ndcg_burges", "dcg_burges"):
        return _PARAM_ALIASES[name.lower()]
    kind = TREC_EVAL_NAMES.get(name) if name not in _TREC_CUT_FAMILIES else None
    return kind or (name if name in KINDS else _ALIASES.get(name.lower())), ()


def known_names() -> list[str]:
    """Every measure name the parser knows (kinds, aliases, trec_eval and other tools' names)."""
    return sorted({*KINDS, *_ALIASES, *TREC_EVAL_NAMES, *_PARAM_ALIASES})


def _did_you_mean(name: str) -> str:
    """`` (did you mean 'map'?)``: up to three close known spellings, one per measure they name."""
    import difflib

    lower: dict[str, str] = {}
    for n in known_names():
        lower.setdefault(n.lower(), n)
    picked: dict[object, str] = {}
    for c in difflib.get_close_matches(name.lower(), list(lower), n=8, cutoff=0.6):
        picked.setdefault(_lookup_kind(lower[c]), lower[c])
    close = list(picked.values())[:3]
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)" if close else ""


def is_foreign_measure(obj: object) -> bool:
    """An ir_measures ``Measure`` object (checked without importing ir_measures); ``str()`` gives its name."""
    return type(obj).__module__.split(".")[0] == "ir_measures" and hasattr(obj, "NAME")




def foreign_measure(spec: str, explain: bool = True) -> Measure | None:
    """``spec`` as a measure computed through ir_measures (:mod:`hcrbench.metrics.foreign`), or None."""
    name = ir_measures_name(spec, explain)
    return None if name is None else Measure(FOREIGN, params=(("measure", name),))


def parse_measure(spec: str | Measure) -> Measure:
    """Parse one measure: a string (ours, ir_measures', ranx's or trec_eval's name), a :class:`Measure` or an
    ir_measures measure object (``ir_measures.nDCG@10``). A valid ir_measures measure that hcrbench does not
    compute itself (``Compat(p=0.8)``, ``SDCG(max_rel=2)@10``, ``NumQ``...), or any spelled ``ir_measures:X``, is
    computed through ir_measures and named ``ir_measures:X``. Raises :class:`InputError`."""
    if isinstance(spec, Measure):
        return spec
    if is_foreign_measure(spec):
        spec = str(spec)
    if not isinstance(spec, str):
        raise InputError(f"a measure must be a string like 'nDCG@10', an hcrbench Measure or an ir_measures "
                         f"measure, got {type(spec).__name__}", field="metrics")
    if spec.strip().startswith(f"{FOREIGN}:"):
        forced = foreign_measure(spec)
        if forced is None:
            raise InputError(f"ir_measures (installed: pip install ir_measures) does not know {spec!r}",
                             field="metrics")
        return forced
    try:
        return _parse_own(spec)
    except InputError as e:
        if "unknown measure" in e.problem or "unknown parameter" in e.problem:
            theirs = foreign_measure(spec, explain="unknown measure" in e.problem)
            if theirs is not None:
                return theirs
        raise


_RANX_LEVEL = re.compile(r"^(?P<base>.+?)-l(?P<level>[A-Za-z0-9_.+]*)$")


def _parse_own(spec: str) -> Measure:
    level = _RANX_LEVEL.match(spec.strip())
    if level:
        return _ranx_level(spec, level.group("base"), level.group("level"))
    return _parse_plain(spec)


def _ranx_level(spec: str, base: str, level: str) -> Measure:
    """ranx's relevance-level suffix (``precision@10-l2``: judgments below grade 2 dropped) as ``rel=2``, for
    the measures that take ``rel=``; the others are refused saying why."""
    if not level.isdigit():
        raise InputError(f"ranx's relevance level must be an integer grade in measure {spec!r} (e.g. "
                         f"precision@10-l2), got {level!r}", field="metrics")
    measure = _parse_plain(base)
    if not KINDS[measure.kind][1]:
        why = "uses raw grades as gains" if measure.kind in ("nDCG", "DCG", "ERR", "nERR") else \
            "does not use a relevance threshold"
        raise InputError(f"ranx's relevance level '-l{level}' in {spec!r} drops judgments below grade {level}; "
                         f"hcrbench's {measure.kind} {why} and takes no level (write {measure.name}; measures "
                         f"with a threshold take it as P(rel={level})@10 or P@10-l{level})", field="metrics")
    if measure.rel is not None and measure.rel != int(level):
        raise InputError(f"two relevance thresholds in measure {spec!r}", field="metrics")
    return Measure(measure.kind, measure.cutoff, int(level), measure.params, measure.judged_only)


def _parse_plain(spec: str) -> Measure:
    text = spec.strip()
    judged_only = False
    params: dict[str, object] = {}
    rel = None
    m = _TREC_RE.match(text)
    mi = _TREC_IPREC_RE.match(text)
    if m:
        kind, cutoff = TREC_EVAL_NAMES[m.group(1)], _int(m.group(2), "cutoff", spec)
    elif mi:
        kind, cutoff = "IPrec", None
        params["recall"] = _recall_level(mi.group(1), spec)
    else:
        m = _SPEC_RE.match(text)
        if not m:
            raise InputError(f"cannot parse measure {spec!r} (expected e.g. nDCG@10, P(rel=2)@5, map)",
                             field="metrics")
        name = m.group("name")
        kind, fixed = _lookup_kind(name)
        if kind is None:
            raise InputError(f"unknown measure {name!r} in {spec!r}{_did_you_mean(name)} (known: "
                             f"{', '.join(KINDS)}; docs/metrics.md lists every spelling)", field="metrics")
        params.update(fixed)
        cutoff = None
        if m.group("cutoff") is not None:
            if KINDS[kind][0] == "recall":
                params["recall"] = _recall_level(m.group("cutoff"), spec)
            else:
                cutoff = _int(m.group("cutoff"), "cutoff", spec)
        allowed = PARAMS.get(kind, {})
        for param in _split_params(m.group("params") or ""):
            key, _, value = (x.strip() for x in param.partition("="))
            value = value.strip("'\"").replace(" ", "")  # ir_measures quotes strings: nDCG(dcg='exp-log2')
            if key == "cutoff" and value:  # ir_measures' keyword spelling: nDCG(cutoff=10) is nDCG@10
                given = _int(value, "cutoff", spec)
                if cutoff is not None and cutoff != given:
                    raise InputError(f"two cutoffs in measure {spec!r}", field="metrics")
                cutoff = given
                continue
            if key == "judged_only" and value.lower() in ("true", "false", "1", "0"):
                judged_only = value.lower() in ("true", "1")
                continue
            if not value or (key != "rel" and key not in allowed):
                known = ", ".join(["rel=N", "cutoff=N", "judged_only=True", *(f"{k}=..." for k in allowed)])
                raise InputError(f"unknown parameter {param!r} in measure {spec!r} (only {known})", field="metrics")
            if key == "rel":
                rel = _int(value, "rel", spec)
            else:
                params[key] = _param_value(kind, key, value, spec)
    need_cutoff, takes_rel = KINDS[kind]
    if cutoff is not None and cutoff < 1:
        raise InputError(f"cutoff must be a positive integer in measure {spec!r}", field="metrics")
    if cutoff is not None and cutoff > MAX_CUTOFF:
        raise InputError(f"cutoff {cutoff} is absurd (at most {MAX_CUTOFF:,})", field=text)
    if need_cutoff == "required" and cutoff is None:
        raise InputError(f"measure {spec!r} needs a cutoff, e.g. {kind}@10", field="metrics")
    if need_cutoff == "recall" and "recall" not in params:
        raise InputError(f"measure {spec!r} needs a recall level, e.g. {kind}@0.1", field="metrics")
    if need_cutoff == "none" and cutoff is not None:
        raise InputError(f"measure {kind} takes no cutoff (got {spec!r})", field="metrics")
    if rel is not None and not takes_rel:
        why = "uses raw grades as gains" if kind in ("nDCG", "DCG", "ERR", "nERR") else "does not use relevance"
        raise InputError(f"measure {kind} {why}; rel= is not allowed (got {spec!r})", field="metrics")
    defaults = PARAMS.get(kind, {})
    kept = tuple(sorted((k, v) for k, v in params.items() if k == "recall" or v != defaults[k][1]))
    return Measure(kind, cutoff, rel, kept, judged_only)


_BARE_CUTOFF = re.compile(r"^[0-9]*\.?[0-9]+$")
_TREC_FAMILY = re.compile(r"^(map_cut|ndcg_cut|P|recall|success|unj|iprec_at_recall)[_.]")


def _expand_trec_cutoffs(items: list[str | Measure]) -> list[str | Measure]:
    """trec_eval's multi-cutoff syntax: ``ndcg_cut.5,10`` (split on the comma) is ``ndcg_cut.5, ndcg_cut.10``."""
    out: list[str | Measure] = []
    family: str | None = None
    for item in items:
        if isinstance(item, str) and family is not None and _BARE_CUTOFF.match(item):
            out.append(f"{family}_{item}")
            continue
        fam = _TREC_FAMILY.match(item) if isinstance(item, str) else None
        family = fam.group(1) if fam else None
        out.append(item)
    return out


def parse_measures(spec: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse ``"nDCG@10,R@100,RR"`` or a list of such strings into measures (duplicates dropped, order kept).

    trec_eval's multi-cutoff names work too: ``"ndcg_cut.5,10,P.5,20"`` is nDCG@5, nDCG@10, P@5, P@20.
    """
    items: list[str | Measure]
    if is_foreign_measure(spec):
        spec = str(spec)
    if isinstance(spec, (str, Measure)):
        items = _split_top_level(spec) if isinstance(spec, str) else [spec]
    else:
        items = []
        for s in spec:
            s = str(s) if is_foreign_measure(s) else s
            items.extend(_split_top_level(s) if isinstance(s, str) else [s])
    out: list[Measure] = []
    for item in _expand_trec_cutoffs(items):
        measure = parse_measure(item)
        if measure not in out:
            out.append(measure)
    if not out:
        raise InputError("no measures given", field="metrics")
    return out


def trec_eval_name(measure: Measure) -> str | None:
    """trec_eval's name for ``measure`` (``ndcg_cut_10``, ``map``...), or None when trec_eval has none."""
    if measure.rel is not None or measure.judged_only or measure.kind == FOREIGN:
        return None
    k = measure.cutoff
    if measure.kind == "IPrec":
        return f"iprec_at_recall_{measure.param('recall'):.2f}"
    if measure.params:
        return None
    table = {
        "AP": "map" if k is None else f"map_cut_{k}",
        "RR": "recip_rank" if k is None else None,
        "P": f"P_{k}",
        "R": f"recall_{k}",
        "nDCG": "ndcg" if k is None else f"ndcg_cut_{k}",
        "Rprec": "Rprec",
        "Success": f"success_{k}",
        "Unjudged": f"unj_{k}",
        "NumRel": "num_rel",
        "NumRet": "num_ret",
        "NumRelRet": "num_rel_ret",
        "Bpref": "bpref",
        "infAP": "infAP",
        "GMAP": "gm_map",
        "11pt_avg": "11pt_avg",
        "SetP": "set_P",
        "SetR": "set_recall",
        "SetF": "set_F",
    }
    return table.get(measure.kind)
