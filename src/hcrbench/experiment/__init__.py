"""Experiments: a TOML config in, one output folder out (runs, per-query metrics, evaluation JSON, manifest).

``run_experiment(config_path)`` is what ``hcrbench run CONFIG`` calls; see docs/experiments.md.
"""

from hcrbench.data.hashing import sha256_file
from hcrbench.data.splitlock import registry_path, split_key
from hcrbench.experiment.cell import run_system
from hcrbench.experiment.config import (
    ChunkingConfig,
    DatasetConfig,
    ExperimentConfig,
    SystemConfig,
    load_config,
    parse_config,
)
from hcrbench.experiment.dataset import ExperimentData, load_data
from hcrbench.experiment.execution import ExecutionConfig
from hcrbench.experiment.manifest import package_versions, read_manifest, write_manifest
from hcrbench.experiment.runner import ExperimentResult, output_dir_of, run_experiment

__all__ = [
    "ChunkingConfig",
    "DatasetConfig",
    "ExecutionConfig",
    "ExperimentConfig",
    "ExperimentData",
    "ExperimentResult",
    "SystemConfig",
    "load_config",
    "load_data",
    "output_dir_of",
    "package_versions",
    "parse_config",
    "read_manifest",
    "registry_path",
    "run_experiment",
    "run_system",
    "sha256_file",
    "split_key",
    "write_manifest",
]
