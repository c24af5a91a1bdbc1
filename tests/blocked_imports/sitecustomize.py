"""Makes the modules named in ``HCRBENCH_TEST_BLOCK`` (comma-separated) unimportable in this interpreter and its
children, as if their packages were not installed (tests/test_extras.py puts this folder on PYTHONPATH).

With ``HCRBENCH_TEST_BLOCK_AT=exec`` a blocked module is still *found* (``importlib.util.find_spec`` succeeds, as
for a broken or partial install) and fails only when imported, so the error surfaces at run time."""

import importlib.abc
import importlib.machinery
import os
import sys

_BLOCKED = {m.strip() for m in os.environ.get("HCRBENCH_TEST_BLOCK", "").split(",") if m.strip()}
_AT_EXEC = os.environ.get("HCRBENCH_TEST_BLOCK_AT") == "exec"


def _blocked(name: str) -> bool:
    return any(name == b or name.startswith(b + ".") for b in _BLOCKED)


class _FailingLoader(importlib.abc.Loader):
    def create_module(self, spec):
        raise ModuleNotFoundError(f"No module named {spec.name!r}", name=spec.name)

    def exec_module(self, module):  # pragma: no cover - create_module always raises
        raise ModuleNotFoundError(f"No module named {module.__name__!r}", name=module.__name__)


class _Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not _blocked(fullname):
            return None
        if _AT_EXEC:
            return importlib.machinery.ModuleSpec(fullname, _FailingLoader())
        raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)


if _BLOCKED:
    for _name in [n for n in sys.modules if _blocked(n)]:
        del sys.modules[_name]
    sys.meta_path.insert(0, _Blocker())
