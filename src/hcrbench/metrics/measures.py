"""Measure names: the ``nDCG@10`` syntax users know from ir_measures, plus trec_eval's names.

A :class:`Measure` is a frozen (kind, cutoff, rel) triple; :func:`parse_measures` turns ``"nDCG@10,R@100,RR"``,
``"P(rel=2)@5"``, ``"ndcg_cut_10"`` or ``"map"`` into them. The one table mapping trec_eval's names to ours is
:data:`TREC_EVAL_NAMES`; the semantics of every kind are documented in ``docs/metrics.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from hcrbench.errors import InputError

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
    "NumRet": ("none", False),
    "NumRelRet": ("none", True),
}

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
    "hits": "Success",
    "rprec": "Rprec",
    "r-prec": "Rprec",
    "r_prec": "Rprec",
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
}
_TREC_CUT_FAMILIES = ("map_cut", "P", "recall", "ndcg_cut", "success", "unj")
_TREC_RE = re.compile(r"^(map_cut|ndcg_cut|P|recall|success|unj)[_.](\d+)$")
_SPEC_RE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z_\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>[^\s@]+))?$"
)


@dataclass(frozen=True)
class Measure:
    """One measure: ``kind`` (e.g. ``"nDCG"``), an optional rank ``cutoff`` and an optional ``rel`` threshold.

    ``rel`` overrides the evaluation's ``rel_threshold`` for this measure only (ir_measures' ``P(rel=2)@5``).
    """

    kind: str
    cutoff: int | None = None
    rel: int | None = None

    @property
    def name(self) -> str:
        """Canonical string, e.g. ``nDCG@10``, ``P(rel=2)@5``, ``AP``."""
        s = self.kind
        if self.rel is not None:
            s += f"(rel={self.rel})"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        return s

    def __str__(self) -> str:
        return self.name

    def threshold(self, default: int) -> int:
        """The relevance threshold this measure uses in an evaluation whose threshold is ``default``."""
        return default if self.rel is None else self.rel


def _split_top_level(spec: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    parts, depth, cur = [], 0, []
    for ch in spec:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


#: Largest cutoff accepted: no ranking is that deep, and larger ones overflow fixed-width arrays.
MAX_CUTOFF = 10**9


def _int(text: str, what: str, spec: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"{what} must be an integer in measure {spec!r}, got {text!r}", field="metrics") from None


def parse_measure(spec: str | Measure) -> Measure:
    """Parse one measure string (ours, ir_measures' or trec_eval's name). Raises :class:`InputError`."""
    if isinstance(spec, Measure):
        return spec
    if not isinstance(spec, str):
        raise InputError(f"a measure must be a string, got {type(spec).__name__}", field="metrics")
    text = spec.strip()
    m = _TREC_RE.match(text)
    if m:
        kind, cutoff, rel = TREC_EVAL_NAMES[m.group(1)], _int(m.group(2), "cutoff", spec), None
    else:
        m = _SPEC_RE.match(text)
        if not m:
            raise InputError(f"cannot parse measure {spec!r} (expected e.g. nDCG@10, P(rel=2)@5, map)",
                             field="metrics")
        name = m.group("name")
        kind = TREC_EVAL_NAMES.get(name) if name not in _TREC_CUT_FAMILIES else None
        kind = kind or (name if name in KINDS else _ALIASES.get(name.lower()))
        if kind is None:
            known = ", ".join(KINDS)
            raise InputError(f"unknown measure {name!r} in {spec!r} (known: {known})", field="metrics")
        cutoff = _int(m.group("cutoff"), "cutoff", spec) if m.group("cutoff") is not None else None
        rel = None
        for param in filter(None, (p.strip() for p in (m.group("params") or "").split(","))):
            key, _, value = param.partition("=")
            if key.strip() != "rel" or not value.strip():
                raise InputError(f"unknown parameter {param!r} in measure {spec!r} (only rel=N)", field="metrics")
            rel = _int(value.strip(), "rel", spec)
    need_cutoff, takes_rel = KINDS[kind]
    if cutoff is not None and cutoff < 1:
        raise InputError(f"cutoff must be a positive integer in measure {spec!r}", field="metrics")
    if cutoff is not None and cutoff > MAX_CUTOFF:
        raise InputError(f"cutoff {cutoff} is absurd (at most {MAX_CUTOFF:,})", field=text)
    if need_cutoff == "required" and cutoff is None:
        raise InputError(f"measure {spec!r} needs a cutoff, e.g. {kind}@10", field="metrics")
    if need_cutoff == "none" and cutoff is not None:
        raise InputError(f"measure {kind} takes no cutoff (got {spec!r})", field="metrics")
    if rel is not None and not takes_rel:
        why = "uses raw grades as gains" if kind == "nDCG" else "does not use relevance"
        raise InputError(f"measure {kind} {why}; rel= is not allowed (got {spec!r})", field="metrics")
    return Measure(kind, cutoff, rel)


def parse_measures(spec: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse ``"nDCG@10,R@100,RR"`` or a list of such strings into measures (duplicates dropped, order kept)."""
    items: list[str | Measure]
    if isinstance(spec, (str, Measure)):
        items = _split_top_level(spec) if isinstance(spec, str) else [spec]
    else:
        items = []
        for s in spec:
            items.extend(_split_top_level(s) if isinstance(s, str) else [s])
    out: list[Measure] = []
    for item in items:
        measure = parse_measure(item)
        if measure not in out:
            out.append(measure)
    if not out:
        raise InputError("no measures given", field="metrics")
    return out


def trec_eval_name(measure: Measure) -> str | None:
    """trec_eval's name for ``measure`` (``ndcg_cut_10``, ``map``...), or None when trec_eval has none."""
    if measure.rel is not None:
        return None
    k = measure.cutoff
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
    }
    return table.get(measure.kind)
