"""Records a tree retriever writes and the tree metrics read: the persisted tree and the per-query routing log.

They live in ``data`` so that ``metrics`` can recompute routing error and tree quality from files, offline, without
importing the retriever that produced them. Both are JSONL:

``tree.jsonl``: line 1 a header ``{"kind": "hcr-tree", "version": 1, "params", "chunk_ids", "chunk_docs",
"chunk_entities"?}`` (entities found in each chunk, when links were built), then one line per internal node
``{"node_id", "level", "parent", "children", "chunks", "summary"}``. Node 0 is the
root (level 0); a node at level ``l`` routes to nodes at level ``l + 1`` (``children``) or, at the last level, to
chunk positions (``chunks``: indexes into ``chunk_ids``). ``chunk_docs[i]`` is the document chunk ``i`` came from.

``routing.jsonl``: one :class:`RoutingRecord` per query: per level the scored candidates and the beam kept, the
path whose ranking was returned, the collapsed path's top nodes, the links followed and what was scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hcrbench.data.beir import iter_jsonl, write_jsonl
from hcrbench.data.compressed import MAX_LINE
from hcrbench.errors import InputError

TREE_KIND = "hcr-tree"
TREE_VERSION = 1


@dataclass
class TreeNode:
    """An internal node: ``children`` (node ids) above the last level, ``chunks`` (chunk positions) at it."""

    node_id: int
    level: int
    parent: int | None
    children: list[int] = field(default_factory=list)
    chunks: list[int] = field(default_factory=list)
    summary: str = ""


@dataclass
class Tree:
    """A cluster tree over chunks. ``depth`` is the number of routing levels below the root."""

    nodes: list[TreeNode]
    chunk_ids: list[str]
    chunk_docs: list[str]
    params: dict[str, Any] = field(default_factory=dict)
    chunk_entities: list[list[str]] | None = None

    @property
    def depth(self) -> int:
        return max((n.level for n in self.nodes), default=0)

    def level_nodes(self, level: int) -> list[int]:
        """Node ids at ``level`` in id order."""
        return [n.node_id for n in self.nodes if n.level == level]

    def leaf_chunks(self, node_id: int) -> list[int]:
        """Every chunk position under ``node_id`` (sorted)."""
        out: list[int] = []
        stack = [node_id]
        while stack:
            n = self.nodes[stack.pop()]
            out.extend(n.chunks)
            stack.extend(n.children)
        return sorted(out)

    def chunk_leaf(self) -> np.ndarray:
        """For each chunk position, the id of the last-level node holding it (-1 if none)."""
        out = np.full(len(self.chunk_ids), -1, dtype=np.int64)
        for n in self.nodes:
            if n.chunks:
                out[np.asarray(n.chunks, dtype=np.int64)] = n.node_id
        return out

    def ancestors(self, node_id: int) -> list[int]:
        """Path from the root to ``node_id`` (inclusive)."""
        path = [node_id]
        while self.nodes[path[-1]].parent is not None:
            path.append(int(self.nodes[path[-1]].parent))  # type: ignore[arg-type]
        return path[::-1]


def write_tree(tree: Tree, path: str | Path) -> None:
    """Write ``tree`` as JSONL atomically (header line, then one line per node in id order)."""
    header = {"kind": TREE_KIND, "version": TREE_VERSION, "params": tree.params, "chunk_ids": tree.chunk_ids,
              "chunk_docs": tree.chunk_docs}
    if tree.chunk_entities is not None:
        header["chunk_entities"] = tree.chunk_entities
    write_jsonl(path, [header, *(asdict(n) for n in tree.nodes)])


def read_tree(path: str | Path) -> Tree:
    """Read a tree written by :func:`write_tree`; a malformed line is a one-line error naming file and line."""
    # the header lists every chunk (ids, documents, entities): over 1 MiB on a large corpus, so the line bound is
    # the file's own size (hcrbench writes this file; an endless line still cannot outgrow it)
    size = Path(path).stat().st_size if Path(path).is_file() else 0
    rows = iter_jsonl(path, max_line=max(MAX_LINE, size + 1))
    try:
        n0, header = next(rows)
    except StopIteration:
        raise InputError("empty tree file", path=path) from None
    if header.get("kind") != TREE_KIND:
        raise InputError(f"not an hcr tree (kind {header.get('kind')!r})", path=path, line=n0, field="kind")
    ids, docs = header.get("chunk_ids"), header.get("chunk_docs")
    if not isinstance(ids, list) or not isinstance(docs, list) or len(ids) != len(docs):
        raise InputError("chunk_ids and chunk_docs must be lists of equal length", path=path, line=n0,
                         field="chunk_ids")
    nodes: list[TreeNode] = []
    for n, row in rows:
        try:
            node = TreeNode(int(row["node_id"]), int(row["level"]),
                            None if row["parent"] is None else int(row["parent"]),
                            [int(c) for c in row.get("children", [])], [int(c) for c in row.get("chunks", [])],
                            str(row.get("summary", "")))
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"bad node record ({type(e).__name__}: {e})", path=path, line=n, field="node") from None
        if node.node_id != len(nodes):
            raise InputError(f"node ids must be 0, 1, 2, ... in order; got {node.node_id}", path=path, line=n,
                             field="node_id")
        if any(c < 0 or c >= len(ids) for c in node.chunks):
            raise InputError("chunk position out of range", path=path, line=n, field="chunks")
        nodes.append(node)
    for node in nodes:
        if any(c <= node.node_id or c >= len(nodes) for c in node.children):
            raise InputError(f"node {node.node_id}: child id out of range", path=path, field="children")
    ents = header.get("chunk_entities")
    if ents is not None and (not isinstance(ents, list) or len(ents) != len(ids)):
        raise InputError("chunk_entities must be a list with one entry per chunk", path=path, line=n0,
                         field="chunk_entities")
    return Tree(nodes, [str(x) for x in ids], [str(x) for x in docs], dict(header.get("params") or {}),
                None if ents is None else [[str(e) for e in x] for x in ents])


# ------------------------------------------------------------------------------------------------ routing log


@dataclass
class LevelLog:
    """One routing level: the candidates scored ``[[node_id, score], ...]`` (best first) and the beam kept."""

    level: int
    candidates: list[list[float]]
    beam: list[int]


@dataclass
class RoutingRecord:
    """What the retriever did for one query (one line of ``routing.jsonl``).

    ``path``: the ranking returned (``beam``, ``collapsed``, ``dual-rrf``, ``dual-wta:beam``, ``dual-wta:collapsed``
    or ``flat``). ``collapsed_nodes``: the collapsed path's top nodes (internal node ids, and chunks as
    ``-1 - position``). ``links``: ``[entity, chunk position]`` pairs followed. ``top_chunks``: the returned chunk
    positions, best first (up to 10). ``beam_confidence`` / ``collapsed_confidence``: each path's confidence
    in the dual mode (the winner-take-all rule keeps the higher; see ``hcrbench.retrieve.hcr.route``).
    """

    query_id: str
    levels: list[LevelLog] = field(default_factory=list)
    path: str = "beam"
    collapsed_nodes: list[int] = field(default_factory=list)
    links: list[list[Any]] = field(default_factory=list)
    nodes_scored: int = 0
    chunks_scored: int = 0
    reranked: int = 0
    top_chunks: list[int] = field(default_factory=list)
    beam_top_chunks: list[int] = field(default_factory=list)
    collapsed_top_chunks: list[int] = field(default_factory=list)
    beam_confidence: float | None = None
    collapsed_confidence: float | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _opt_float(v: Any) -> float | None:
    return None if v is None else float(v)


def write_routing_log(records: Iterable[RoutingRecord], path: str | Path) -> None:
    """Write routing records as JSONL atomically."""
    write_jsonl(path, (r.to_json() for r in records))


def read_routing_log(path: str | Path) -> list[RoutingRecord]:
    """Read ``routing.jsonl``; bad lines are one-line errors naming file, line and field."""
    out: list[RoutingRecord] = []
    for n, row in iter_jsonl(path):
        try:
            levels = [LevelLog(int(lv["level"]), [[int(a), float(b)] for a, b in lv["candidates"]],
                               [int(b) for b in lv["beam"]]) for lv in row.get("levels", [])]
            rec = RoutingRecord(str(row["query_id"]), levels, str(row.get("path", "beam")),
                                [int(x) for x in row.get("collapsed_nodes", [])],
                                [[str(e), int(c)] for e, c in row.get("links", [])],
                                int(row.get("nodes_scored", 0)), int(row.get("chunks_scored", 0)),
                                int(row.get("reranked", 0)), [int(x) for x in row.get("top_chunks", [])],
                                [int(x) for x in row.get("beam_top_chunks", [])],
                                [int(x) for x in row.get("collapsed_top_chunks", [])],
                                _opt_float(row.get("beam_confidence")), _opt_float(row.get("collapsed_confidence")))
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"bad routing record ({type(e).__name__}: {e})", path=path, line=n,
                             field="levels") from None
        out.append(rec)
    return out


def routing_log_path(run_path: str | Path) -> Path:
    """Where the routing log of a run file goes: beside it, ``<run name>.routing.jsonl``."""
    p = Path(run_path)
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return p.with_name(f"{stem}.routing.jsonl")


def tree_path_beside(run_path: str | Path) -> Path:
    """Where the tree used for a run is copied: beside it, ``<run name>.tree.jsonl``."""
    p = routing_log_path(run_path)
    return p.with_name(p.name.replace(".routing.jsonl", ".tree.jsonl"))


def tree_vectors_path(tree_path: str | Path) -> Path:
    """The routing vectors and centroids stored beside a tree file (``X.tree.jsonl`` -> ``X.tree.npz``)."""
    p = Path(tree_path)
    return p.with_name(p.name.removesuffix(".jsonl") + ".npz")


def chunk_positions(ids: Sequence[str]) -> dict[str, int]:
    """Chunk id -> position."""
    return {c: i for i, c in enumerate(ids)}
