"""The module paths of ``hcrbench.synth`` from before its sub-packages still import, as the same module objects
(one alias table, ``hcrbench.synth.OLD_MODULES``), and the table names no module that is gone or shadowed."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

import hcrbench.synth as synth
from hcrbench.synth import OLD_MODULES

SYNTH = Path(synth.__file__).parent


@pytest.mark.parametrize("old", sorted(OLD_MODULES))
def test_every_old_path_is_the_new_module_object(old):
    new = importlib.import_module(f"hcrbench.synth.{OLD_MODULES[old]}")
    assert importlib.import_module(f"hcrbench.synth.{old}") is new
    assert sys.modules[f"hcrbench.synth.{old}"] is new
    assert new.__name__ == new.__spec__.name == f"hcrbench.synth.{OLD_MODULES[old]}"  # its own name, not the alias


def test_the_table_holds_no_stale_entry():
    for old, new in OLD_MODULES.items():
        assert (SYNTH / (new.replace(".", "/") + ".py")).is_file(), f"{old} -> {new}: no such module"
        assert not (SYNTH / f"{old}.py").exists() and not (SYNTH / old).is_dir(), f"{old} is a real module again"
    assert len(set(OLD_MODULES.values())) == len(OLD_MODULES)  # one old name per module
    assert not set(OLD_MODULES) & {v.split(".")[0] for v in OLD_MODULES.values()}


def test_from_import_and_patch_reach_the_same_object():
    from hcrbench.synth.catalog import QueryPlan
    from hcrbench.synth.category import QueryCategory, register

    from hcrbench.synth.questions import catalog, category, planner

    assert QueryPlan is catalog.QueryPlan and QueryCategory is category.QueryCategory
    assert register is category.register
    with mock.patch("hcrbench.synth.query_plan.FILL_ORDER", ("patched",)):
        assert planner.FILL_ORDER == ("patched",)
    assert planner.FILL_ORDER != ("patched",)


def test_old_paths_first_in_a_fresh_interpreter_keep_the_describe_function():
    """An old path imported before anything else loads; binding ``hcrbench.synth.describe`` (the old module path)
    leaves the package's exported ``describe`` function in place, as before the move."""
    code = ("import hcrbench.synth.describe, hcrbench.synth.query_gen as g\n"
            "from hcrbench.synth.catalog import QueryPlan\n"
            "from hcrbench.synth import describe\n"
            "import hcrbench.synth.questions.generators as n, hcrbench.synth.checks.describe as d\n"
            "assert g is n and callable(describe) and describe is d.describe, describe\n"
            "assert QueryPlan.__module__ == 'hcrbench.synth.questions.catalog'\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_an_unknown_old_name_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("hcrbench.synth.no_such_module")
