"""The perfect-retriever control on Meridian folders: through ``hcrbench run``, and its bounds (docs/context.md).

    python benchmarks/perfect_control.py DATA [DATA ...] --out DIR [--json PATH]
    python benchmarks/perfect_control.py DATA [DATA ...] --out DIR --from-out [--json PATH]   # no new run
    python benchmarks/perfect_control.py DATA [DATA ...] --bounds-only [--minilm] [--chunk-tokens 64] [--budget 400]

For each Meridian folder (test split): writes a perfect runfile (every relevant document by grade, then id) and a
degraded one (half of the relevant documents dropped, 20 random documents after), runs ``hcrbench run`` (the console
script) with BM25 over its own chunks, BM25 over documents, both runfiles and the built-in controls at B = 200-1200,
and prints each system's failure rate on the feasible queries at 400 with its failure anatomy, then at every budget.

Then the bounds (the fast form, no ``hcrbench run``): failures on the queries feasible at the budget of the perfect
ranking (ties by id) and of BM25 over documents under each delivery variant of :data:`VARIANTS` (each uses only the
query, the ranking and the documents: TF-IDF / BM25 / MiniLM / MaxSim passage scorers, the top document first,
score x rank prior, query-term coverage, sentence windows); and three bounds that use the evidence: an oracle
passage order, the minimal evidence's documents first as well, and the best order of the relevant documents found.
Last, the shape of the cheapest cover of each query the harness fails (documents, chunks of one document).

``--generate`` makes each DATA that is no folder, named SIZE-SEED (e.g. ``small-21``), with ``hcrbench generate
meridian --size SIZE --seed SEED --grow`` (the grown world the records were measured on) under ``--out`` first
(the slow test re-measures one folder this way).
``--from-out`` reads DIR/NAME/out of an earlier run instead of running again (the bounds are still computed unless
``--through-only``). ``--json PATH`` writes what was printed (per folder: each system's failures at 400 with their
anatomy and at every budget, the bounds' counts), which ``scripts/doc_figures.py`` renders into docs/context.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from hcrbench.data.atomic import atomic_write_text

CONFIG = """name = "perfect-control"
output_dir = "{out}"
seed = 0
metrics = ["nDCG@10"]
baseline = "bm25"
k = 100
n_resamples = 500
budgets = [200, 400, 600, 800, 1200]
[dataset]
path = "{data}"
split = "test"
[[systems]]
name = "bm25"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
chunking = {{ max_tokens = 128, overlap = 32, structure_aware = true }}
[[systems]]
name = "bm25-doc"
type = "bm25"
params = {{ k1 = 0.9, b = 0.4 }}
[[systems]]
name = "perfect-runfile"
type = "runfile"
params = {{ path = "{perfect}" }}
[[systems]]
name = "degraded-runfile"
type = "runfile"
params = {{ path = "{degraded}" }}
"""


def runfiles(data: Path, out: Path) -> tuple[Path, Path]:
    from hcrbench.data.beir import read_corpus
    from hcrbench.data.trec import read_qrels

    qrels = read_qrels(data / "qrels" / "test.tsv")
    ids = read_corpus(data / "corpus.jsonl").doc_ids
    rng = random.Random(3)
    perfect, degraded = out / "perfect.trec", out / "degraded.trec"
    with open(perfect, "w") as p, open(degraded, "w") as g:
        for q in qrels.query_ids:
            rel = sorted((d for d, gr in qrels[q].items() if gr >= 1), key=lambda d: (-qrels[q][d], d))
            for r, d in enumerate(rel):
                p.write(f"{q} Q0 {d} {r + 1} {1000 - r} perfect\n")
            for r, d in enumerate(dict.fromkeys(rel[len(rel) // 2:] + rng.sample(ids, 20))):
                g.write(f"{q} Q0 {d} {r + 1} {1000 - r} degraded\n")
    return perfect, degraded


def through_run(data: Path, out: Path) -> None:
    """``hcrbench run`` (the console script) on ``data`` with the runfiles, into ``out / "out"``."""
    out.mkdir(parents=True, exist_ok=True)
    perfect, degraded = runfiles(data, out)
    cfg = out / "perfect-control.toml"
    cfg.write_text(CONFIG.format(out=out / "out", data=data.resolve(), perfect=perfect, degraded=degraded))
    r = subprocess.run(["hcrbench", "run", str(cfg)], capture_output=True, text=True,
                       env={**os.environ, "HCRBENCH_PROGRESS": "0"})
    if r.returncode != 0:
        sys.exit(r.stderr)


BUDGETS = (200, 400, 600, 800, 1200)


def generated(data: Path, out: Path) -> Path:
    """``data`` itself when it is a folder, else Meridian SIZE-SEED (its name) generated under ``out / "data"``."""
    if data.is_dir():
        return data
    size, _, seed = data.name.rpartition("-")
    if not size or not seed.isdigit():
        sys.exit(f"{data}: not a folder, and not named SIZE-SEED (e.g. small-21) to generate")
    dest = out / "data" / data.name
    if not (dest / "corpus.jsonl").is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        r = subprocess.run(["hcrbench", "generate", "meridian", "--size", size, "--seed", seed, "--grow",
                            "--out", str(dest)],
                           capture_output=True, text=True, env={**os.environ, "HCRBENCH_PROGRESS": "0"})
        if r.returncode != 0:
            sys.exit(r.stderr)
    return dest


def summarize(name: str, out: Path) -> dict:
    """Each system's failure on the queries feasible at 400 (rate, n, retrieval / selection / delivery misses) and
    at every budget (failures, feasible) in the folder ``hcrbench run`` wrote (``out / "out"``)."""
    s = json.loads((out / "out" / "eval.json").read_text())["sufficiency"]
    systems = {}
    for sys_name, e in s["systems"].items():
        f, fl = e.get("failure_on_feasible"), e.get("failures")
        row: dict = {}
        if f and fl:
            row["at_400"] = {"rate": f["rate"], "n": f["n"], "retrieval": fl["retrieval"],
                             "selection": fl["selection"], "delivery": fl["delivery"]}
        cover = s["feasibility"]["unit_sets"].get(e.get("unit_set"), {}).get("cover_tokens")
        if cover:
            ok: dict[tuple[str, int], bool] = {}
            with open(out / "out" / "contexts" / f"{sys_name}.jsonl") as fh:
                for line in fh:
                    c = json.loads(line)
                    if c["budget"] is not None:
                        ok[c["query_id"], c["budget"]] = bool(c["evidence_coverage"])
            row["by_budget"] = {}
            for b in BUDGETS:
                feas = [q for q, t in cover.items() if t is not None and t <= b and (q, b) in ok]
                row["by_budget"][str(b)] = {"failures": sum(not ok[q, b] for q in feas), "feasible": len(feas)}
        systems[sys_name] = row
    return {"data": name, "systems": systems}


def print_summary(doc: dict) -> None:
    print(f"{doc['data']}: hcrbench run, failure on feasible queries at 400 (retrieval / selection / delivery "
          f"misses)")
    for name, row in doc["systems"].items():
        f = row.get("at_400")
        if f:
            print(f"  {name:18s} {100 * f['rate']:5.1f}% of {f['n']:3d}  ret {f['retrieval']:2d}  "
                  f"sel {f['selection']:2d}  del {f['delivery']:2d}")
    print("  failure on the queries feasible at each budget (in the system's unit set):")
    for name, row in doc["systems"].items():
        if "by_budget" not in row:
            continue
        cells = []
        for b, c in row["by_budget"].items():
            cells.append(f"{b}: {100 * c['failures'] / c['feasible']:4.1f}% of {c['feasible']:2d}" if c["feasible"]
                         else f"{b}: -")
        print(f"  {name:18s} " + "  ".join(cells))


# ---------------------------------------------------------------------------------------------------- bounds


def _tokens(text: str) -> list[str]:
    import Stemmer
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    stem = Stemmer.Stemmer("english")
    return stem.stemWords([w for w in re.findall(r"\w\w+", text.lower()) if w not in ENGLISH_STOP_WORDS])


class PassageBM25:
    """BM25 (k1 1.2, b 0.75, stemmed, stop words out) over the context chunks: a passage scorer beside TF-IDF."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.tf = [Counter(_tokens(t)) for t in texts]
        df = Counter(w for tf in self.tf for w in tf)
        n = len(texts)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.len = np.array([sum(tf.values()) for tf in self.tf], dtype=np.float64)
        self.avg, self.k1, self.b = float(self.len.mean() or 1.0), k1, b

    def scores(self, pos: np.ndarray, query: str) -> np.ndarray:
        q = set(_tokens(query))
        out = np.zeros(len(pos))
        for j, p in enumerate(pos):
            tf, norm = self.tf[p], self.k1 * (1 - self.b + self.b * self.len[p] / self.avg)
            out[j] = sum(self.idf[w] * tf[w] * (self.k1 + 1) / (tf[w] + norm) for w in q if w in tf)
        return out


