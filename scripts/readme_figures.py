#!/usr/bin/env python3
"""The main job's result blocks, generated from the quickstart run they quote, so their figures cannot go stale:

    python scripts/readme_figures.py FOLDER            # print the result block
    python scripts/readme_figures.py FOLDER --write    # replace the blocks of README.md and docs/results.md
    python scripts/readme_figures.py FOLDER --check    # exit 1 (naming the first differing line) when they differ

FOLDER is a quickstart output folder (``verdicts.json``, ``eval.json``, ``manifest.json``). Two blocks, in
whichever of the files holds their markers (``--readme FILE``: that file only):

- the **verdict block** between ``<!-- readme-verdict:start -->`` and ``<!-- readme-verdict:end -->`` (README.md's
  first screen): the lines the console prints at the end of the job, as a new user will see them;
- the **result block** between ``<!-- readme-figures:start -->`` and ``<!-- readme-figures:end -->``
  (docs/results.md): where the figures come from, one row per rule in the verdict block's vocabulary, the overall
verdict and the controls, the field's and the power plan's lines, every system's score on the test split, the
subject against the best simple system, and where the subject's failures happen. Same folder, same bytes.
Exit 2 with one line when the folder's files or the markers are missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hcrbench.data.atomic import atomic_write_text

REPO = Path(__file__).resolve().parents[1]
START, END = "<!-- readme-figures:start -->", "<!-- readme-figures:end -->"
SHORT_START, SHORT_END = "<!-- readme-verdict:start -->", "<!-- readme-verdict:end -->"
#: The files ``--write`` / ``--check`` update by default: the verdict block on the README's first screen, the
#: result block (and its reading) on the docs page the README links.
TARGETS = (REPO / "README.md", REPO / "docs" / "results.md")


class Problem(Exception):
    """One line for the user, exit 2."""


def _read(folder: Path, name: str) -> dict:
    p = folder / name
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Problem(f"{p}: not found (a quickstart output folder holds it)") from None
    except (OSError, ValueError) as e:
        raise Problem(f"{p}: unreadable ({e})") from None


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _words(row: dict, limit: int = 260) -> str:
    """A rule's text for a table cell: its clauses (the verdict prefix kept) up to ``limit`` characters, whole
    clauses only, and the 95% interval when none of them gives one."""
    from hcrbench.report.verdict_block import clauses

    parts: list[str] = []
    for c in clauses(str(row.get("text", ""))):
        if parts and len("; ".join([*parts, c])) > limit:
            break
        parts.append(c)
    text = "; ".join(parts)
    iv = row.get("interval")
    if iv and "[" not in text:
        text += f"; 95% interval [{iv[0]:+.3f}, {iv[1]:+.3f}]"
    return text


def block(folder: Path, shown: str | None = None) -> str:
    """The generated block (without the markers) for the quickstart output ``folder``; ``shown`` is how the
    folder is named in the text (default: as given)."""
    from hcrbench.protocol.looks import VERDICT_SEED
    from hcrbench.protocol.words import plain
    from hcrbench.report.verdict_block import _rules, best_line

    v, ev, man = (_read(folder, n) for n in ("verdicts.json", "eval.json", "manifest.json"))
    name = shown or str(folder)
    ds = man.get("dataset") or {}
    metric = v.get("metric", "nDCG@10")
    system = v.get("system", "?")
    seed = man.get("seed", "?")
    # the verdict seed is named by its role, never by its number: no page names it as a seed it scores
    # (tests/protocol/test_looks.py), and the README's verdict is the one look at it
    seed_words = "the verdict seed (`--seed`'s default)" if seed == VERDICT_SEED else f"seed {seed}"
    n_docs = ds.get("n_documents", "?")
    n_docs = f"{n_docs:,}" if isinstance(n_docs, int) else n_docs
    worlds = ds.get("worlds") or {}
    if worlds:  # a dataset of several worlds: the worlds of this split and their size, not the pooled count
        sizes = sorted({int(w.get("n_documents", 0)) for w in worlds.values()})
        n_docs = (f"{len(worlds)} test world{'s' if len(worlds) != 1 else ''} of "
                  f"{'/'.join(f'{n:,}' for n in sizes)}")
    lines = [f"Figures from `{name}/verdicts.json` and `eval.json`, written by `python scripts/readme_figures.py "
             f"{name} --write` (`--check` compares): corpus size {v.get('size', '?')}, {n_docs} "
             f"documents, {ds.get('n_queries', '?')} {ds.get('split', 'test')} queries, {seed_words}, "
             f"system under test {system}, kill baseline {v.get('kill_baseline', '?')}.", "",
             "| rule | verdict | what the numbers say |", "|---|---|---|"]
    b = (v.get("field") or {}).get("barrier") or {}
    if b:
        word = {"passes": "a value barrier", "fails": "**not a value barrier**"}.get(b.get("status"), "not checked")
        lines.append(f"| field ({(v.get('field') or {}).get('split') or 'no dev split'}) | kill baseline {word} | "
                     f"{_cell(plain(b.get('text', '')))} |")
    for rule, word, row in _rules(v):
        w = f"**{word}**" if word in ("kill", "stop", "no-go", "go") else word
        lines.append(f"| {_cell(rule)} | {w} | {_cell(_words(row))} |")
    ctl = v.get("controls") or []
    lines += ["", f"Overall **{v.get('overall', '?')}**, with {sum(1 for c in ctl if c.get('ok'))}/{len(ctl)} "
                  f"control rows as expected: {plain(v.get('bottom_line', ''))}."]
    for key in ("field", "power_plan"):
        text = (v.get(key) or {}).get("text")
        if text:
            lines += ["", plain(text)[0].upper() + plain(text)[1:] + "."]
    means = {n: r["means"].get(metric) for n, r in (ev.get("runs") or {}).items()}
    ranked = sorted((n for n in means if means[n] is not None), key=lambda n: (-means[n], n))
    lines += ["", f"{metric} on {ds.get('split', 'test')}: " + ", ".join(f"{n} {means[n]:.3f}" for n in ranked)
              + "."]
    best = best_line(v, None)
    if best:
        lines += ["", best[0].upper() + best[1:] + "."]
    suff = ev.get("sufficiency") or {}
    fails = []
    for n in (system, suff.get("perfect")):
        f = ((suff.get("systems") or {}).get(n) or {}).get("failures") if n else None
        if f:
            fails.append(f"{n} {f.get('retrieval')} retrieval / {f.get('delivery')} delivery / {f.get('selection')} "
                         f"selection misses of {f.get('n_feasible')}")
    if fails:
        budget = next(((suff["systems"][n].get("failures") or {}).get("budget") for n in (system,)
                       if n in (suff.get("systems") or {})), None)
        lines += ["", f"Failures at {budget} tokens on the feasible queries, by where they happen: "
                      + "; ".join(fails) + "."]
    return "\n".join(lines) + "\n"


def verdict_block(folder: Path, shown: str | None = None) -> str:
    """The console's verdict block for ``folder`` (the job's last lines), as a fenced text block."""
    from hcrbench.report.verdict_block import block_lines

    v, man = (_read(folder, n) for n in ("verdicts.json", "manifest.json"))
    name = shown or str(folder)
    lines = [text for _style, text in block_lines(v, man, report=f"{name}/report.html",
                                                  tables=f"{name}/console.txt")]
    return "```text\n" + "\n".join(lines) + "\n```\n"


def splice(readme: str, new: str, path: Path, start: str = START, end: str = END) -> tuple[str, int]:
    """``readme`` with the text between the markers replaced by ``new``, and the block's first line number."""
    if readme.count(start) != 1 or readme.count(end) != 1 or readme.index(start) > readme.index(end):
        raise Problem(f"{path}: needs one {start} line before one {end} line")
    head, rest = readme.split(start, 1)
    _old, tail = rest.split(end, 1)
    return f"{head}{start}\n{new}{end}{tail}", head.count("\n") + 2


