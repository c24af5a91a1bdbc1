"""``quickstart --system``: the subject substituted into the packaged config (hcrbench.protocol.bring)."""

from __future__ import annotations

import pytest

from hcrbench.errors import InputError
from hcrbench.experiment.config import parse_config
from hcrbench.protocol.bring import TREE_ROLES, parse_system, system_types, tomllib, with_subject
from hcrbench.protocol.quickstart import render_config


@pytest.fixture(params=["hash", "minilm"])
def text(request) -> str:
    return render_config(size="small", seed=0, encoder=request.param, seeds=2)


def _spec(text: str, name: str, encoder: str = "hash"):
    return parse_system(name, encoder=encoder, existing=list(system_types(text)))


def test_hcr_is_the_packaged_config_unchanged(text):
    assert with_subject(text, _spec(text, "hcr")) == text


def test_a_builtin_type_becomes_one_more_system_and_the_subject_and_hcr_stays(text, tmp_path):
    spec = _spec(text, "dense")
    if "dense" in system_types(text):  # the MiniLM field already runs dense: it is the subject as it is
        assert not spec.new
    else:
        assert spec.new and spec.params == {"backend": "hash"}
    out = with_subject(text, spec)
    cfg = parse_config(out, tmp_path / "q.toml")
    names = [s.name for s in cfg.systems]
    assert cfg.protocol.system == "dense" and names.count("dense") == 1 and "hcr" in names
    assert all(getattr(cfg.protocol, r) is None for r in TREE_ROLES)  # HCR's ablations are not dense's
    assert cfg.protocol.kill_baseline == tomllib.loads(text)["protocol"]["kill_baseline"]
    assert set(names) - {"dense"} == set(system_types(text)) - {"dense"}  # the field is untouched


def test_an_hcr_variant_keeps_the_tree_roles(text, tmp_path):
    cfg = parse_config(with_subject(text, _spec(text, "hcr-centroid")), tmp_path / "q.toml")
    assert cfg.protocol.system == "hcr-centroid" and cfg.protocol.beam_only == "hcr-beam"


def test_a_runfile_is_named_after_its_file(text, tmp_path):
    run = tmp_path / "my run.trec"
    run.write_text("q1 Q0 d1 1 2.0 x\n")
    spec = _spec(text, f"runfile:{run}")
    assert (spec.name, spec.type, spec.params) == ("my-run", "runfile", {"path": str(run.resolve())})
    cfg = parse_config(with_subject(text, spec), tmp_path / "q.toml")
    assert cfg.protocol.system == "my-run" and cfg.systems[-1].params["path"] == str(run.resolve())


@pytest.mark.parametrize("name,why", [("nope", "unknown system 'nope'"), ("runfile:/no/such.trec", "not found"),
                                      ("", "give a system name")])
def test_what_cannot_be_a_subject_is_one_input_error_naming_the_flag(text, name, why):
    with pytest.raises(InputError) as e:
        _spec(text, name)
    assert e.value.field == "--system" and why in str(e.value)


def test_the_kill_baseline_cannot_be_the_subject(text):
    kill = tomllib.loads(text)["protocol"]["kill_baseline"]
    with pytest.raises(InputError, match="kill baseline"):
        with_subject(text, _spec(text, kill))


def test_a_folder_of_run_files_is_one_file_per_split(text, tmp_path):
    runs = tmp_path / "my-system"
    runs.mkdir()
    for split in ("test", "dev"):
        (runs / f"{split}.trec").write_text("q1 Q0 d1 1 2.0 x\n")
    spec = _spec(text, f"runfile:{runs}")
    assert spec.name == "my-system" and spec.params == {"paths": {"test": str((runs / "test.trec").resolve()),
                                                                  "dev": str((runs / "dev.trec").resolve())}}
    cfg = parse_config(with_subject(text, spec), tmp_path / "q.toml")
    assert cfg.systems[-1].params["paths"]["dev"] == str((runs / "dev.trec").resolve())


def test_split_equals_file_pairs_name_the_subject_after_the_test_file(text, tmp_path):
    a, b = tmp_path / "bm42.trec", tmp_path / "bm42-tune.trec"
    a.write_text("q1 Q0 d1 1 2.0 x\n")
    b.write_text("q1 Q0 d1 1 2.0 x\n")
    spec = _spec(text, f"runfile:test={a},tune={b}")
    assert spec.name == "bm42" and list(spec.params["paths"]) == ["test", "tune"]
