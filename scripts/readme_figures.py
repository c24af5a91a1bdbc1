#!/usr/bin/env python3
"""The README's result block, generated from the quickstart run it quotes, so its figures cannot go stale:

    python scripts/readme_figures.py FOLDER            # print the block
    python scripts/readme_figures.py FOLDER --write    # replace the README's block with it
    python scripts/readme_figures.py FOLDER --check    # exit 1 (naming the first differing line) when they differ

FOLDER is a quickstart output folder (``verdicts.json``, ``eval.json``, ``manifest.json``). The block is the text
between ``<!-- readme-figures:start -->`` and ``<!-- readme-figures:end -->`` in README.md (``--readme`` for
another file): where the figures come from, one row per rule in the verdict block's vocabulary, the overall
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


def splice(readme: str, new: str, path: Path) -> tuple[str, int]:
    """``readme`` with the text between the markers replaced by ``new``, and the block's first line number."""
    if readme.count(START) != 1 or readme.count(END) != 1 or readme.index(START) > readme.index(END):
        raise Problem(f"{path}: needs one {START} line before one {END} line")
    head, rest = readme.split(START, 1)
    _old, tail = rest.split(END, 1)
    return f"{head}{START}\n{new}{END}{tail}", head.count("\n") + 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="the quickstart output folder the README quotes")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="replace the README's block")
    mode.add_argument("--check", action="store_true", help="exit 1 when the README's block differs")
    ap.add_argument("--readme", type=Path, default=REPO / "README.md")
    a = ap.parse_args(argv)
    try:
        new = block(a.folder)
        if not (a.write or a.check):
            sys.stdout.write(new)
            return 0
        text = a.readme.read_text(encoding="utf-8")
        want, first = splice(text, new, a.readme)
    except Problem as e:
        print(f"readme_figures: error: {e}", file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print(f"readme_figures: error: {e.filename}: not found", file=sys.stderr)
        return 2
    if a.check:
        if want == text:
            print(f"{a.readme}: the result block matches {a.folder}")
            return 0
        got, exp = text.splitlines(), want.splitlines()
        i = next((i for i, (x, y) in enumerate(zip(got, exp)) if x != y), min(len(got), len(exp)))
        print(f"{a.readme}:{i + 1}: the result block differs from {a.folder} (run with --write): expected "
              f"{exp[i] if i < len(exp) else '(end)'!r}", file=sys.stderr)
        return 1
    atomic_write_text(a.readme, want)
    print(f"wrote the result block of {a.readme} (line {first}) from {a.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
