"""The config check before any work (experiment/precheck.py) accepts a system that reads another system's output
of the same run (the kill baseline's ``top_n_from = "hcr"``: HCR's routing log does not exist until HCR has run),
and still refuses a ``top_n_from`` path that is not there."""

from __future__ import annotations

from pathlib import Path

import pytest

from hcrbench.errors import InputError
from hcrbench.experiment.precheck import check_systems

TEXT = """
[[systems]]
name = "hcr"
type = "bm25"

[[systems]]
name = "rerank"
type = "rerank"
params = {{ method = "maxsim", first_stage = "bm25", backend = "hash", top_n = 10, top_n_from = "{src}" }}
"""


class _S:
    def __init__(self, name, type_, params):
        self.name, self.type, self.params = name, type_, params


def _systems(src: str) -> list[_S]:
    return [_S("hcr", "bm25", {}),
            _S("rerank", "rerank", {"method": "maxsim", "first_stage": "bm25", "backend": "hash", "top_n": 10,
                                    "top_n_from": src})]


def test_a_read_of_another_system_of_the_run_is_not_checked_for_a_file_yet():
    check_systems(_systems("hcr"), Path("exp.toml"), TEXT.format(src="hcr"))


def test_a_missing_routing_log_path_is_still_refused_with_its_line(tmp_path):
    missing = str(tmp_path / "nowhere.routing.jsonl")
    with pytest.raises(InputError) as e:
        check_systems(_systems(missing), Path("exp.toml"), TEXT.format(src=missing))
    assert "top_n_from" in str(e.value) and "exp.toml" in str(e.value)
