"""How distinct the sentences drawn from one set of pool templates are in a generated Meridian corpus.

Usage: ``python benchmarks/pool_sentence_share.py CORPUS_DIR [BASE_VOCAB.json] [--module hcrbench.synth.corpus.phrases_sections]``

Every corpus sentence (counted exactly as ``describe`` counts them) that some template of the module's ``POOLS``
can produce is attributed to those pools; the script prints their occurrences, distinct ratio and share found in
10+ documents, plus the corpus vocabulary (and, given a saved vocabulary list, how many words are new). It writes
``CORPUS_DIR.vocab.json`` so a later run can compare against this one.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import string
from pathlib import Path

from hcrbench.synth.checks.describe import WORDS, TextStats


def template_regex(t: str) -> str:
    """A regex matching every expansion of ``t`` (groups as alternations, placeholders as any text)."""
    out = []
    for lit, field, _, _ in string.Formatter().parse(t):
        for i, part in enumerate(re.split(r"\[([^\[\]]*)\]", lit)):
            out.append("(?:" + "|".join(re.escape(o) for o in part.split("|")) + ")" if i % 2 else re.escape(part))
        if field:
            out.append(".+?")
    return "".join(out).replace("\\ ", " *")  # vary() closes up doubled spaces and spaces before punctuation


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus_dir")
    ap.add_argument("base_vocab", nargs="?")
    ap.add_argument("--module", default="hcrbench.synth.corpus.phrases_sections")
    a = ap.parse_args()
    ts = TextStats()
    with open(Path(a.corpus_dir) / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            ts.add(d["_id"], d["text"], "")
    pools = importlib.import_module(a.module).POOLS
    big = re.compile("|".join(f"(?:{template_regex(t)})" for xs in pools.values() for t in xs))
    mine = [s for s in ts.occurrences if big.fullmatch(s.strip())]
    occ = sum(ts.occurrences[s] for s in mine)
    common = sum(ts.occurrences[s] for s in mine if ts.docs_of[s] == 10)
    total = sum(ts.occurrences.values())
    print(f"{a.module} sentences: {occ} occurrences ({occ / total:.1%} of the corpus), {len(mine)} distinct, "
          f"distinct ratio {len(mine) / max(occ, 1):.3f}, share in 10+ documents {common / max(occ, 1):.3f}")
    words = {w for s in mine for w in WORDS.findall(s.lower())}
    print(f"corpus vocabulary {len(ts.vocab)}; distinct words in these sentences {len(words)}")
    Path(a.corpus_dir.rstrip("/") + ".vocab.json").write_text(json.dumps(sorted(ts.vocab)))
    if a.base_vocab:
        base = set(json.loads(Path(a.base_vocab).read_text()))
        print(f"words not in {a.base_vocab}: {len(ts.vocab - base)}")


if __name__ == "__main__":
    main()
