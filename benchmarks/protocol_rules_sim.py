"""How often each protocol rule errs when the truth is known: false kill (it stops / kills / says no-go although
the truth is fine) and false go (it passes / says go although the truth is bad), for the rules as they are and
as they were before issue #23, at the n the quickstart uses.

    python benchmarks/protocol_rules_sim.py --reps 2000 --seed 0 [--json PATH]

Prints a Markdown table; ``--json PATH`` also writes its rows (docs/figures/protocol-rules-sim.json, which
``scripts/doc_figures.py`` renders into docs/protocol.md with :func:`markdown`, the table printed here). See :mod:`hcrbench.protocol.simulate` for the scenarios.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.protocol.simulate import table


def markdown(doc: dict[str, Any]) -> str:
    """The table (and its note) of a document :func:`measure` returns."""
    def mark(x: float, wrong: bool) -> str:  # the error of each row in bold
        return f"**{x:.1%}**" if wrong else f"{x:.1%}"

    lines = ["| rule | truth | n | now: acts | now: passes / go | before: acts | before: passes / go |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in doc["rows"]:
        lines.append(f"| {r['rule']} | {r['truth']} | {r['n']} | {mark(r['new_act'], not r['bad'])} | "
                     f"{mark(r['new_go'], r['bad'])} | {mark(r['old_act'], not r['bad'])} | "
                     f"{mark(r['old_go'], r['bad'])} |")
    lines += ["", f"{doc['reps']} draws per row, seed {doc['seed']}; bold = the error rate of the row (false kill when "
              f"the truth is fine, false go when it is bad)."]
    return "\n".join(lines)


def measure(reps: int, seed: int) -> dict[str, Any]:
    return {"reps": reps, "seed": seed, "rows": [dict(r) for r in table(reps, seed)]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="also write the rows to this file")
    a = ap.parse_args()
    doc = measure(a.reps, a.seed)
    print(markdown(doc))
    if a.json is not None:
        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")

if __name__ == "__main__":
    main()
