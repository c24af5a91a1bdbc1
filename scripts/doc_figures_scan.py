"""What ``scripts/doc_figures.py --scan`` looks for: figures outside generated blocks, named or not.

Two kinds of figure outside a block are found: a Markdown table with a measured-looking figure (a decimal number or
a percentage) in a data row, and a paragraph of prose with one. Each must be named in docs/figures/unmarked.toml
with a kind and a reason (``[[table]]`` / ``[[prose]]``, keyed by a hash of its text, so an edited one is flagged
again), except a paragraph whose every figure appears in a generated block of the same page: it quotes the block,
which --check keeps current. Tables are scanned on every docs page; prose on the pages of :data:`PROSE_PAGES`
(the README and every docs page); a page outside it would have its paragraphs with figures listed by
``--scan --prose-all`` and counted by --scan. A code fence (a console printout, code, a configuration) with
a figure outside the blocks is named as ``[[printout]]``, keyed like a table.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import tomllib

MARK = re.compile(r"^<!-- figures:(start|end) ([A-Za-z0-9_.-]+) -->$")
# the README's quickstart block (scripts/readme_figures.py) is generated too
README_MARK = re.compile(r"^<!-- readme-(?:figures|verdict):(start|end) -->$")
ALLOW = "docs/figures/unmarked.toml"
# why a figure may stand outside a block: it is no measurement; it records an earlier code or generator version
# (today's command would measure today's code); or it is current but not yet generated (its command named)
KINDS = ("not a measurement", "record", "pending")
# pages whose prose is held to the same rule as tables (glob patterns, relative to the repository)
PROSE_PAGES = ("README.md", "docs/*.md")
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?%|(?<![\w.\[/-])[-+]?\d*\.\d+(?![\w.])")


class Problem(Exception):
    """One line for the user, exit 2."""


def pages(root: Path) -> list[Path]:
    return [*sorted((root / "docs").glob("*.md")), root / "README.md"]


def blocks(text: str, page: str) -> dict[str, tuple[int, int, str]]:
    """``{name: (start line index, end line index, body)}`` of a page's blocks (0-based line indices)."""
    lines = text.split("\n")
    out: dict[str, tuple[int, int, str]] = {}
    open_at: tuple[str, int] | None = None
    for i, ln in enumerate(lines):
        m = MARK.match(ln.strip())
        if not m:
            continue
        kind, name = m.groups()
        if kind == "start":
            if open_at is not None:
                raise Problem(f"{page}:{i + 1}: block {name} starts inside block {open_at[0]}")
            if name in out:
                raise Problem(f"{page}:{i + 1}: block {name} appears twice")
            open_at = (name, i)
        else:
            if open_at is None or open_at[0] != name:
                raise Problem(f"{page}:{i + 1}: end of block {name} without its start")
            out[name] = (open_at[1], i, "\n".join(lines[open_at[1] + 1:i]) + "\n")
            open_at = None
    if open_at is not None:
        raise Problem(f"{page}:{open_at[1] + 1}: block {open_at[0]} has no end marker")
    return out


def _outside(lines: list[str]) -> list[bool]:
    """Per line: True when it is outside generated blocks, code fences and HTML comments."""
    out = []
    inside = fence = False
    for ln in lines:
        s = ln.strip()
        m = MARK.match(s) or README_MARK.match(s)
        if m:
            inside = m.group(1) == "start"
            out.append(False)
            continue
        if s.startswith("```"):
            fence = not fence
            out.append(False)
            continue
        out.append(not inside and not fence and not s.startswith("<!--"))
    return out


def block_text(text: str) -> str:
    """Every generated block's body of a page, joined (what a paragraph may quote)."""
    lines = text.split("\n")
    keep, inside = [], False
    for ln in lines:
        m = MARK.match(ln.strip()) or README_MARK.match(ln.strip())
        if m:
            inside = m.group(1) == "start"
        elif inside:
            keep.append(ln)
    return "\n".join(keep)