class PassageMiniLM:
    """all-MiniLM-L6-v2 (int8 ONNX, offline) cosine of query and chunk, over the first ``cap`` chunks of a
    ranking (the rest score 0: at 400 tokens only the first documents' passages are read)."""

    def __init__(self, texts: list[str], cap: int = 40) -> None:
        from hcrbench.retrieve.encoders import OnnxMiniLMEncoder

        self.enc, self.texts, self.cap, self.cache = OnnxMiniLMEncoder(threads=1), texts, cap, {}

    def _vec(self, texts: list[str]) -> np.ndarray:
        need = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if need:
            self.cache.update(zip(need, self.enc.encode(need)))
        return np.array([self.cache[t] for t in texts])

    def scores(self, pos: np.ndarray, query: str) -> np.ndarray:
        out = np.zeros(len(pos))
        head = pos[: self.cap]
        if len(head):
            out[: len(head)] = self._vec([self.texts[p] for p in head]) @ self._vec([query])[0]
        return out


class PassageMaxSim(PassageMiniLM):
    """Late interaction over MiniLM token vectors (ColBERT-style MaxSim, zero-shot): the sum over the query's tokens
    of the best cosine with a chunk token; first ``cap`` chunks of a ranking, the rest 0."""

    def _tok(self, texts: list[str]) -> list[np.ndarray]:
        need = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if need:
            self.cache.update(zip(need, self.enc.encode_tokens(need)))
        return [self.cache[t] for t in texts]

    def scores(self, pos: np.ndarray, query: str) -> np.ndarray:
        out = np.zeros(len(pos))
        qv = self._tok([query])[0]
        for j, m in enumerate(self._tok([self.texts[p] for p in pos[: self.cap]])):
            out[j] = float((qv @ m.T).max(axis=1).sum()) if len(m) and len(qv) else 0.0
        return out


