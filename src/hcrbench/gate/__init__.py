"""The falsification gate: is a system's score distinguishable from four null predictors?

:func:`gate_runs` / :func:`gate` (nulls A-D with calibrated, Holm-adjusted empirical p-values, see
:mod:`hcrbench.gate.nulls`), :func:`gate_pairs` (graded + strict single-gold pairing), :func:`run_controls`
(positive/negative controls that check the harness itself), :func:`verdict` (HIT / UNDER-NS / MISS /
NULL-FAIL), :func:`stratify` and :func:`calibration_curve` (disaggregation, bench-size calibration),
:func:`lock_experiment` / :func:`verify_experiment` (integrity), and :func:`four_null_gate`, a drop-in for
falsify-eval 0.2.0. Imports ``data``, ``metrics``, ``stats`` only.
"""

from hcrbench.gate.compat import four_null_gate
from hcrbench.gate.controls import CONTROLS, EXPECTED_PASS, ControlsReport, build_controls, run_controls
from hcrbench.gate.core import GateResult, NullResult, empirical_p, gate, gate_runs, holm
from hcrbench.gate.integrity import (
    LOCK_NAME,
    VerifyReport,
    check_test_split,
    declare_test_locked,
    lock_experiment,
    verify_experiment,
)
from hcrbench.gate.nulls import NULL_TITLES, NULLS
from hcrbench.gate.strata import (
    CalibrationRow,
    StratumRow,
    calibration_curve,
    plot_calibration,
    strata_from_metadata,
    stratify,
)
from hcrbench.gate.strict import STRICT_METRIC, GatePair, agreement_table, gate_pairs, strict_qrels
from hcrbench.gate.verdict import MIN_N, VERDICTS, Verdict, equivalence_p, verdict, verdicts

__all__ = [
    "CONTROLS",
    "EXPECTED_PASS",
    "LOCK_NAME",
    "MIN_N",
    "NULLS",
    "NULL_TITLES",
    "STRICT_METRIC",
    "VERDICTS",
    "CalibrationRow",
    "ControlsReport",
    "GatePair",
    "GateResult",
    "NullResult",
    "StratumRow",
    "Verdict",
    "VerifyReport",
    "agreement_table",
    "build_controls",
    "calibration_curve",
    "check_test_split",
    "declare_test_locked",
    "empirical_p",
    "equivalence_p",
    "four_null_gate",
    "gate",
    "gate_pairs",
    "gate_runs",
    "holm",
    "lock_experiment",
    "plot_calibration",
    "run_controls",
    "strata_from_metadata",
    "stratify",
    "strict_qrels",
    "verdict",
    "verdicts",
    "verify_experiment",
]
