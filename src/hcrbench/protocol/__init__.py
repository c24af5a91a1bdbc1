"""The protocol stage: the design's fail-fast checkpoints and hypotheses, protocol controls and the verdicts,
judged on what an experiment produced (runs, evaluations, routing logs), and the one-command quickstart.

Above :mod:`hcrbench.experiment` (which produces runs and never imports this stage: the runner receives
:func:`hcrbench.protocol.verdicts.hooks`), below :mod:`hcrbench.report`. See docs/protocol.md.
"""
