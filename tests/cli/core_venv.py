"""A virtual environment with hcrbench's core dependencies only (no extras, no click unless typer needs it).

Two ways to get one:

- ``HCRBENCH_CORE_VENV`` names a venv built with pip (``.ci/run`` makes ``.venv-core`` with
  ``pip install .``): the real thing, used as is.
- Otherwise :func:`build_core_venv` makes one in a second: ``python -m venv --without-pip``, then the packages of
  the core dependency closure (read from ``pyproject.toml``'s ``[project].dependencies``, expanded through the
  installed distributions' own requirements) are symlinked from this interpreter's site-packages, hcrbench's
  ``src`` is put on the path by a ``.pth`` file, and ``bin/hcrbench`` is the console script pip would write.
  Nothing is downloaded; the versions are the ones the full install tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

try:
    from packaging.markers import Marker
    from packaging.requirements import Requirement
except ImportError:  # pragma: no cover - pip always vendors it
    from pip._vendor.packaging.markers import Marker  # type: ignore[no-redef]
    from pip._vendor.packaging.requirements import Requirement  # type: ignore[no-redef]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]

SCRIPT = """#!{python}
import sys
from hcrbench.cli import main
if __name__ == "__main__":
    sys.exit(main())
"""


def core_requirements(pyproject: Path = REPO / "pyproject.toml") -> list[str]:
    """hcrbench's core dependencies as written in ``pyproject.toml``."""
    return list(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"])


def _applies(req: Requirement) -> bool:
    return req.marker is None or Marker(str(req.marker)).evaluate({"extra": ""})


def dependency_closure(requirements: list[str]) -> dict[str, metadata.Distribution]:
    """Every installed distribution the requirements need (markers evaluated, extras not followed)."""
    out: dict[str, metadata.Distribution] = {}
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        if not _applies(req):
            continue
        key = req.name.lower().replace("_", "-")
        if key in out:
            continue
        dist = metadata.distribution(req.name)
        out[key] = dist
        todo.extend(Requirement(r) for r in (dist.requires or []))
    return out


def _top_levels(dist: metadata.Distribution) -> set[str]:
    tops = set()
    for f in dist.files or []:
        first = Path(f).parts[0]
        if first not in ("..", "__pycache__") and not first.endswith(".pth"):
            tops.add(first)
    return tops


def build_core_venv(root: Path) -> Path:
    """Create the core-only venv in ``root`` (see the module docstring); returns ``root``."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    for dist in dependency_closure(core_requirements()).values():
        for top in _top_levels(dist):
            src = Path(str(dist.locate_file(top)))
            if src.exists() and not (site / top).exists():
                os.symlink(src, site / top)
    (site / "hcrbench-src.pth").write_text(str(REPO / "src") + "\n")
    script = root / "bin" / "hcrbench"
    script.write_text(SCRIPT.format(python=python))
    script.chmod(0o755)
    return root


def core_venv_from_env() -> Path | None:
    """The pip-built venv named by ``HCRBENCH_CORE_VENV``, if any."""
    value = os.environ.get("HCRBENCH_CORE_VENV")
    return Path(value) if value else None


def venv_env(root: Path) -> dict[str, str]:
    """Environment for running ``root``'s console script: its bin first, no PYTHONPATH leaking the full install."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(root)
    env["HCRBENCH_PROGRESS"] = "0"
    return env
