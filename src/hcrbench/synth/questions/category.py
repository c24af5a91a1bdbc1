"""One declarative object per query category, and the registry every stage reads them from.

A :class:`QueryCategory` holds everything the suite needs to know about one kind of question: its count in the
design's 300-query suite, the tiers it can take and its budget-feasible share (:mod:`tiers`), where the planner
fills it (:mod:`planner`), its generator and the variants that reach its slot targets or serve a larger suite
(:mod:`reach`, :mod:`scale`), and its defining property (:mod:`properties`). The planner, the fit
targets, the property check and ``hcrbench describe`` look a category up here and nowhere else.

Meridian's ten categories are declared in :mod:`hcrbench.synth.questions.builtin` (loaded on first use, so this
module imports no generator); a new category is one module in :mod:`hcrbench.synth.categories` that gives one
more :class:`QueryCategory` to :func:`register` (``docs/meridian_categories.md`` walks through it).
Registration order is the order of query ids.
"""

from __future__ import annotations

import pkgutil
import random
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (typing only: the catalog imports the world, which this registry must not load)
    from hcrbench.synth.questions.catalog import Catalog, QueryPlan

Gen = Callable[["Catalog", random.Random, str], "QueryPlan | None"]
Target = tuple[str, bool]
TIERS = ("easy", "medium", "hard")


@dataclass(frozen=True)
class PropertyInput:
    """What a category's property check sees of one query: its words, answer and needed facts, where each fact is
    stated (``docs_of[fact]``: document indexes; ``stated(fact)``: ``(doc, doc_type, statement)``), documents'
    titles and texts when known, and for a chain its hops and the final answer as written in text."""

    category: str
    origin: str
    text: str
    answer: object
    facts: list[str]
    docs_of: Mapping[str, set[int]]
    stated: Callable[[str], Any]
    n_interpretations: int = 0
    title: Callable[[int], str] | None = None
    text_of: Callable[[int], str | None] | None = None
    final_value: str | None = None
    chain_facts: list[str] | None = None


Check = Callable[[PropertyInput], list[str]]


@dataclass(frozen=True)
class QueryCategory:
    """One query category, declared once.

    - ``count``: queries in the design's 300-query suite (a suite of N takes the same shares, :func:`design_counts`);
    - ``generate``: the category's own generator ``(catalog, rng, designed difficulty) -> QueryPlan | None``;
    - ``feasible``: the design's share of budget-feasible queries (None: the category has no evidence, so no
      chunk targets: out of distribution);
    - ``tiers``: the evidence tiers its queries can take by construction;
    - ``fill_rank``: planner order (lower first: categories whose slots need the scarcest world resources);
    - ``slot_order``: the order in which its designed difficulties take its ``(tier, feasible)`` slot targets;
    - ``targeted``: whether its slots aim at those targets at all (a category whose own draws already hold its
      feasible share does not spend the world on them);
    - ``reach``: slot target -> ``[(share, variant)]``, variants that take that share of such a slot's draws;
    - ``scale``: the variant a suite larger than 300 hands part of the draws; ``scale_forms``: slot target ->
      the variant serving it instead; ``keep_hard``: its hard draws stay its own (vocabulary traps) until the
      planner's last tries;
    - ``check``: the category's defining property (reasons a query breaks it; empty when it holds);
    - ``needs_facts``: False for a category whose queries are unanswerable by construction;
    - ``chain``: its queries are chains (bridges are capped; the planner and the labels treat hops);
      ``distinct_hops``: each hop in its own documents (3+-hop);
    - ``description``: one line for docs and ``describe``.

    Hand-written adversarial patterns name their category in ``adversarial.toml`` (:attr:`patterns`)."""

    name: str
    count: int
    generate: Gen
    feasible: float | None = None
    tiers: tuple[str, ...] = TIERS
    fill_rank: int = 100
    slot_order: tuple[str, ...] = TIERS
    targeted: bool = True
    reach: Mapping[Target, tuple[tuple[float, Gen], ...]] = field(default_factory=dict)
    scale: Gen | None = None
    scale_forms: Mapping[Target, Gen] = field(default_factory=dict)
    keep_hard: bool = False
    check: Check | None = None
    needs_facts: bool = True
    chain: bool = False
    distinct_hops: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        if not self.name or self.count < 0 or not set(self.tiers) <= set(TIERS) or not self.tiers:
            raise ValueError(f"query category {self.name!r}: needs a name, a count >= 0 and tiers among {TIERS}")
        if self.feasible is not None and not 0.0 <= self.feasible <= 1.0:
            raise ValueError(f"query category {self.name!r}: feasible share {self.feasible} outside 0-1")

    @property
    def patterns(self) -> list[dict[str, Any]]:
        """The hand-written adversarial patterns of ``adversarial.toml`` that fill this category."""
        from hcrbench.synth.questions.adversarial import patterns
        return [p for p in patterns() if p["category"] == self.name]