def updated(text: str, folder: Path, path: Path) -> tuple[str, int]:
    """``text`` (the file ``path``) with each block whose markers it holds rendered from ``folder``, and the
    first block's line number; a file with neither pair of markers is a Problem."""
    found = False
    first = 0
    for start, end, render in ((SHORT_START, SHORT_END, verdict_block), (START, END, block)):
        if start in text or end in text:
            text, line = splice(text, render(folder), path, start, end)
            first = first or line
            found = True
    if not found:
        raise Problem(f"{path}: needs one {START} line before one {END} line (or the {SHORT_START} pair)")
    return text, first


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="the quickstart output folder the README quotes")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="replace the README's block")
    mode.add_argument("--check", action="store_true", help="exit 1 when the README's block differs")
    ap.add_argument("--readme", type=Path, default=None,
                    help="the one file to write or check (default: README.md and docs/results.md)")
    a = ap.parse_args(argv)
    targets = [a.readme] if a.readme is not None else list(TARGETS)
    try:
        if not (a.write or a.check):
            sys.stdout.write(block(a.folder))
            return 0
        todo = []
        for path in targets:
            text = path.read_text(encoding="utf-8")
            todo.append((path, text, *updated(text, a.folder, path)))
    except Problem as e:
        print(f"readme_figures: error: {e}", file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print(f"readme_figures: error: {e.filename}: not found", file=sys.stderr)
        return 2
    if a.check:
        for path, text, want, _first in todo:
            if want == text:
                print(f"{path}: the result block matches {a.folder}")
                continue
            got, exp = text.splitlines(), want.splitlines()
            i = next((i for i, (x, y) in enumerate(zip(got, exp)) if x != y), min(len(got), len(exp)))
            print(f"{path}:{i + 1}: the result block differs from {a.folder} (run with --write): expected "
                  f"{exp[i] if i < len(exp) else '(end)'!r}", file=sys.stderr)
            return 1
        return 0
    for path, _text, want, first in todo:
        atomic_write_text(path, want)
        print(f"wrote the result block of {path} (line {first}) from {a.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
