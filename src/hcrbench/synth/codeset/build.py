"""Build a code-retrieval set from Python source already on the machine (a stdlib or installed package).

Nothing is downloaded and no code is copied into the repository: the set is built at run time from the package's
own files. Every ``.py`` file of the package (test folders skipped) is one corpus document (id = its path inside
the package's parent folder, e.g. ``email/utils.py``). A query is a function (or method) of the package up to and
including the first line where it calls a top-level function or class defined exactly once elsewhere in the
package (a bare ``name(...)`` call or ``module.name(...)``; one query per function and distinct target, at its
first call); its ground truth is that definition, in three styles:

- **line range** (RepoEval): ``linerange/test.jsonl`` holds the definition's ``path``, ``start_line``,
  ``end_line`` (1-based, inclusive, decorators included) and its ``snippet``; relevant chunks overlap it.
- **file recall** (SWE-bench): ``qrels/test.tsv`` marks the defining file relevant (grade 1).
- **snippet similarity** (RepoBench-R): Jaccard of a retrieved chunk's tokens with the snippet's.

The query's own function (``query_path`` lines ``query_start..query_end``) is where the call sits; retrieval
units overlapping it are excluded from that query's results (RepoEval's leakage rule), so the call line in the
corpus cannot answer the query. Queries are drawn with ``random.Random(seed)`` from the candidates in (path,
line) order; the same seed, package files and Python version give identical bytes (``manifest.json`` records
them and every file's SHA-256).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import platform
import random
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hcrbench.data.atomic import atomic_write_text
from hcrbench.data.beir import write_corpus, write_jsonl, write_queries
from hcrbench.data.hashing import sha256_file
from hcrbench.data.types import Corpus, Queries
from hcrbench.errors import InputError

CODESET_VERSION = "1.0.0"
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[^\sA-Za-z0-9_]")


def code_tokens(text: str) -> set[str]:
    """The token set used for snippet Jaccard: identifiers, numbers and single punctuation characters."""
    return set(_TOKEN.findall(text))


def snippet_jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the token sets of two code snippets (0 when both are empty)."""
    ta, tb = code_tokens(a), code_tokens(b)
    union = ta | tb
    return len(ta & tb) / len(union) if union else 0.0


