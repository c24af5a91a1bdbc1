"""Lists filtered by the planner's split ledger, kept up to date as the ledger grows (the planner's hot path).

A query generator draws from lists of world items (tickets, people, meetings ...) less the items a slot's split
may not use: an item needs some ledger nodes (``("entity", id)``, ``("fact", id)``) and is usable while no other
split owns any of them. The ledger (``cat.state.split_owner``, :class:`~hcrbench.synth.questions.splits.SplitLedger`) only adds
nodes, each with its owner for good, so an item once unusable in a split stays so: the filtered list of a split
is the previous one less the items that need one of the nodes added since, which are the last keys of the
ledger's dict (insertion order). Filtering a list of n items after k new nodes then costs k look-ups, not n
item checks, where the planner used to scan every list again after each planned query (a 3,000-query suite on
24,000 documents scanned lists of thousands of items thousands of times).

The result is the same list, in the same order, as a full scan (``tests/synth/test_free_lists.py``)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from itertools import islice
from typing import Any

#: Lists not asked for in this many ledger states are dropped (lists made for one state do not pile up).
KEEP_STATES = 64

Node = tuple[str, Any]


class FreeLists:
    """Per (key, split): the items of a list whose nodes no other split owns, updated from the ledger's tail."""

    def __init__(self) -> None:
        self._kept: dict[tuple[Hashable, str], list] = {}  # -> [items, out positions, out, owner, seen, used]
        self._index: dict[Hashable, list] = {}  # -> [items, nodes of each item, node -> positions (lazy)]
        self._state = 0
        self._origin: dict[int, tuple[list, tuple, list, Callable]] = {}  # id(out) -> (out, slot, items, needs)

    def tick(self) -> None:
        """A new ledger state (the planner planned a query or moved to another split): drops lists unused for
        :data:`KEEP_STATES` states."""
        self._state += 1
        if self._state % KEEP_STATES == 0:
            old = self._state - KEEP_STATES
            self._kept = {k: v for k, v in self._kept.items() if v[5] >= old}
            live = {k for k, _ in self._kept}
            self._index = {k: v for k, v in self._index.items() if k in live}
            outs = {id(v[2]) for v in self._kept.values()}
            self._origin = {k: v for k, v in self._origin.items() if k in outs}

    def origin(self, out: list) -> tuple[Hashable, list, Callable] | None:
        """``(key, items, needs)`` when ``out`` is a list :meth:`filtered` returned (so a further filter of it
        can be kept as one filter of ``items``), else None."""
        got = self._origin.get(id(out))
        if got is None or got[0] is not out:
            return None
        kept = self._kept.get(got[1])
        return (got[1][0], got[2], got[3]) if kept is not None and kept[2] is out else None  # the current one

    def filtered(self, key: Hashable, items: list, needs: Callable[[Any], Iterable[Node]],
                 owner: dict, split: str) -> list:
        """The items of ``items`` whose every node in ``needs(item)`` is unowned or owned by ``split``, in
        order. ``key`` names the list and ``needs`` (both fixed for a key: a list of another identity under the
        same key is indexed again); ``owner`` is the ledger's dict, which must only grow."""
        ix = self._index.get(key)
        if ix is None or ix[0] is not items:
            ix = self._index[key] = [items, [tuple(needs(x)) for x in items], None]
        per = ix[1]
        slot = (key, split)
        got = self._kept.get(slot)
        n = len(owner)
        if got is None or got[0] is not items or got[3] is not owner or got[4] > n:
            pos = [i for i, ns in enumerate(per) if all(owner.get(x, split) == split for x in ns)]
            got = self._kept[slot] = [items, pos, [items[i] for i in pos], owner, n, self._state]
            self._origin[id(got[2])] = (got[2], slot, items, needs)
            return got[2]
        got[5] = self._state
        if n > got[4]:
            if ix[2] is None:  # node -> positions, built once the list is asked for again after the ledger grew
                by_node: dict[Node, list[int]] = {}
                for i, ns in enumerate(per):
                    for x in ns:
                        by_node.setdefault(x, []).append(i)
                ix[2] = by_node
            dead: set[int] = set()
            for node in islice(reversed(owner), n - got[4]):
                if owner[node] != split:
                    dead.update(ix[2].get(node, ()))
            got[4] = n
            if dead:
                got[1] = [i for i in got[1] if i not in dead]
                got[2] = [items[i] for i in got[1]]
                self._origin[id(got[2])] = (got[2], slot, items, needs)
        return got[2]


__all__ = ["KEEP_STATES", "FreeLists"]
