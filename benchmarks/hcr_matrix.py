"""HCR's measurement matrix: tuning grid, tree seeds and ablations A1-A8 beside the kill baseline and BM25.

    # 1. tune (one split, tree seed 0): defaults, then one parameter at a time, then the best of each combined
    python benchmarks/hcr_matrix.py tune --dataset data/meridian-small --split tune
    # 2. score the chosen parameters once on test: seeds, ablations, kill baseline, BM25, paired statistics
    python benchmarks/hcr_matrix.py test --dataset data/meridian-small --split test --params '{"tree_kind": "docs"}'
    # 3. from a test run's --json: rows grouped over seeds, HCR vs bm25 and A1, each ablation vs HCR on its seed
    python benchmarks/hcr_matrix.py paired --from runs/matrix.json

One process, one chunking and one set of chunk embeddings (the HCR retriever's, cached) for every system:
* kill baseline = dense (exact inner product over every chunk vector) top 100 chunks reranked by the same MaxSim
  HCR uses; the dense ranks 101-400 follow below, as the ``rerank`` retriever does; ``kill-fair`` reranks, per
  query, as many chunks as HCR (tree seed 0) scored for that query (the design's fairness rule);
* bm25 = the HCR retriever's own BM25 over the same chunks (the ``bm25`` baseline's analyzer and weights);
* HCR = ``make_retriever("hcr", backend="onnx", seed=S, **params)``; ablations change one parameter of params.
Chunk runs map to documents by max (MaxP). Cost per query: chunks and nodes scored, chunks reranked, wall and CPU
milliseconds of search (query encoding and MaxSim token vectors included; wall is an upper bound on a loaded
machine). Sufficiency@400 (datasets with ``evidence.jsonl``): each system's own ranked chunks, greedy into 400
tokens (a chunk that does not fit is skipped), evidence coverage (every needed fact stated inside the context),
share of judged queries with evidence. Paired tests against the kill baseline on nDCG@10: sign-flip permutation
(hcrbench.stats, 10,000 resamples) and a 95% bootstrap CI of the mean difference; Holm over the rows.
``--json`` keeps every number; ``--md`` writes the markdown table. ``paired`` re-reads such a JSON: one row per
system over its seeds (mean ± sd and per-seed nDCG@10, raw and Holm p per seed), then paired sign-flip tests
(10,000 resamples, seed 0; raw p, not adjusted) of each HCR seed against bm25 and A1 and of each ablation against
HCR on the same tree seed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ABLATIONS = {
    "A1": {"flat": True}, "A2": {"rerank": "none"}, "A3": {"mode": "beam"}, "A4": {"links": False},
    "A6": {"node_repr": "centroid"}, "A6s": {"node_repr": "summary"}, "A7": {"depth": 2},
    "A8": {"mmr_lambda": 1.0}, "A2+A4": {"rerank": "none", "links": False},
}
GRID = {"target_pool": [50, 200, 400], "beam_width": [2, 4], "tree_kind": ["docs"], "mode": ["beam"],
        "fusion": ["rrf"]}


class Bench:
    """Dataset, queries, qrels and what every system shares."""

    def __init__(self, dataset: str, split: str, max_queries: int | None, seed: int = 0,
                 backend: str = "onnx") -> None:
        import numpy as np

        from hcrbench.data import load_beir
        from hcrbench.data.evidence import read_evidence

        self.backend = backend
        self.root = Path(dataset)
        self.ds = load_beir(self.root, split)
        qids = sorted(q for q in self.ds.queries.query_ids if q in self.ds.qrels)
        if max_queries and len(qids) > max_queries:  # a seeded sample, for a large tune split
            rng = np.random.default_rng(seed)
            qids = sorted(rng.choice(qids, size=max_queries, replace=False).tolist())
        self.qids = qids
        self.queries = self.ds.queries.subset(qids)
        self.qrels = self.ds.qrels.subset(qids)
        ev = self.root / "evidence.jsonl"
        self.evidence = read_evidence(ev) if ev.is_file() else None
        self.doc_text = dict(zip(self.ds.corpus.doc_ids, self.ds.corpus.texts))
        self.rows: dict[str, dict] = {}
        self.runs: dict[str, object] = {}
        self.n_chunks = 0

    # -- systems ---------------------------------------------------------------------------------------------
    def hcr(self, name: str, seed: int, params: dict) -> object:
        from hcrbench.retrieve import make_retriever

        r = make_retriever("hcr", backend=self.backend, seed=seed, **params)
        t0 = time.perf_counter()
        r.index(self.ds.corpus)
        t_index = time.perf_counter() - t0
        self.n_chunks = len(r._chunk_vecs)
        w0, c0 = time.perf_counter(), time.process_time()
        res = r.search(self.queries, 100)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        c = res.costs.counters
        nq = len(self.qids)
        paths: dict[str, int] = {}
        for rec in r.routing_log:
            paths[rec.path] = paths.get(rec.path, 0) + 1
        self._add(name, res.run, r.unit_run, r._chunks, dict(
            seed=seed, params=params, chunks=c.get("chunks_scored", 0) / nq, nodes=c.get("nodes_scored", 0) / nq,
            reranked=c.get("reranked", 0) / nq, links=c.get("links_followed", 0) / nq, ms=1000 * wall / nq,
            cpu_ms=1000 * cpu / nq, index_s=t_index, paths=paths, tree_nodes=len(r.tree.nodes)))
        return r

    def flat(self, r: object, fair_counts: dict[str, int] | None) -> None:
        """bm25, the kill baseline, and (given HCR's per-query chunk counts) the fair kill baseline."""
        import faiss
        import numpy as np

        from hcrbench.data.types import Costs, Run

        ids = r._chunks.doc_ids
        nq = len(self.qids)
        # bm25 over the same chunks
        w0, c0 = time.perf_counter(), time.process_time()
        ranked = {}
        for q, text in self.queries.items():
            s = r._chunk_lex.score(r._chunk_lex.query_vector(text))
            top = np.argsort(-s, kind="stable")[:400]
            ranked[q] = [(ids[j], float(s[j])) for j in top]
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        run = Run.from_ranked(ranked, name="bm25")
        self._add("bm25", self._docs(run, r), run, r._chunks, dict(
            chunks=len(ids), nodes=0, reranked=0, ms=1000 * wall / nq, cpu_ms=1000 * cpu / nq))
        # dense top 400 (exact), MaxSim over the top n
        costs = Costs()
        w0, c0 = time.perf_counter(), time.process_time()
        qv = r._embed(list(self.queries.texts), costs, "encoding queries")
        index = faiss.IndexFlatIP(r._chunk_vecs.shape[1])
        index.add(r._chunk_vecs)
        _, idx = index.search(qv, min(400, len(ids)))  # faiss pads with -1 beyond the corpus
        base_wall, base_cpu = time.perf_counter() - w0, time.process_time() - c0
        saved_rerank = r.rerank
        r.rerank = "maxsim"
        for name, counts in (("kill", None), ("kill-fair", fair_counts)):
            if name == "kill-fair" and counts is None:
                continue
            w0, c0 = time.perf_counter(), time.process_time()
            maxsim = r._make_reranker(self.queries, costs)
            ranked, n_rr = {}, 0
            for qi, q in enumerate(self.queries.query_ids):
                n = 100 if counts is None else max(1, min(400, counts.get(q, 100)))
                top = idx[qi][:n]
                sc = maxsim(qi, "chunk", top)
                order = np.argsort(-sc, kind="stable")
                ranked[q] = ([(ids[top[j]], 1000.0 + float(sc[j])) for j in order]
                             + [(ids[j], float(-k)) for k, j in enumerate(idx[qi][n:])])
                n_rr += len(top)
            wall, cpu = time.perf_counter() - w0 + base_wall, time.process_time() - c0 + base_cpu
            run = Run.from_ranked(ranked, name=name)
            self._add(name, self._docs(run, r), run, r._chunks, dict(
                chunks=len(ids), nodes=0, reranked=n_rr / nq, ms=1000 * wall / nq, cpu_ms=1000 * cpu / nq))
        r.rerank = saved_rerank

    @staticmethod
    def _docs(run: object, r: object) -> object:
        from hcrbench.data.chunking import doc_run_from_chunk_run

        return doc_run_from_chunk_run(run, r._c2d).top_k(100)

    def _add(self, name: str, doc_run: object, chunk_run: object, chunks: object, row: dict) -> None:
        from hcrbench.metrics import evaluate

        ev = evaluate(self.qrels, {name: doc_run}, "nDCG@10,R@100")[name]
        row.update(ndcg=ev.means["nDCG@10"], r100=ev.means["R@100"],
                   per_query=dict(zip(ev.query_ids, ev["nDCG@10"].tolist())))
        row["suff400"] = self._sufficiency(chunk_run, chunks)
        self.rows[name] = row
        print(f"  {name:<22} nDCG@10 {row['ndcg']:.4f}  R@100 {row['r100']:.4f}  suff@400 "
              f"{'-' if row['suff400'] is None else format(row['suff400'], '.3f')}  chunks/q {row['chunks']:.0f}  "
              f"nodes/q {row['nodes']:.0f}  ms/q {row['ms']:.0f}", flush=True)

    def _sufficiency(self, chunk_run: object, chunks: object, budget: int = 400) -> float | None:
        from hcrbench.metrics.sufficiency import evidence_coverage

        if self.evidence is None:
            return None
        meta = {c: m for c, m in zip(chunks.doc_ids, chunks.metadata)}
        ranked = chunk_run.to_dict() if hasattr(chunk_run, "to_dict") else chunk_run
        hits, n = 0, 0
        for q in self.qids:
            ev = self.evidence.get(q)
            if ev is None or not ev.facts:
                continue
            n += 1
            order = sorted(ranked.get(q, {}).items(), key=lambda kv: -kv[1])[:100]
            used, ctx = 0, []
            for cid, _ in order:
                m = meta[cid]
                if used + int(m["n_tokens"]) <= budget:
                    used += int(m["n_tokens"])
                    ctx.append(_Span(m["doc_id"], int(m["char_start"]), int(m["char_end"])))
            hits += evidence_coverage(ctx, ev, self.doc_text)
        return hits / n if n else None

    # -- statistics and tables -------------------------------------------------------------------------------
    def compare(self, baseline: str = "kill") -> None:
        import numpy as np

        from hcrbench.stats.bootstrap import paired_ci
        from hcrbench.stats.multiple import holm
        from hcrbench.stats.permutation import permutation_test

        if baseline not in self.rows:
            return
        b = self.rows[baseline]["per_query"]
        names = [n for n in self.rows if n != baseline]
        pvals = []
        for n in names:
            a = self.rows[n]["per_query"]
            x = np.array([a[q] for q in self.qids])
            y = np.array([b[q] for q in self.qids])
            t = permutation_test(x, y, n_resamples=10_000, seed=0)
            ci = paired_ci(x, y, n_resamples=10_000, seed=0)
            self.rows[n].update(delta=float(x.mean() - y.mean()), ci=[ci.low, ci.high], p=t.pvalue)
            pvals.append(t.pvalue)
        for n, ph in zip(names, holm(np.array(pvals)) if pvals else []):
            self.rows[n]["p_holm"] = float(ph)

    def markdown(self) -> str:
        head = ("| system | nDCG@10 | R@100 | suff@400 | vs kill nDCG@10 [95% CI] | p (Holm) | chunks/q (% flat) "
                "| nodes/q | reranked/q | ms/q (CPU ms/q) |\n|---|---|---|---|---|---|---|---|---|---|")
        lines = [head]
        for n, r in self.rows.items():
            vs = (f"{r['delta']:+.4f} [{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]" if "delta" in r else "—")
            p = f"{r['p']:.3g} ({r['p_holm']:.3g})" if "p" in r else "—"
            s = "—" if r["suff400"] is None else f"{r['suff400']:.3f}"
            pct = r["chunks"] / self.n_chunks if self.n_chunks else 0
            lines.append(f"| {n} | {r['ndcg']:.4f} | {r['r100']:.4f} | {s} | {vs} | {p} | {r['chunks']:.0f} "
                         f"({pct:.1%}) | {r['nodes']:.0f} | {r['reranked']:.0f} | {r['ms']:.0f} ({r['cpu_ms']:.0f}) |")
        return "\n".join(lines)


class _Span:
    __slots__ = ("doc_id", "end", "start")

    def __init__(self, doc_id: str, start: int, end: int) -> None:
        self.doc_id, self.start, self.end = doc_id, start, end


def _seed_summary(b: Bench, prefix: str, seeds: list[int]) -> str:
    import numpy as np

    rows = [b.rows[f"{prefix} s{s}"] for s in seeds if f"{prefix} s{s}" in b.rows]
    if len(rows) < 2:
        return ""
    out = []
    for key in ("ndcg", "r100", "suff400", "chunks"):
        v = [r[key] for r in rows if r[key] is not None]
        if v:
            out.append(f"{key} {np.mean(v):.4f} ± {np.std(v, ddof=1):.4f}")
    return f"{prefix} over seeds {seeds}: " + ", ".join(out)


def cmd_tune(args: argparse.Namespace) -> dict:
    b = Bench(args.dataset, args.split, args.max_queries, backend=args.backend)
    base = json.loads(args.params)
    grid = json.loads(args.grid) if args.grid else GRID
    print(f"tune: {args.dataset} split {args.split}, {len(b.qids)} judged queries, tree seed {args.seed}", flush=True)
    tried: list[tuple[str, dict]] = [("defaults", dict(base))]
    tried += [(f"{k}={v}", {**base, k: v}) for k, vs in grid.items() for v in vs]
    for name, p in tried:
        b.hcr(name, args.seed, p)
    best_each = {}
    for k, vs in grid.items():
        cands = [(b.rows[f"{k}={v}"]["ndcg"], v) for v in vs]
        top = max(cands, key=lambda t: t[0])
        if top[0] > b.rows["defaults"]["ndcg"]:
            best_each[k] = top[1]
    if len(best_each) > 1:
        b.hcr("combined", args.seed, {**base, **best_each})
        tried.append(("combined", {**base, **best_each}))
    chosen_name = max((n for n, _ in tried), key=lambda n: b.rows[n]["ndcg"])
    chosen = dict(tried)[chosen_name]
    print(f"\nchosen on {args.split}: {chosen_name} -> params {json.dumps(chosen)} (nDCG@10 "
          f"{b.rows[chosen_name]['ndcg']:.4f}; defaults {b.rows['defaults']['ndcg']:.4f})")
    print(b.markdown())
    return {"rows": b.rows, "chosen": chosen, "chosen_name": chosen_name, "n_queries": len(b.qids)}


def cmd_test(args: argparse.Namespace) -> dict:
    b = Bench(args.dataset, args.split, args.max_queries, backend=args.backend)
    params = json.loads(args.params)
    seeds = [int(s) for s in args.seeds.split(",")]
    abl = [a for a in args.ablations.split(",") if a]
    print(f"test: {args.dataset} split {args.split}, {len(b.qids)} judged queries; params {json.dumps(params)}; "
          f"seeds {seeds}; ablations {abl}", flush=True)
    tuned = bool(params)
    r0 = None
    for s in seeds:
        r = b.hcr(f"hcr s{s}", s, params)
        if r0 is None:
            r0 = r
            counts = {rec.query_id: int(rec.chunks_scored) for rec in r.routing_log}
    if tuned and not args.skip_defaults:
        for s in seeds:
            b.hcr(f"hcr-defaults s{s}", s, {})
    b.flat(r0, counts if args.fair else None)
    abl_seeds = [int(s) for s in args.ablation_seeds.split(",")]
    for a in abl:
        for s in ([0] if a == "A1" else abl_seeds):
            b.hcr(f"{a} s{s}", s, {**params, **ABLATIONS[a]})
    b.compare("kill")
    md = b.markdown()
    print("\n" + md)
    for prefix in ["hcr", "hcr-defaults", *abl]:
        line = _seed_summary(b, prefix, seeds if prefix.startswith("hcr") else abl_seeds)
        if line:
            print(line)
    return {"rows": b.rows, "n_queries": len(b.qids), "n_chunks": b.n_chunks, "params": params, "markdown": md}


def _group(rows: dict) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for n in rows:
        base, _, s = n.rpartition(" s")
        groups.setdefault(base if base and s.isdigit() else n, []).append(n)
    return groups


def cmd_paired(path: str) -> str:
    """Seed-grouped table and paired comparisons from a ``test --json`` file (see the module docstring)."""
    import numpy as np

    from hcrbench.stats.permutation import permutation_test

    doc = json.loads(Path(path).read_text())
    rows, n_chunks = doc["rows"], doc["n_chunks"]
    groups = _group(rows)
    suff = any(r["suff400"] is not None for r in rows.values())
    out = ["| system | nDCG@10 (per seed) | R@100 |" + (" suff@400 |" if suff else "") + " vs kill, per seed "
           "[95% CI first seed] | p per seed (Holm) | chunks/q (% flat) | nodes/q | reranked/q | ms/q (CPU) |",
           "|---|---|---|" + ("---|" if suff else "") + "---|---|---|---|---|---|"]
    for g, names in groups.items():
        rs = [rows[n] for n in names]
        nd = [r["ndcg"] for r in rs]
        cell = (f"{np.mean(nd):.4f} ± {np.std(nd, ddof=1):.4f} ({' / '.join(f'{x:.4f}' for x in nd)})"
                if len(nd) > 1 else f"{nd[0]:.4f}")
        m = {k: float(np.mean([r[k] for r in rs])) for k in ("r100", "chunks", "nodes", "reranked", "ms", "cpu_ms")}
        vs = p = "—"
        if "delta" in rs[0]:
            vs = " / ".join(f"{r['delta']:+.3f}" for r in rs) + f" [{rs[0]['ci'][0]:+.3f}, {rs[0]['ci'][1]:+.3f}]"
            p = (" / ".join(f"{r['p']:.2g}" for r in rs) + " (" + " / ".join(f"{r['p_holm']:.2g}" for r in rs)
                 + ")")
        s = f" {np.mean([r['suff400'] for r in rs]):.3f} |" if suff else ""
        out.append(f"| {g} | {cell} | {m['r100']:.3f} |{s} {vs} | {p} | {m['chunks']:,.0f} "
                   f"({m['chunks'] / n_chunks:.1%}) | {m['nodes']:,.0f} | {m['reranked']:,.0f} | {m['ms']:.0f} "
                   f"({m['cpu_ms']:.0f}) |")
    qids = sorted(rows["kill"]["per_query"])

    def pair(a: str, b: str) -> tuple[float, float]:
        x = np.array([rows[a]["per_query"][q] for q in qids])
        y = np.array([rows[b]["per_query"][q] for q in qids])
        return float(x.mean() - y.mean()), permutation_test(x, y, n_resamples=10_000, seed=0).pvalue

    out.append("")
    hcr = groups.get("hcr", [])
    for other in ("bm25", "A1 s0"):
        if other in rows and hcr:
            d = [pair(h, other) for h in hcr]
            out.append(f"hcr vs {other.split()[0]}, per seed: " + " / ".join(f"{x:+.4f}" for x, _ in d)
                       + "; p " + " / ".join(f"{q:.2g}" for _, q in d))
    for g, names in groups.items():
        same = [(n, n.replace(g, "hcr", 1)) for n in names if n.replace(g, "hcr", 1) in rows]
        if g in ("hcr", "hcr-defaults", "A1") or not same or not g.startswith("A"):
            continue
        d = [pair(a, h) for a, h in same]
        out.append(f"{g} vs hcr on the same seed: " + " / ".join(f"{x:+.4f}" for x, _ in d)
                   + f" (mean {np.mean([x for x, _ in d]):+.4f}); p " + " / ".join(f"{q:.2g}" for _, q in d))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["tune", "test", "paired"])
    ap.add_argument("--dataset", help="BEIR folder (tune, test)")
    ap.add_argument("--from", dest="from_json", help="paired: a test run's --json")
    ap.add_argument("--split", default="test")
    ap.add_argument("--params", default="{}", help="HCR parameters (JSON) on top of the retriever's defaults")
    ap.add_argument("--grid", default=None, help="tune: {param: [values]} tried one at a time (JSON)")
    ap.add_argument("--seed", type=int, default=0, help="tune: tree seed")
    ap.add_argument("--seeds", default="0,1,2", help="test: tree seeds for HCR")
    ap.add_argument("--ablations", default="A1,A2,A3,A4,A6,A7,A8,A2+A4")
    ap.add_argument("--ablation-seeds", default="0")
    ap.add_argument("--skip-defaults", action="store_true", help="test: no defaults rows beside tuned params")
    ap.add_argument("--fair", action="store_true", help="add the kill baseline with HCR's per-query pool")
    ap.add_argument("--backend", default="onnx", choices=["onnx", "torch", "hash"],
                    help="encoder (hash: model-free, for tests; never a quality claim)")
    ap.add_argument("--max-queries", type=int, default=None, help="a seeded sample of the split's queries")
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    args = ap.parse_args(argv)
    os.environ.setdefault("HCRBENCH_PROGRESS", "0")
    if args.command == "paired":
        if not args.from_json or not Path(args.from_json).is_file():
            print(f"error: paired needs --from RUN.json (a test run's --json); got {args.from_json!r}",
                  file=sys.stderr)
            return 2
        try:
            print(cmd_paired(args.from_json))
        except (ValueError, KeyError) as e:
            print(f"error: {args.from_json}: not a hcr_matrix.py test --json ({type(e).__name__}: {e})",
                  file=sys.stderr)
            return 2
        return 0
    if not args.dataset:
        print("error: tune and test need --dataset", file=sys.stderr)
        return 2
    unknown = [a for a in args.ablations.split(",") if a and a not in ABLATIONS]
    if unknown:
        print(f"error: unknown ablation(s) {', '.join(unknown)} (known: {', '.join(ABLATIONS)})", file=sys.stderr)
        return 2
    t0, c0 = time.perf_counter(), time.process_time()
    out = cmd_tune(args) if args.command == "tune" else cmd_test(args)
    out.update(dataset=args.dataset, split=args.split, wall_s=time.perf_counter() - t0,
               cpu_s=time.process_time() - c0, date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               load=os.getloadavg())
    print(f"\ntotal {out['wall_s']:.0f}s wall, {out['cpu_s']:.0f} CPU-s (this process), load {out['load'][0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=str))
    if args.md and "markdown" in out:
        Path(args.md).write_text(out["markdown"] + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
