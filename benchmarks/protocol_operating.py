"""Operating characteristics of every protocol rule on a finished experiment's own data, and how long they take.

    python benchmarks/protocol_operating.py OUT [--n N] [--reps 1000] [--seed 0]

OUT is an experiment folder (``hcrbench quickstart`` / ``hcrbench run``: per_query.csv, verdicts.json). ``--n``
replays every rule at N queries (e.g. Meridian full's suite) from OUT's per-query spread. Prints the time of
:func:`hcrbench.protocol.operating.operating_all` (all rules, ``--reps`` resamples each) and the Markdown table
docs/protocol.md publishes (:func:`hcrbench.protocol.operating.markdown`, the same function).
"""

from __future__ import annotations

import argparse
import time

from hcrbench.protocol.operating import markdown, operating_all
from hcrbench.protocol.operating_inputs import from_out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=None, help="replay every rule at this n")
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    ins, v = from_out(a.out, a.n)
    t0 = time.perf_counter()
    ops = operating_all(ins, reps=a.reps, seed=a.seed)
    dt = time.perf_counter() - t0
    print(f"{a.out}: system {v['system']} vs kill baseline {v['kill_baseline']}, size {v.get('size')}; "
          f"{len(ops)} rules x {a.reps} resamples in {dt:.3f} s")
    print(markdown(ops))


if __name__ == "__main__":
    main()