class Bench:
    """One Meridian folder's test split, its context chunks, evidence and the queries feasible at ``budget``."""

    def __init__(self, data: Path, budget: int = 400, minilm: bool = False, chunk_tokens: int = 128) -> None:
        from hcrbench.context import ChunkIndex, TfidfSimilarity
        from hcrbench.data.beir import read_corpus, read_queries
        from hcrbench.data.chunking import chunk_corpus
        from hcrbench.data.evidence import read_evidence
        from hcrbench.data.tokens import get_counter
        from hcrbench.data.trec import read_qrels
        from hcrbench.experiment.context_deliver import UnitSet, unit_feasibility

        self.name, self.budget = data.name, budget
        self.corpus, self.queries = read_corpus(data / "corpus.jsonl"), read_queries(data / "queries.jsonl")
        self.qrels, self.ev = read_qrels(data / "qrels" / "test.tsv"), read_evidence(data / "evidence.jsonl")
        self.counter = get_counter(None)
        self.index = ChunkIndex(chunk_corpus(self.corpus, max_tokens=chunk_tokens, overlap=0, counter=self.counter))
        self.unit_set = f"chunks-{chunk_tokens}"
        texts = self.index.chunked.corpus.texts
        self.tfidf = TfidfSimilarity(self.index.chunked.corpus.doc_ids, texts)
        self.bm25p = PassageBM25(texts)
        self.minilm = PassageMiniLM(texts) if minilm else None
        self.maxsim = PassageMaxSim(texts) if minilm else None
        self.texts = dict(zip(self.corpus.doc_ids, self.corpus.texts))
        qids = [q for q in self.qrels.query_ids if q in self.ev and self.ev[q].facts]
        self.cover = unit_feasibility(UnitSet(self.unit_set, self.index, {}), self.ev, qids, self.texts)
        self.feas = self.feasible(budget)
        self.qv = dict(zip(qids, self.tfidf.query_vectors([self.queries[q] for q in qids])))
        self._facts: dict[tuple[str, int], int] = {}

    def feasible(self, budget: int) -> list[str]:
        """The queries whose cheapest cover of the evidence fits ``budget`` tokens."""
        return [q for q, c in self.cover.items() if c["cover_tokens"] is not None and c["cover_tokens"] <= budget]

    def perfect(self, q: str) -> list[str]:
        rel = {d: g for d, g in self.qrels[q].items() if g >= 1}
        return sorted(rel, key=lambda d: (-rel[d], d))

    def facts_in(self, q: str, p: int) -> int:
        from hcrbench.metrics.sufficiency import covered_facts

        key = (q, int(p))
        if key not in self._facts:
            self._facts[key] = len(covered_facts([self.index.candidate(int(p), 0, 0)], self.ev[q], self.texts))
        return self._facts[key]

    def scorer(self, name: str, q: str, pos: np.ndarray) -> np.ndarray:
        if name == "tfidf":
            return self.tfidf.passage_scores(pos, self.qv[q])
        if name == "bm25":
            return self.bm25p.scores(pos, self.queries[q])
        if name == "minilm":
            return self.minilm.scores(pos, self.queries[q])
        if name == "maxsim":
            return self.maxsim.scores(pos, self.queries[q])
        if name == "oracle":  # a document's fact-stating chunks first (uses the evidence: a bound, not a design)
            return self.tfidf.passage_scores(pos, self.qv[q]) + np.array([self.facts_in(q, p) for p in pos])
        raise ValueError(name)

    def sufficient(self, q: str, cands: list) -> bool:
        from hcrbench.context import select
        from hcrbench.metrics.sufficiency import judge

        s = select(q, cands, self.budget, "greedy", token_counter=self.counter.name)
        return bool(judge(s.chunks, s.text(), self.ev[q], None, self.texts).evidence_coverage)

    def positions(self, docs: list[str]) -> np.ndarray:
        return np.array([p for d in docs for p in self.index.by_doc.get(d, ())], dtype=np.int64)

    def deliver(self, q: str, docs: list[str], scorer: str = "tfidf", first_round: int = 1,
                prior: float | None = None) -> list:
        """Candidates for a document ranking: round robin, best passage first by ``scorer`` (the harness with
        ``scorer="tfidf"``); ``first_round = 2``: the top document gives two passages in the first round;
        ``prior``: instead of round robin, the passages of the top 10 documents by normalised score / (1 + prior *
        document rank), a document's k-th passage halved k times, then the rest."""
        from hcrbench.context.delivery import best_passage_first, round_robin

        pos = self.positions(docs)
        if pos.size == 0:
            return []
        ps = self.scorer(scorer, q, pos)
        if prior is None and first_round == 1:
            order = [int(pos[i]) for i in round_robin(pos, self.index.doc_of, ps)]
        else:
            per: dict[int, list[int]] = {}
            for i in best_passage_first(pos, self.index.doc_of, ps):
                per.setdefault(int(self.index.doc_of[pos[i]]), []).append(int(pos[i]))
            dorder = list(per)
            order = []
            if prior is None:  # the first round: the top document's first_round passages, every other's best
                for r, dc in enumerate(dorder):
                    k = first_round if r == 0 else 1
                    order += per[dc][:k]
                    per[dc] = per[dc][k:]
            else:
                score = dict(zip(pos.tolist(), (ps / (ps.max() or 1.0)).tolist()))
                top = [(r, p) for r, dc in enumerate(dorder[:10]) for p in per.pop(dc)]
                taken: Counter = Counter()
                while top:
                    j = max(range(len(top)), key=lambda j: score[top[j][1]] / (1 + prior * top[j][0])
                            * 0.5 ** taken[top[j][0]])
                    r, p = top.pop(j)
                    taken[r] += 1
                    order.append(p)
            while any(per.values()):
                for dc in list(per):
                    if per[dc]:
                        order.append(per[dc].pop(0))
        return [self.index.candidate(p, 1.0, r) for r, p in enumerate(order[:100])]

    def sentence_windows(self, q: str, docs: list[str], width: int = 1) -> list:
        """Each document's best sentence window (the sentence with the most query-term IDF and ``width``
        sentences either side) round robin, three rounds of non-overlapping windows: units smaller than a chunk."""
        from hcrbench.context.candidates import Candidate
        from hcrbench.data.chunking import split_sentences

        qt = set(_tokens(self.queries[q]))
        per = []
        for d in docs[:30]:
            t = self.texts[d]
            ss = split_sentences(t)
            sc = np.array([sum(self.bm25p.idf.get(w, 0.0) for w in set(_tokens(t[a:b])) & qt) for a, b in ss])
            wins = sorted(((sc[max(0, i - width):i + width + 1].sum(), ss[max(0, i - width)][0],
                            ss[min(len(ss) - 1, i + width)][1]) for i in range(len(ss))), key=lambda w: -w[0])
            per.append((d, wins))
        out, taken = [], {}
        for _ in range(3):
            for d, wins in per:
                for _, s, e in wins:
                    if all(e <= a or s >= b for a, b in taken.get(d, [])):
                        taken.setdefault(d, []).append((s, e))
                        t = self.texts[d][s:e]
                        out.append(Candidate(f"{d}@{s}", d, s, e, t, self.counter.count(t), 1.0, len(out)))
                        break
        return out

    def coverage(self, q: str, docs: list[str], top: int = 6, prior: float = 0.3) -> list:
        """Query-term coverage: among the passages of the top ``top`` documents, repeatedly the one with the most
        IDF mass of query terms not yet covered (plus a tenth of its whole query-term mass), divided by ``1 + prior
        * document rank``, a document's further passages weighted 0.3; then the other documents' chunks."""
        qt = set(_tokens(self.queries[q]))
        pos = [int(p) for p in self.positions(docs[:top])]
        rank: dict[int, int] = {}
        for p in pos:
            rank.setdefault(int(self.index.doc_of[p]), len(rank))
        terms = {p: set(self.bm25p.tf[p]) & qt for p in pos}
        covered: set[str] = set()
        used: set[int] = set()
        out = []

        def gain(p: int) -> float:
            dc = int(self.index.doc_of[p])
            g = sum(self.bm25p.idf[w] for w in terms[p] - covered) + 0.1 * sum(self.bm25p.idf[w] for w in terms[p])
            return g / (1 + prior * rank[dc]) * (0.3 if dc in used else 1.0)

        while pos:
            p = max(pos, key=gain)
            pos.remove(p)
            out.append(p)
            covered |= terms[p]
            used.add(int(self.index.doc_of[p]))
        out += [int(p) for p in self.positions(docs[top:])]
        return [self.index.candidate(p, 1.0, r) for r, p in enumerate(out[:100])]

    def best_order(self, q: str, scorer: str = "tfidf", max_tries: int = 2000) -> bool:
        """Is there an order of the relevant documents that round robin with ``scorer`` turns into a sufficient
        context? Orders of the fact-stating documents as the first up to 4 (the rest after, by id): documents
        stating no needed fact only take budget; capped at ``max_tries`` orders."""
        docs = self.perfect(q)
        stating = [d for d in docs if any(self.facts_in(q, p) for p in self.index.by_doc.get(d, ()))]
        tries = 0
        for k in range(1, min(4, len(stating)) + 1):
            for pre in itertools.permutations(stating, k):
                rest = [d for d in docs if d not in pre]
                if self.sufficient(q, self.deliver(q, list(pre) + rest, scorer)):
                    return True
                tries += 1
                if tries >= max_tries:
                    return False
        return False

    def cover_shape(self, q: str) -> tuple[int, int]:
        """(documents, most chunks of one document) in the cheapest cover of ``q``'s facts by context chunks."""
        from hcrbench.experiment.context_deliver import UnitSet, _Units
        from hcrbench.metrics.sufficiency import cheapest_cover

        if not hasattr(self, "_units"):
            self._units = _Units(UnitSet(self.unit_set, self.index, {}))
        c = cheapest_cover(self.ev[q], self._units.units, self._units.by_doc, None, self.texts)
        per = Counter(self._units.units[i].doc_id for i in c.units)
        return len(per), max(per.values(), default=0)

