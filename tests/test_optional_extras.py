"""Optional packages are imported only when asked for, and their absence is one line naming the extra."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hcrbench.errors import InputError


def test_spacy_entities_without_spacy_name_the_ner_extra(monkeypatch):
    from hcrbench.retrieve.hcr.links import EntityExtractor

    monkeypatch.setitem(sys.modules, "spacy", None)  # as if not installed
    assert EntityExtractor("regex")(["Rahul Rossi opened INC-20003"]) == [["inc-20003", "rahul rossi"]]
    with pytest.raises(InputError, match=r"pip install 'hcrbench\[ner\]'"):
        EntityExtractor("regex+spacy")


def test_kappa_without_scikit_learn_names_the_agreement_extra(monkeypatch):
    from hcrbench.llm.judge import cohens_kappa

    monkeypatch.setitem(sys.modules, "sklearn", None)  # (tests/llm/test_client.py checks the values)
    monkeypatch.setitem(sys.modules, "sklearn.metrics", None)  # also when an earlier test imported it
    assert cohens_kappa(["a", "a"], ["a", "a"]) is None  # one label: chance agreement 1, undefined
    with pytest.raises(InputError, match=r"pip install 'hcrbench\[agreement\]'"):
        cohens_kappa([1, 0], [0, 1])


def test_importing_hcrbench_loads_no_optional_package():
    probe = ("import sys, hcrbench, hcrbench.data, hcrbench.metrics, hcrbench.data.interop, hcrbench.data.irds\n"
             "heavy = ['pyarrow', 'ranx', 'ir_measures', 'ir_datasets', 'spacy', 'sklearn', 'numba', 'statsmodels']\n"
             "print(' '.join(m for m in heavy if m in sys.modules) or '-')\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "-"
