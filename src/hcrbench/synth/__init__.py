"""Meridian: a synthetic enterprise corpus with exact ground truth (imports only ``hcrbench.data``/``errors``).

``generate_meridian(out, size, seed)`` writes a BEIR folder plus ``queries.meta.jsonl``, ``evidence.jsonl``,
``world.json`` and ``manifest.json``; ``describe(folder)`` measures it against the design targets.
"""

from hcrbench.synth.checks.describe import describe
from hcrbench.synth.generate import GENERATOR_VERSION, SIZES, generate_meridian, resolve_size
from hcrbench.synth.world_model.entities import World, build_world

__all__ = ["GENERATOR_VERSION", "SIZES", "World", "build_world", "describe", "generate_meridian", "resolve_size"]
