"""How often each protocol rule errs when the truth is known: false kill (it stops / kills / says no-go although
the truth is fine) and false go (it passes / says go although the truth is bad), for the rules as they are and
as they were before issue #23, at the n the quickstart uses.

    python benchmarks/protocol_rules_sim.py --reps 2000 --seed 0

Prints a Markdown table (docs/protocol.md quotes it). See :mod:`hcrbench.protocol.simulate` for the scenarios.
"""

from __future__ import annotations

import argparse

from hcrbench.protocol.simulate import table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    print("| rule | truth | n | now: acts | now: passes / go | before: acts | before: passes / go |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in table(a.reps, a.seed):
        mark = lambda x, wrong: f"**{x:.1%}**" if wrong else f"{x:.1%}"  # noqa: E731 (the error of each row)
        print(f"| {r['rule']} | {r['truth']} | {r['n']} | {mark(r['new_act'], not r['bad'])} | "
              f"{mark(r['new_go'], r['bad'])} | {mark(r['old_act'], not r['bad'])} | {mark(r['old_go'], r['bad'])} |")
    print(f"\n{a.reps} draws per row, seed {a.seed}; bold = the error rate of the row (false kill when the truth is "
          f"fine, false go when it is bad).")


if __name__ == "__main__":
    main()