def package_root(name: str) -> tuple[Path, Path]:
    """``(package folder, its parent)`` of an importable package, found without importing it."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", name or ""):
        raise InputError(f"not a Python package name: {name!r}", field="--package")
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        what = "not installed" if spec is None else "a single module, not a package"
        raise InputError(f"package {name!r} is {what} (name a package folder, e.g. email, asyncio, json)",
                         field="--package")
    root = Path(next(iter(spec.submodule_search_locations))).resolve()
    return root, root.parents[len(name.split(".")) - 1]


@dataclass(frozen=True)
class _Def:
    path: str
    name: str
    start: int
    end: int


def _source_files(root: Path, base: Path) -> list[tuple[str, Path]]:
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(base).as_posix()
        parts = p.relative_to(root).parts
        if any(x.startswith(("test", "_test")) or x in ("tests", "idle_test") for x in parts[:-1]):
            continue
        if parts[-1].startswith("test_"):
            continue
        out.append((rel, p))
    return out


def _span(node: ast.AST) -> tuple[int, int]:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]
    return start, int(node.end_lineno or node.lineno)  # type: ignore[attr-defined]


def _functions(tree: ast.Module):
    """Every function and method, outermost first, in line order."""
    stack: list[ast.AST] = [tree]
    found = []
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(child)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.append(child)
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _calls(fn: ast.AST):
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                yield f.id, node.lineno
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id not in (
                    "self", "cls", "super"):
                yield f.attr, node.lineno


def _package_candidates(package: str, min_prefix_lines: int) -> tuple[dict[str, str], list[dict[str, Any]], Path]:
    root, base = package_root(package)
    sources: dict[str, str] = {}
    trees: dict[str, ast.Module] = {}
    for rel, p in _source_files(root, base):
        try:
            text = p.read_text(encoding="utf-8")
            trees[rel] = ast.parse(text)
        except (UnicodeDecodeError, SyntaxError, ValueError):
            continue  # not Python 3 source we can read: left out of the corpus
        sources[rel] = text
    if not sources:
        raise InputError(f"package {package!r} has no readable .py files under {root}", field="--package")
    defs: dict[str, list[_Def]] = {}
    for rel, tree in trees.items():
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                s, e = _span(node)
                defs.setdefault(node.name, []).append(_Def(rel, node.name, s, e))
    unique = {n: d[0] for n, d in defs.items() if len(d) == 1 and not n.startswith("__")}
    candidates = []
    for rel, tree in trees.items():
        lines = sources[rel].splitlines()
        for fn in _functions(tree):
            fs, _ = _span(fn)
            done: set[str] = set()
            for name, line in sorted(_calls(fn), key=lambda x: (x[1], x[0])):
                d = unique.get(name)
                if d is None or d.path == rel or name in done or line - fs + 1 < min_prefix_lines:
                    continue
                done.add(name)  # one query per (function, distinct cross-file target): its first call
                candidates.append({"path": rel, "start": fs, "call_line": line, "def": d,
                                   "text": "\n".join(lines[fs - 1:line]) + "\n"})
    return sources, candidates, root


def build_codeset(package: str | list[str], *, seed: int = 0, n_queries: int = 300, min_prefix_lines: int = 2
                  ) -> tuple[Corpus, Queries, dict[str, dict[str, int]], list[dict[str, Any]], dict[str, Any]]:
    """``(corpus, queries, file qrels, line ranges, manifest)`` for one package or several (comma list or list).

    With several packages each query's target is defined in its own package; the corpus holds all of them.
    """
    if isinstance(n_queries, bool) or not isinstance(n_queries, int) or n_queries < 1:
        raise InputError(f"must be an integer >= 1, got {n_queries!r}", field="--queries")
    names = [p.strip() for p in (package.split(",") if isinstance(package, str) else package) if p.strip()]
    if not names or len(set(names)) < len(names):
        raise InputError(f"expected one or more distinct package names, got {package!r}", field="--package")
    sources: dict[str, str] = {}
    candidates: list[dict[str, Any]] = []
    roots = []
    for name in names:
        src, cands, root = _package_candidates(name, min_prefix_lines)
        overlap = sorted(set(src) & set(sources))
        if overlap:
            raise InputError(f"package {name!r} overlaps another one given ({overlap[0]})", field="--package")
        sources.update(src)
        candidates.extend(cands)
        roots.append(root)
    package = ",".join(names)
    if not candidates:
        raise InputError(f"package {package!r} has no function calling a definition in another file",
                         field="--package")
    rng = random.Random(seed)
    picked = rng.sample(candidates, min(n_queries, len(candidates)))
    picked.sort(key=lambda c: (c["path"], c["start"]))
    qids, texts, metas, ranges = [], [], [], []
    qrels: dict[str, dict[str, int]] = {}
    for i, c in enumerate(picked):
        qid = f"CQ{i:04d}"
        d: _Def = c["def"]
        snippet = "\n".join(sources[d.path].splitlines()[d.start - 1:d.end]) + "\n"
        qids.append(qid)
        texts.append(c["text"])
        metas.append({"category": "cross_file_call", "query_path": c["path"], "query_start": c["start"],
                      "query_end": c["call_line"], "target": d.name})
        ranges.append({"query_id": qid, "path": d.path, "start_line": d.start, "end_line": d.end,
                       "name": d.name, "query_path": c["path"], "query_start": c["start"],
                       "query_end": c["call_line"], "snippet": snippet})
        qrels[qid] = {d.path: 1}
    doc_ids = sorted(sources)
    corpus = Corpus(doc_ids, [sources[r] for r in doc_ids], list(doc_ids), name=f"code-{package}")
    queries = Queries(qids, texts, metas, name=f"code-{package}")
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            from importlib import metadata

            versions[name] = metadata.version(name.split(".")[0])
        except Exception:
            versions[name] = None  # stdlib packages have no distribution: the Python version pins them
    stdlib_prefix = str(Path(sys.base_prefix).resolve())
    manifest = {
        "generator": "hcrbench.synth.codeset", "version": CODESET_VERSION, "package": package,
        "package_versions": versions, "stdlib": {n: str(r).startswith(stdlib_prefix) for n, r in zip(names, roots)},
        "python_version": platform.python_version(), "python_implementation": platform.python_implementation(),
        "seed": seed, "n_queries": len(qids), "n_candidates": len(candidates), "n_files": len(doc_ids),
        "n_lines": sum(s.count("\n") for s in sources.values()),
        "source_sha256": hashlib.sha256("".join(
            f"{r}\0{hashlib.sha256(sources[r].encode()).hexdigest()}\n" for r in doc_ids).encode()).hexdigest(),
    }
    return corpus, queries, qrels, ranges, manifest


def generate_codeset(out: str | Path, package: str, *, seed: int = 0, n_queries: int = 300,
                     overwrite: bool = False) -> dict[str, Any]:
    """Write the code set as a BEIR folder plus ``linerange/test.jsonl`` and ``manifest.json``, atomically."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise InputError("exists and is not an empty folder (pass --overwrite to replace it)", path=out,
                         field="--out")
    corpus, queries, qrels, ranges, manifest = build_codeset(package, seed=seed, n_queries=n_queries)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        tmp.chmod(0o755)
        write_corpus(corpus, tmp / "corpus.jsonl")
        write_queries(queries, tmp / "queries.jsonl")
        (tmp / "qrels").mkdir()
        with open(tmp / "qrels" / "test.tsv", "w", encoding="utf-8") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            for qid, docs in qrels.items():
                for doc, g in docs.items():
                    fh.write(f"{qid}\t{doc}\t{g}\n")
        (tmp / "linerange").mkdir()
        write_jsonl(tmp / "linerange" / "test.jsonl", ranges)
        files = ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "linerange/test.jsonl"]
        manifest = {**manifest, "files": {f: sha256_file(tmp / f) for f in files}}
        atomic_write_text(tmp / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return manifest


def read_line_ranges(folder: str | Path, split: str = "test") -> dict[str, list[dict[str, Any]]] | None:
    """``{query_id: [range, ...]}`` from ``linerange/{split}.jsonl``, or None when the folder has none."""
    from hcrbench.data.beir import iter_jsonl

    p = Path(folder) / "linerange" / f"{split}.jsonl"
    if not p.is_file():
        return None
    out: dict[str, list[dict[str, Any]]] = {}
    for n, obj in iter_jsonl(p):
        for key in ("query_id", "path", "start_line", "end_line"):
            if key not in obj:
                raise InputError(f"missing '{key}'", path=p, line=n, field=key)
        for key in ("start_line", "end_line"):
            if isinstance(obj[key], bool) or not isinstance(obj[key], int) or obj[key] < 1:
                raise InputError(f"must be an integer >= 1, got {obj[key]!r}", path=p, line=n, field=key)
        if obj["end_line"] < obj["start_line"]:
            raise InputError("end_line is before start_line", path=p, line=n, field="end_line")
        out.setdefault(str(obj["query_id"]), []).append(obj)
    return out
