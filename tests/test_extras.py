"""The install a user gets runs what it promises: every third-party import of ``src/`` is a core dependency or an
extra's package (hcrbench.extras), the main job's modules are exactly what ``.[main]`` installs, and a package
missing at run time is one line naming the feature and the extra, exit 2, through the console script."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "cli"))
from core_venv import REPO, _top_levels, core_requirements, dependency_closure

from hcrbench.extras import (
    EXTRA_OF_MODULE,
    MAIN_JOB_EXTRA_INSTALLS,
    MAIN_JOB_MODULES,
    NOT_AN_EXTRA,
    check_main_job,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SRC = REPO / "src" / "hcrbench"
BLOCKER = Path(__file__).resolve().parent / "blocked_imports"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
#: Extras that are not a feature of the product: a module of src must never need them.
NOT_RUNTIME = {"test", "bench", "all"}


def _extra_requirements(extra: str, seen: set[str] | None = None) -> list[str]:
    """The requirement strings of ``extra``, with ``hcrbench[a,b]`` self-references expanded."""
    seen = set() if seen is None else seen
    if extra in seen:
        return []
    seen.add(extra)
    out: list[str] = []
    for req in PYPROJECT["project"]["optional-dependencies"][extra]:
        name = req.split(";")[0].strip()
        if name.startswith("hcrbench["):
            for sub in name[len("hcrbench["):-1].split(","):
                out += _extra_requirements(sub.strip(), seen)
        else:
            out.append(req)
    return out


def _closure_modules(requirements: list[str]) -> set[str]:
    """Top-level importable names of every installed distribution the requirements pull in."""
    mods: set[str] = set()
    for dist in dependency_closure(requirements).values():
        mods |= {t.split(".")[0] for t in _top_levels(dist)}  # a package, or a module file (Stemmer.cpython-...so)
    return mods


@functools.lru_cache(maxsize=1)
def _packages() -> dict[str, list[str]]:
    return metadata.packages_distributions()


def _third_party_imports() -> dict[str, list[str]]:
    """``{top-level module: [file:line, ...]}`` for every absolute import of a non-stdlib, non-hcrbench module."""
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("hcrbench", "__future__"):
                    continue
                found.setdefault(top, []).append(f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_every_third_party_import_of_src_is_a_core_dependency_or_a_runtime_extra():
    core = _closure_modules(core_requirements())
    stray = {m: where for m, where in _third_party_imports().items()
             if m not in core and m not in EXTRA_OF_MODULE and m not in NOT_AN_EXTRA}
    # statsmodels (a test reference only) imported by the power plan killed a new user's first command
    assert not stray, f"imports of packages no runtime extra installs (add to hcrbench.extras): {stray}"
    assert not set(EXTRA_OF_MODULE.values()) & NOT_RUNTIME


@pytest.mark.parametrize("module", sorted(EXTRA_OF_MODULE))
def test_the_extra_named_for_a_module_installs_it(module):
    extra = EXTRA_OF_MODULE[module]
    assert extra in PYPROJECT["project"]["optional-dependencies"], extra
    dists = _packages().get(module)
    if not dists:
        pytest.skip(f"{module} is not installed in the test venv (nothing to compare)")
    wanted = {d.lower().replace("_", "-") for d in dists}
    have = set(dependency_closure(_extra_requirements(extra)))
    assert wanted & have, f"'pip install hcrbench[{extra}]' does not install {module} ({sorted(wanted)})"


def test_the_main_jobs_modules_are_what_the_main_install_brings():
    main = _closure_modules(_extra_requirements("main") + core_requirements())
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for encoder, modules in MAIN_JOB_MODULES.items():
        for module in modules:
            top = module.split(".")[0]
            if module in MAIN_JOB_EXTRA_INSTALLS:  # installed beside .[main] by the Makefile
                assert MAIN_JOB_EXTRA_INSTALLS[module].replace("pip ", "$(PIP) ") in makefile, module
            else:
                assert top in main, f"{encoder}: {module} is not installed by .[main]"
    check_main_job("minilm")  # the test venv has the whole main install


def _blocked_env(tmp: Path, modules: str, *, at_exec: bool = False) -> dict[str, str]:
    env = dict(os.environ, HCRBENCH_HOME=str(tmp / "home"), HCRBENCH_PROGRESS="0",
               PYTHONPATH=os.pathsep.join([str(BLOCKER), os.environ.get("PYTHONPATH", "")]),
               HCRBENCH_TEST_BLOCK=modules)
    if at_exec:
        env["HCRBENCH_TEST_BLOCK_AT"] = "exec"
    return env


def _hcrbench() -> str:
    exe = Path(sys.executable).with_name("hcrbench")
    return str(exe) if exe.is_file() else "hcrbench"


def test_a_main_job_without_an_optional_package_says_so_in_one_line_before_any_work(tmp_path):
    out = tmp_path / "qs"
    r = subprocess.run([_hcrbench(), "quickstart", "--worlds", "1", "--out", str(out), "--seed", "3"], capture_output=True,
                       text=True, env=_blocked_env(tmp_path, "umap"), timeout=120, check=False)
    assert r.returncode == 2, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "RAPTOR's clustering needs 'umap'" in lines[0] and "pip install 'hcrbench[main]'" in lines[0]
    assert not out.exists()  # nothing was run


def test_an_import_that_fails_at_run_time_is_one_line_naming_the_feature_and_the_extra(tmp_path):
    """The module is found (the preflight passes) but fails when imported, as a broken or partial install
    does: the command that reaches it ends with one line and exit 2, no traceback."""
    qrels = REPO / "examples" / "cranfield.qrels"
    r = subprocess.run([_hcrbench(), "retrieve", "--dataset", str(REPO.parent / "shared" / "datasets" / "scifact"),
                        "--split", "test", "--system", "bm25", "--out", str(tmp_path / "r.trec")],
                       capture_output=True, text=True, env=_blocked_env(tmp_path, "bm25s", at_exec=True),
                       timeout=300, check=False)
    assert qrels.is_file()
    assert r.returncode == 2, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "BM25 (bm25s) needs the optional package 'bm25s'" in lines[0]
    assert "pip install 'hcrbench[bm25]'" in lines[0]
    assert not (tmp_path / "r.trec").exists()


def test_an_unmapped_module_missing_at_run_time_is_still_one_line(tmp_path):
    r = subprocess.run([_hcrbench(), "evaluate", str(REPO / "examples" / "cranfield.qrels"),
                        str(REPO / "examples" / "bm25.trec"), "-m", "nDCG@10"],
                       capture_output=True, text=True, env=_blocked_env(tmp_path, "rich.table", at_exec=True),
                       timeout=120, check=False)
    assert r.returncode == 2, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "'rich'" in lines[0] and "pip install" in lines[0]


@pytest.mark.slow
def test_the_hash_main_job_imports_nothing_outside_the_main_install(tmp_path):
    """Every package the test venv has but ``.[main]`` does not install is blocked; the model-free main job
    still ends with its verdicts (CI runs the MiniLM main job in a real ``.[main]`` venv: .ci/run)."""
    main = _closure_modules(_extra_requirements("main") + core_requirements())
    extras = set()
    for name in PYPROJECT["project"]["optional-dependencies"]:
        extras |= _closure_modules([r for r in _extra_requirements(name) if _installed(r)])
    blocked = sorted(m for m in extras - main if m.isidentifier())
    assert "statsmodels" in blocked and "torch" in blocked
    out = tmp_path / "qs"
    r = subprocess.run([_hcrbench(), "quickstart", "--worlds", "1", "--out", str(out), "--encoder", "hash", "--seeds", "2",
                        "--n-trials", "40", "--resamples", "500", "--seed", "0"], capture_output=True, text=True,
                       env=_blocked_env(tmp_path, ",".join(blocked)), timeout=1200, check=False)
    assert r.returncode in (0, 1), r.stderr[-3000:]
    assert (out / "verdicts.json").is_file() and (out / "report.html").is_file()


def _installed(req: str) -> bool:
    from packaging.requirements import Requirement

    try:
        metadata.distribution(Requirement(req).name)
    except metadata.PackageNotFoundError:
        return False
    return True