#: The delivery variants measured by ``--bounds-only``: name -> (delivery, legitimate for any system?).
VARIANTS = {
    "tfidf round robin (the harness)": dict(scorer="tfidf"),
    "bm25 passage scorer, round robin": dict(scorer="bm25"),
    "minilm passage scorer, round robin": dict(scorer="minilm"),
    "minilm maxsim (late interaction) passage scorer, round robin": dict(scorer="maxsim"),
    "tfidf, top document 2 passages first": dict(scorer="tfidf", first_round=2),
    "bm25 passages of the top 10 by score x rank prior": dict(scorer="bm25", prior=0.5),
    "query-term coverage over the top 6 documents' passages": dict(coverage=6),
    "sentence windows (best sentence +-1), round robin": dict(windows=1),
}


def bm25_doc_run(b: Bench, qids: list[str]) -> dict[str, list[str]]:
    from hcrbench.data.types import Queries
    from hcrbench.retrieve.bm25 import BM25Retriever

    ret = BM25Retriever(cache=False)
    ret.index(b.corpus)
    run = ret.search(Queries(list(qids), [b.queries[q] for q in qids]), k=100).run
    return {q: [d for d, _ in run.ranked(q)] for q in qids}


def bounds(data: Path, budget: int = 400, minilm: bool = False, chunk_tokens: int = 128) -> list[dict]:
    """Failures at ``budget`` on the feasible queries, per delivery variant, of the perfect ranking (relevant
    documents by grade, ties by id) and of BM25 over documents; then the bounds (oracle passage order, the minimal
    evidence's documents first, the best order of the relevant documents found), and the cheapest cover's shape
    of the harness's failures. Returns one row per line printed."""
    b = Bench(data, budget, minilm, chunk_tokens)
    n = len(b.feas)
    bm = bm25_doc_run(b, b.feas)
    rows = []

    def row(name: str, perfect: list[str], doc: list[str] | None) -> None:
        rows.append({"data": b.name, "variant": name, "n": n, "perfect": len(perfect), "bm25_doc":
                     None if doc is None else len(doc), "failing": perfect})
        pct = f"{len(doc):2d} ({100 * len(doc) / n:4.1f}%)" if doc is not None else "   -"
        print(f"  {name:52s} perfect {len(perfect):2d} ({100 * len(perfect) / n:4.1f}%)  bm25-doc {pct}",
              flush=True)

    print(f"{b.name}: {n} queries feasible at {budget} in {chunk_tokens}-token context chunks")
    for name, v in VARIANTS.items():
        if v.get("scorer") in ("minilm", "maxsim") and not minilm:
            continue
        if "windows" in v:
            def deliver(q, docs, w=v["windows"]):
                return b.sentence_windows(q, docs, w)
        elif "coverage" in v:
            def deliver(q, docs, t=v["coverage"]):
                return b.coverage(q, docs, t)
        else:
            def deliver(q, docs, v=v):
                return b.deliver(q, docs, **v)
        row(name, [q for q in b.feas if not b.sufficient(q, deliver(q, b.perfect(q)))],
            [q for q in b.feas if not b.sufficient(q, deliver(q, bm[q]))])
    harness = rows[0]["failing"]
    row("bound: oracle passage order (fact-stating chunks first)",
        [q for q in b.feas if not b.sufficient(q, b.deliver(q, b.perfect(q), "oracle"))], None)

    def minimal_first(q: str) -> list[str]:
        mind = {sp.doc_id for sp in b.ev[q].minimal}
        rel = {d: g for d, g in b.qrels[q].items() if g >= 1}
        return sorted(rel, key=lambda d: (-rel[d], d not in mind, d))

    row("bound: oracle passages + minimal evidence's documents first",
        [q for q in b.feas if not b.sufficient(q, b.deliver(q, minimal_first(q), "oracle"))], None)
    row("bound: best order of the relevant documents, tfidf round robin",
        [q for q in harness if not b.best_order(q, "tfidf")], None)
    shape = Counter()
    for q in harness:
        docs, most = b.cover_shape(q)
        shape["2+ chunks of one document" if most >= 2 else f"{min(docs, 3)}{'+' if docs >= 3 else ''} documents"
              ] += 1
    print(f"  the harness's {len(harness)} failures, by the cheapest cover's shape: "
          + ", ".join(f"{k}: {v}" for k, v in sorted(shape.items())))
    cat_of: dict[str, str] = {}
    meta = data / "queries.meta.jsonl"
    if meta.is_file():
        for line in meta.read_text(encoding="utf-8").splitlines():
            if line.strip():
                m = json.loads(line)
                cat_of[str(m.get("query_id"))] = str(m.get("category"))
    rows[0]["harness_failures"] = {
        "n": len(harness), "cover_shape": dict(sorted(shape.items())),
        "categories": dict(sorted(Counter(cat_of.get(q, "?") for q in harness).items())),
        "feasible_categories": dict(sorted(Counter(cat_of.get(q, "?") for q in b.feas).items())),
        "relevant_docs": sorted(len(b.perfect(q)) for q in harness)}
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=Path("perfect-control"))
    ap.add_argument("--bounds-only", action="store_true", help="only the fast bounds over delivery variants")
    ap.add_argument("--through-only", action="store_true", help="only the hcrbench run part, no bounds")
    ap.add_argument("--from-out", action="store_true", help="read OUT/NAME/out of an earlier run, do not run")
    ap.add_argument("--minilm", action="store_true",
                    help="also the MiniLM (int8 ONNX) passage scorers, cosine and MaxSim (slow)")
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--chunk-tokens", type=int, default=128, help="context chunks of the bounds (feasibility too)")
    ap.add_argument("--json", type=Path, default=None, help="also write what is printed to this file")
    ap.add_argument("--generate", action="store_true", help="generate each DATA named SIZE-SEED that is no folder")
    a = ap.parse_args()
    if a.generate:
        a.data = [generated(d, a.out) for d in a.data]
    doc: dict = {"budget": a.budget, "chunk_tokens": a.chunk_tokens, "minilm": a.minilm, "folders": []}
    if a.generate:  # the folders this run generated: the figures are of this generator version
        from hcrbench.synth import GENERATOR_VERSION

        doc["generator"] = GENERATOR_VERSION
    for d in a.data:
        entry: dict = {"data": d.name}
        if not a.bounds_only:
            if not a.from_out:
                through_run(d, a.out / d.name)
            entry["through"] = summarize(d.name, a.out / d.name)
            print_summary(entry["through"])
        if not a.through_only:
            entry["bounds"] = [{k: v for k, v in r.items() if k != "failing"}
                               for r in bounds(d, a.budget, a.minilm, a.chunk_tokens)]
        doc["folders"].append(entry)
    if a.json is not None:
        atomic_write_text(a.json, json.dumps(doc, indent=1) + "\n")

if __name__ == "__main__":
    main()
