"""The protocol's rules, one file each: a rule is one declarative object (:class:`registry.Rule`, subclassed where
it judges something) holding its thresholds and margin, its verdict words, interval, controls, display name and
order, how it judges a subject, what its operating characteristics are replayed from and its power-plan entry.

Every module of this package (but those whose name starts with ``_``) is imported by :func:`load` and registers
its rule; a plugin registers one through the ``hcrbench.rules`` entry point group (a module that calls
:func:`registry.register` when imported), or a script by importing a module that does. docs/extending.md has the
walk-through.
"""

from __future__ import annotations

import importlib
import pkgutil

ENTRY_POINTS = "hcrbench.rules"
_loaded = False


def load() -> None:
    """Import every built-in rule module (each registers its rule), then every ``hcrbench.rules`` plugin."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not m.name.startswith("_"):
            importlib.import_module(f"{__name__}.{m.name}")
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINTS):
        ep.load()