def tables(text: str) -> list[tuple[int, list[str]]]:
    """Every Markdown table of ``text`` outside blocks and code fences: (first line index, its lines)."""
    lines = text.split("\n")
    ok = _outside(lines)
    out: list[tuple[int, list[str]]] = []
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if ok[i] and s.startswith("|") and i + 1 < len(lines) and re.match(r"^\|\s*:?-{3,}", lines[i + 1].strip()):
            j = i
            while j < len(lines) and lines[j].strip().startswith("|"):
                j += 1
            out.append((i, lines[i:j]))
            i = j
            continue
        i += 1
    return out


def paragraphs(text: str) -> list[tuple[int, str]]:
    """Every paragraph of prose (list items included) outside blocks, fences, tables and headings: (first line
    index, its text joined by newlines)."""
    lines = text.split("\n")
    ok = _outside(lines)
    out: list[tuple[int, str]] = []
    cur: list[str] = []
    start = 0
    for i, ln in enumerate([*lines, ""]):
        s = ln.strip()
        prose = i < len(lines) and ok[i] and s and not s.startswith(("|", "#", "![")) and not ln.startswith("    ")
        if prose:
            if not cur:
                start = i
            cur.append(ln.rstrip())
        elif cur:
            out.append((start, "\n".join(cur)))
            cur = []
    return out


def fences(text: str) -> list[tuple[int, list[str]]]:
    """Every code fence outside generated blocks: (its opening line index, its body lines)."""
    lines = text.split("\n")
    out: list[tuple[int, list[str]]] = []
    inside = False
    start: int | None = None
    for i, ln in enumerate(lines):
        s = ln.strip()
        m = MARK.match(s) or README_MARK.match(s)
        if m and start is None:
            inside = m.group(1) == "start"
            continue
        if s.startswith("```"):
            if start is None:
                start = i
            else:
                if not inside:
                    out.append((start, lines[start + 1:i]))
                start = None
    return out


def fence_figures(body: list[str]) -> list[str]:
    """The figures of a fence's printed lines (a decimal or a percentage; command lines ``$ ...`` left out)."""
    return [f for ln in body if not ln.lstrip().startswith("$ ") for f in NUMBER.findall(ln)]


def has_figures(table: list[str]) -> bool:
    """A data row with a decimal number or a percentage (a measured-looking figure)."""
    return any(NUMBER.search(row) for row in table[2:])


def table_key(table: list[str]) -> str:
    return hashlib.sha256("\n".join(ln.rstrip() for ln in table).encode("utf-8")).hexdigest()[:12]


def prose_key(par: str) -> str:
    """A paragraph's key: its words, whatever the line breaks."""
    return hashlib.sha256(" ".join(par.split()).encode("utf-8")).hexdigest()[:12]


def allowed(root: Path, what: str = "table") -> dict[tuple[str, str], dict]:
    p = root / ALLOW
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise Problem(f"{p}: unreadable ({e})") from None
    out = {}
    for i, t in enumerate(doc.get(what, [])):
        if not (t.get("page") and t.get("key") and t.get("kind") in KINDS and t.get("reason")):
            raise Problem(f"{p}: {what} {i + 1} needs page, key, kind (one of {', '.join(map(repr, KINDS))}) and "
                          f"reason")
        out[t["page"], t["key"]] = t
    return out


def prose_pages(root: Path) -> list[Path]:
    return sorted({p for pat in PROSE_PAGES for p in root.glob(pat) if p.is_file()})


def _value(fig: str) -> tuple[bool, float, int]:
    """``"-12.5%"`` -> (percentage, -12.5, 1 decimal)."""
    pct = fig.endswith("%")
    num = fig.rstrip("%").lstrip("+")
    return pct, float(num), len(num.split(".")[1]) if "." in num else 0


def unquoted(par: str, quoted: str) -> list[str]:
    """The figures of a paragraph that no generated block of its page holds: a figure is quoted when a block's
    figure of the same kind (percentage or not) equals it, or rounds to it at the paragraph's decimals."""
    have = [_value(g) for g in set(NUMBER.findall(quoted))]
    out = []
    for f in dict.fromkeys(NUMBER.findall(par)):
        pct, v, d = _value(f)
        if not any(p == pct and dg >= d and abs(round(g, d) - v) < 1e-9 for p, g, dg in have):
            out.append(f)
    return out