_REGISTRY: dict[str, QueryCategory] = {}
_STATE = {"loaded": False, "version": 0}
#: The module that declares Meridian's own categories (imported on first use of the registry).
BUILTIN = "hcrbench.synth.questions.builtin"


#: The package whose modules each declare one more category (imported after the built-ins, by module name).
EXTRAS = "hcrbench.synth.categories"


def _load() -> None:
    if not _STATE["loaded"]:
        _STATE["loaded"] = True
        import_module(BUILTIN)
        discover()


def discover() -> list[str]:
    """Import the modules of :data:`EXTRAS` not imported yet (each registers its category), in name order;
    returns their names."""
    pkg = import_module(EXTRAS)
    new = [m.name for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name)
           if f"{EXTRAS}.{m.name}" not in sys.modules]
    for name in new:
        import_module(f"{EXTRAS}.{name}")
    return new


def register(cat: QueryCategory) -> QueryCategory:
    """Add ``cat`` to the registry (after the categories already there); a name registered twice is an error."""
    if cat.name in _REGISTRY:
        raise ValueError(f"query category {cat.name!r} is already registered")
    _REGISTRY[cat.name] = cat
    _STATE["version"] += 1
    return cat


def unregister(name: str) -> None:
    _load()
    if _REGISTRY.pop(name, None) is not None:
        _STATE["version"] += 1


@contextmanager
def registered(cat: QueryCategory) -> Iterator[QueryCategory]:
    """``cat`` registered for the duration of the block (tests, one-off experiments)."""
    _load()
    register(cat)
    try:
        yield cat
    finally:
        unregister(cat.name)


def categories() -> list[QueryCategory]:
    """Every registered category, in registration order (the order of query ids)."""
    _load()
    return list(_REGISTRY.values())


def get(name: str) -> QueryCategory | None:
    _load()
    return _REGISTRY.get(name)


def version() -> int:
    """Bumped by every registration change (so views built from the registry know when to rebuild)."""
    _load()
    return _STATE["version"]


def fill_order() -> tuple[str, ...]:
    """Category names in planner order (``fill_rank``, then registration order)."""
    cats = categories()
    return tuple(c.name for _, c in sorted(enumerate(cats), key=lambda ic: (ic[1].fill_rank, ic[0])))


class RegistryView(Mapping):
    """A read-only mapping built from the registry by ``build`` and rebuilt when the registry changes: the
    module-level tables the stages used to keep (``FEASIBLE_DESIGN``, ``TIER_ALLOWED``, ``SCALE`` ...), kept
    under their names and read from the category objects."""

    def __init__(self, build: Callable[[list[QueryCategory]], Mapping]) -> None:
        self._build = build
        self._data: Mapping = {}
        self._version = -1

    def _get(self) -> Mapping:
        v = version()
        if v != self._version:
            self._data, self._version = dict(self._build(categories())), v
        return self._data

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __repr__(self) -> str:
        return repr(dict(self._get()))
