"""Query categories beyond Meridian's ten (:mod:`hcrbench.synth.questions.builtin`).

Each module in this package declares one :class:`~hcrbench.synth.questions.category.QueryCategory` and registers it; the
registry imports them after the built-in ten, in module-name order (the order of their query ids), the first time
any stage reads it. ``docs/meridian_categories.md`` walks through adding one.
"""