def _prose_msgs(root: Path, p: Path, allow: dict, seen: set) -> list[str]:
    rel = p.relative_to(root).as_posix()
    text = p.read_text(encoding="utf-8")
    quoted = block_text(text)
    msgs = []
    for i, par in paragraphs(text):
        missing = unquoted(par, quoted)
        if not missing:
            continue  # no figure, or every one quoted from a generated block of the page
        key = prose_key(par)
        seen.add((rel, key))
        if (rel, key) not in allow:
            msgs.append(f"{rel}:{i + 1}: figures in prose outside any figures block (key {key}: "
                        f"{', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}; "
                        f"{' '.join(par.split())[:70]!r}): generate them, quote a block of the page, or name the "
                        f"paragraph in {ALLOW} ([[prose]]) with its reason")
    return msgs


def _unnamed_blocks(root: Path, what: str, blocks, figures, *, found, stale, skip_readme: bool = False) -> list[str]:
    """One message per block of a page (``blocks(text)``: tables or code fences) holding figures (``figures(block)``
    non-empty) that the allow-list's ``what`` entries do not name, and per entry that names no block any more."""
    allow, seen, msgs = allowed(root, what), set(), []
    for p in pages(root):
        if not p.is_file() or (skip_readme and p.name == "README.md"):
            continue
        rel = p.relative_to(root).as_posix()
        for i, block in blocks(p.read_text(encoding="utf-8")):
            figs = figures(block)
            if not figs:
                continue
            key = table_key(block)
            seen.add((rel, key))
            if (rel, key) not in allow:
                msgs.append(found(rel, i, key, figs))
    return msgs + [stale(rel, key) for rel, key in allow if (rel, key) not in seen]


def scan(root: Path) -> list[str]:
    """One message per figure table outside a block (every page but the README, whose result block
    scripts/readme_figures.py generates) and per paragraph of figures on :data:`PROSE_PAGES` that the allow-list
    does not name, and per allow-list entry that names nothing any more."""
    msgs = _unnamed_blocks(
        root, "table", tables, lambda t: [t[0].strip()[:80]] if has_figures(t) else [], skip_readme=True,
        found=lambda rel, i, key, what: (f"{rel}:{i + 1}: a table of figures outside any figures block (key {key}, "
                                         f"header {what[0]!r}): generate it (scripts/doc_figures_registry.py) or "
                                         f"name it in {ALLOW} with its reason"),
        stale=lambda rel, key: f"{ALLOW}: {rel} key {key} names no table of that page any more (edited or removed)")
    msgs += _unnamed_blocks(
        root, "printout", fences, fence_figures,
        found=lambda rel, i, key, figs: (f"{rel}:{i + 1}: a code fence with figures outside any figures block (key "
                                         f"{key}: {', '.join(dict.fromkeys(figs[:6]))}): generate it or name it in "
                                         f"{ALLOW} ([[printout]]) with its reason"),
        stale=lambda rel, key: (f"{ALLOW}: {rel} printout key {key} names no code fence of that page any more "
                                f"(edited or removed)"))
    allow_p, seen_p = allowed(root, "prose"), set()
    for p in prose_pages(root):
        msgs += _prose_msgs(root, p, allow_p, seen_p)
    covered = {p.relative_to(root).as_posix() for p in prose_pages(root)}
    for rel, key in allow_p:
        if rel not in covered:
            msgs.append(f"{ALLOW}: prose of {rel} is named but the page is not in PROSE_PAGES")
        elif (rel, key) not in seen_p:
            msgs.append(f"{ALLOW}: {rel} prose key {key} names no paragraph of that page any more (edited or "
                        f"removed)")
    return msgs


def scan_prose_uncovered(root: Path) -> dict[str, list[str]]:
    """The pages outside :data:`PROSE_PAGES`: per page, one line per paragraph with figures no block of it holds."""
    covered = set(prose_pages(root))
    out: dict[str, list[str]] = {}
    for p in pages(root):
        if not p.is_file() or p in covered:
            continue
        msgs = _prose_msgs(root, p, {}, set())
        if msgs:
            out[p.relative_to(root).as_posix()] = msgs
    return out
