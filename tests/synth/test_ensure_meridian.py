"""A generated Meridian folder is a cache of (generator version, size, seed, suite): reused only when all four
match, written again otherwise (an upgrade used to leave the old corpus under the new generator's name), and never
written over a folder that is not Meridian's."""

from __future__ import annotations

import json
import warnings

import pytest

from hcrbench.errors import HcrbenchWarning, InputError
from hcrbench.synth.generate import GENERATOR_VERSION, ensure_meridian


def _manifest(folder):
    return json.loads((folder / "manifest.json").read_text())


def test_kept_when_everything_matches_and_rewritten_when_the_version_differs(tmp_path):
    out = tmp_path / "m"
    assert ensure_meridian(out, "small", 3, 120, grow=True) == "generated"
    first = (out / "corpus.jsonl").read_bytes()
    stamp = (out / "corpus.jsonl").stat().st_mtime_ns
    assert ensure_meridian(out, "small", 3, 120, grow=True) == "kept"
    assert (out / "corpus.jsonl").stat().st_mtime_ns == stamp  # not touched
    man = _manifest(out)
    man["generator_version"] = "3.2.0"  # as an older generator wrote it
    (out / "manifest.json").write_text(json.dumps(man))
    (out / "corpus.jsonl").write_text("stale\n")
    done = ensure_meridian(out, "small", 3, 120, grow=True)
    assert done == f"regenerated: generator_version '3.2.0' -> '{GENERATOR_VERSION}'"
    assert (out / "corpus.jsonl").read_bytes() == first and _manifest(out)["generator_version"] == GENERATOR_VERSION


def test_another_seed_or_suite_is_not_served_from_the_folder(tmp_path):
    out = tmp_path / "m"
    ensure_meridian(out, "small", 3, 120, grow=True)
    assert ensure_meridian(out, "small", 4, 120, grow=True) == "regenerated: seed 3 -> 4"
    assert ensure_meridian(out, "small", 4, 130, grow=True) == "regenerated: n_queries 120 -> 130"
    assert _manifest(out)["seed"] == 4 and _manifest(out)["n_queries"] == 130


def test_a_folder_with_someone_elses_manifest_is_refused(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"name": "my-dataset", "seed": 1}))
    with pytest.raises(InputError, match="not Meridian's"):
        ensure_meridian(out, "small", 3, 120, grow=True)
    assert json.loads((out / "manifest.json").read_text())["name"] == "my-dataset"


def test_a_config_on_an_older_generators_folder_warns_and_scores_the_new_corpus(tmp_path):
    from hcrbench.experiment.config import DatasetConfig
    from hcrbench.experiment.dataset import _generate_if_missing

    cfg = DatasetConfig(path="data/m", generate="meridian", size="small", generate_seed=2, generate_queries=120)
    _generate_if_missing(cfg, tmp_path)
    man = _manifest(tmp_path / "data" / "m")
    man["generator_version"] = "0.9.0"
    (tmp_path / "data" / "m" / "manifest.json").write_text(json.dumps(man))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _generate_if_missing(cfg, tmp_path)
    said = [str(w.message) for w in caught if issubclass(w.category, HcrbenchWarning)]
    assert len(said) == 1 and "regenerated: generator_version '0.9.0'" in said[0], said
    assert _manifest(tmp_path / "data" / "m")["generator_version"] == GENERATOR_VERSION
