"""Which Meridian sentences come from render code and which from the filler pools, and how repetitive each part is.

A corpus sentence (counted as ``describe.TextStats`` counts it) is attributed to the pools when it matches one of
their templates (``[a|b]`` groups as alternatives, ``{placeholders}`` as wildcards); every other sentence was
written by a renderer. Prints, for the render-code part: occurrences, distinct ratio, occurrences of sentences
found in 10+ documents, its vocabulary, and the most repeated render-code sentences.

    python benchmarks/meridian_sentence_sources.py /tmp/m0 [--top 40]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict

from hcrbench.data import read_corpus
from hcrbench.synth.checks.describe import SENTENCE_END, WORDS
from hcrbench.synth.corpus.filler import ALL_POOLS

_PARTS = re.compile(r"(\[[^\[\]]*\]|\{[a-z_0-9]+\})")


def template_regex(t: str) -> str:
    """A regex matching every expansion of template ``t`` (spaces made optional where groups may be empty)."""
    out = []
    for p in _PARTS.split(t):
        if p.startswith("[") and p.endswith("]"):
            out.append("(?:" + "|".join(re.escape(o) for o in p[1:-1].split("|")) + ")")
        elif p.startswith("{") and p.endswith("}"):
            out.append(".+?")
        else:
            out.append(re.escape(p))
    return "".join(out).replace(r"\ ", " ").replace(" ", " ?")


def pool_matcher() -> re.Pattern[str]:
    """One regex for every pool template and every sentence-sized piece of a multi-sentence template."""
    pats = []
    for t in (t for xs in ALL_POOLS.values() for t in xs):
        pats.append(template_regex(t))
        for piece in SENTENCE_END.split(t):
            if piece != t and len(piece.split()) >= 3 and piece.count("[") == piece.count("]"):
                pats.append(template_regex(piece))
    return re.compile("|".join(f"(?:{p})" for p in pats))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    corpus = read_corpus(f"{a.folder}/corpus.jsonl")
    occ: Counter[str] = Counter()
    docs: dict[str, set[str]] = defaultdict(set)
    for d in corpus.doc_ids:
        for line in corpus[d].text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("|---"):
                continue
            for s in SENTENCE_END.split(line.removeprefix("- ")):
                if len(s.split()) >= 3:
                    occ[s] += 1
                    docs[s].add(d)
    pool = pool_matcher()
    render = {s: k for s, k in occ.items() if not pool.fullmatch(s)}
    n = sum(render.values())
    vocab = {w for s in render for w in WORDS.findall(s.lower())}
    print(json.dumps({"sentence_occurrences": sum(occ.values()), "render_occurrences": n,
                      "render_distinct_ratio": round(len(render) / max(n, 1), 3),
                      "render_occurrences_in_10plus_docs": sum(k for s, k in render.items() if len(docs[s]) >= 10),
                      "render_vocabulary": len(vocab)}))
    for s, k in sorted(render.items(), key=lambda x: (-x[1], x[0]))[:a.top]:
        print(f"{k:5d} {len(docs[s]):5d}  {s[:140]}")


if __name__ == "__main__":
    main()
