"""Meridian: a synthetic enterprise corpus with exact ground truth (imports only ``hcrbench.data``/``errors``).

``generate_meridian(out, size, seed)`` writes a BEIR folder plus ``queries.meta.jsonl``, ``evidence.jsonl``,
``world.json`` and ``manifest.json``; ``describe(folder)`` measures it against the design targets.

The code is organised by what it builds: ``world_model`` (the world, its year and where each fact is stated),
``corpus`` (the document text), ``questions`` (categories, planner, labels) and ``checks`` (``describe``, world
rules, audits). The module paths from before that layout still import through :data:`OLD_MODULES`.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

#: The modules of each sub-package by their old name under ``hcrbench.synth`` (``old=new`` where it was renamed).
_MOVED: dict[str, str] = {
    "world_model": ("facts lexicon lexicon_growth lexicon_names schedule schedule_base schedule_events "
                    "schedule_year seeds world=entities world_year=staff_year"),
    "corpus": ("doc_kinds filler meeting_refs mentions noise phrases phrases_docs=phrases_sections "
               "pool_data render render_entities render_events render_guides render_phrases "
               "render_threads spec_tables stems subjects text"),
    "questions": ("adversarial catalog category free_lists grades plan_state properties queries=suite "
                  "query_categories=builtin query_chain=chain query_dedup=dedup query_entity=entity "
                  "query_fit=fit query_gen=generators query_plan=planner query_reach=reach "
                  "query_scale=scale query_wording=wording splits tiers topics"),
    "checks": ("describe describe_answerable describe_lexical describe_templates describe_tiers "
               "describe_topics describe_world describe_worlds labels=label_audit review safety "
               "world_rules world_rules_events world_rules_year"),
}
#: Old module (``hcrbench.synth.<old>``) -> its path under ``hcrbench.synth`` now. ``import``, ``from ... import``
#: and ``unittest.mock.patch`` on an old path reach the same module object as the new path (one alias, no copy).
OLD_MODULES: dict[str, str] = {old: f"{pkg}.{new or old}" for pkg, names in _MOVED.items()
                               for old, _, new in (n.partition("=") for n in names.split())}


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``hcrbench.synth.<old>`` and loads it as the new module itself (``sys.modules`` holds one object
    under both names; the module keeps its own ``__name__`` and ``__spec__``, so pickles and reloads name the new
    path)."""

    def find_spec(self, fullname, path=None, target=None):
        pkg, _, leaf = fullname.rpartition(".")
        if pkg != __name__ or leaf not in OLD_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(f"{__name__}.{OLD_MODULES[spec.name.rpartition('.')[2]]}")
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module):
        # the import system set ``__spec__`` to the alias's spec while binding it; the module keeps its own
        module.__spec__ = module.__spec__.loader_state


class _Package(types.ModuleType):
    def __setattr__(self, name, value):
        # binding an old module path sets it on this package: an exported name (``describe`` the function) stays
        if name in __all__ and isinstance(value, types.ModuleType) and name in self.__dict__:
            return
        super().__setattr__(name, value)


if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
    sys.meta_path.append(_OldPaths())

from hcrbench.synth.checks.describe import describe  # noqa: E402
from hcrbench.synth.generate import GENERATOR_VERSION, SIZES, generate_meridian, resolve_size  # noqa: E402
from hcrbench.synth.world_model.entities import World, build_world  # noqa: E402

__all__ = ["GENERATOR_VERSION", "SIZES", "World", "build_world", "describe", "generate_meridian", "resolve_size"]
sys.modules[__name__].__class__ = _Package
