"""Text-only query expansion for multi-hop policies: what a retrieved chunk points at, as new queries.

An expander reads the chunks a hop found and returns short expansion queries, at most ``max_queries`` (5) per
hop, deduplicated, none repeating the question or an earlier hop's query. It reads only text, so it is fair to
every chunker and every retriever (no model, no index access). Two built-ins:

- ``prose``: identifiers (``HR-POL-043``, ``INC-2024-0117``, ``DEC-031``), quoted phrases, and capitalised
  multi-word phrases (person, team and system names: ``Rahul Rossi``, ``Helix HRIS``), leading articles dropped.
- ``code``: imported names (``from a.b import c`` gives ``c``), called functions and classes (``foo(``,
  ``obj.bar(``, ``Baz(``), skipping Python keywords, builtins, dunder names and names of two characters or less.

Candidates are taken chunk by chunk in rank order (identifiers before names within a chunk), so the best chunk
speaks first. Plug in your own with :func:`register_expander` (a callable ``(question, texts, seen) -> list``).
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable, Iterable, Sequence

MAX_EXPANSIONS = 5

Expander = Callable[[str, Sequence[str], set[str]], list[str]]
"""``(question, chunk_texts_in_rank_order, seen_lowercased) -> expansion queries`` (``seen`` is read-only)."""

_IDENT = re.compile(r"\b[A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]{1,10})+\b")
_QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d\n]{3,60})[\"\u201d]")
_CAP_WORD = r"(?:[A-Z][a-z0-9]+|[A-Z]{2,}[a-z]*)(?:['\u2019]s)?"
_CAP_PHRASE = re.compile(rf"\b{_CAP_WORD}(?:[ \t]+(?:of[ \t]+|the[ \t]+|and[ \t]+|&[ \t]+)?{_CAP_WORD})+\b")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_LEADING = _words("""the a an this that these those our its his her their all each every some any and or but
    if when while after before since until as at by for from in into of on onto to with within without via per
    during under over about what who whom whose which where why how is are was were be been do does did can could
    should would will may might must shall please note see also version""")


def _clean_phrase(p: str) -> str:
    words = p.split()
    while words and words[0].lower() in _LEADING:
        words.pop(0)
    while words and words[-1].lower() in _LEADING:
        words.pop()
    words = [w[:-2] if w.endswith(("'s", "\u2019s")) else w for w in words]
    return " ".join(words)


def _take(cands: Iterable[str], question_l: str, seen: set[str], out: list[str], limit: int) -> None:
    for c in cands:
        if len(out) >= limit:
            return
        key = c.lower()
        if not c or key in seen or key in question_l or any(key == o.lower() for o in out):
            continue
        out.append(c)


def _without(phrase: str, known: list[str]) -> str:
    """``phrase`` minus any name the question already gives ("Analyst Rosa Iqbal" -> "Analyst")."""
    for k in known:
        if k and k in phrase:
            phrase = " ".join(phrase.replace(k, " ").split())
    return _clean_phrase(phrase)


def expand_prose(question: str, texts: Sequence[str], seen: set[str], limit: int = MAX_EXPANSIONS) -> list[str]:
    """Identifiers, quoted phrases and capitalised multi-word names in ``texts`` (rank order), new ones only.

    A name the question already gives is cut out of a longer phrase, so only new information is asked."""
    q = question.lower()
    known = [n for n in (_clean_phrase(m) for m in _CAP_PHRASE.findall(question)) if len(n.split()) >= 2]
    out: list[str] = []
    for text in texts:
        idents = _IDENT.findall(text)
        quoted = [m.strip() for m in _QUOTED.findall(text)]
        names = [_without(_clean_phrase(m), known) for m in _CAP_PHRASE.findall(text)]
        names = [n for n in names if len(n.split()) >= 2 or _IDENT.fullmatch(n)]
        _take(idents + quoted + names, q, seen, out, limit)
        if len(out) >= limit:
            break
    return out


_PY_SKIP = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | _words(
    "self cls super print len range isinstance append extend get items keys values join split strip format "
    "startswith endswith replace lower upper pop update add copy encode decode read write close open")
_IMPORT_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([\w, \t\n]+?)\)?[ \t]*$", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+?)[ \t]*$", re.M)
_CALL = re.compile(r"(?<![\w])(?:[A-Za-z_][\w]*\.)*([A-Za-z_]\w*)[ \t]*\(")
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.M)


def _code_names(text: str) -> list[str]:
    names: list[str] = []
    for _mod, items in _IMPORT_FROM.findall(text):
        for it in items.replace("\n", " ").split(","):
            part = it.strip().split(" as ")[0].strip()
            if part and part != "*":
                names.append(part)
    for mods in _IMPORT.findall(text):
        for m in mods.split(","):
            leaf = m.strip().split(" as ")[0].strip().split(".")[-1]
            if leaf:
                names.append(leaf)
    defined = set(_DEF.findall(text))
    for m in _CALL.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if re.match(r"[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]", text[line_start:m.start() + 1]):
            continue  # a definition, not a call
        name = m.group(1)
        if name not in defined:
            names.append(name)
    return [n for n in names if n not in _PY_SKIP and len(n) > 2 and not (n.startswith("__") and n.endswith("__"))]


def expand_code(question: str, texts: Sequence[str], seen: set[str], limit: int = MAX_EXPANSIONS) -> list[str]:
    """Imported names and called functions/classes in ``texts`` (rank order), minus builtins and keywords.

    Names the question itself calls are kept (the question is code; its call names the definition it needs)."""
    out: list[str] = []
    for text in texts:
        for name in _code_names(text):
            if len(out) >= limit:
                return out
            key = name.lower()
            if key in seen or any(key == o.lower() for o in out):
                continue
            out.append(name)
    return out


_EXPANDERS: dict[str, Expander] = {"prose": expand_prose, "code": expand_code}


def register_expander(name: str, fn: Expander) -> None:
    """Make ``fn`` usable as ``expander=name`` in a policy."""
    _EXPANDERS[name] = fn


def get_expander(name: str) -> Expander:
    """The expander registered as ``name`` (InputError listing the known ones otherwise)."""
    from hcrbench.errors import InputError

    fn = _EXPANDERS.get(name)
    if fn is None:
        raise InputError(f"unknown expander {name!r} (available: {', '.join(sorted(_EXPANDERS))})",
                         field="expander")
    return fn
