"""The modules of ``hcrbench.data`` import each other without a circle (architecture note: "One circle in data/").

Every import counts, also one inside a function (a lazy import is still a dependency: it only hides the circle
until run time). The graph is read with ``ast`` from the source files, so the test needs no import side effects.
"""

from __future__ import annotations

import ast
from pathlib import Path

import hcrbench.data

DATA = Path(hcrbench.data.__file__).parent
PKG = "hcrbench.data"


def _modules() -> dict[str, Path]:
    return {p.stem: p for p in sorted(DATA.glob("*.py")) if p.stem != "__init__"}


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Sibling modules of ``hcrbench.data`` that ``path`` imports (top-level or nested, absolute or relative)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith(PKG + "."):
                    out.add(a.name.split(".")[2])
                elif a.name == PKG:
                    out.add("__init__")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level == 1:  # from . import x / from .x import y
                mod = f"{PKG}.{mod}" if mod else PKG
            if mod == PKG:
                out.update(a.name if a.name in modules else "__init__" for a in node.names)
            elif mod.startswith(PKG + "."):
                out.add(mod.split(".")[2])
    return out


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: _imports(p, set(mods)) - {m} for m, p in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of nodes (first == last), or None (depth-first search, three colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m):], m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_find_cycle_finds_a_planted_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_nested_imports():
    graph = import_graph()
    assert "trec" in graph["beir"]  # top-level import
    assert "irds" in graph["beir"]  # the import inside load_beir (irds: ids)
    assert "cache" in graph["irds"]  # the import inside irds_folder


def test_data_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle in hcrbench.data: " + " -> ".join(cycle)


def test_no_module_of_data_imports_the_package_itself():
    users = sorted(m for m, deps in import_graph().items() if "__init__" in deps)
    assert users == []


def test_types_know_nothing_of_pandas_ranx_or_interop():
    src = (DATA / "types.py").read_text(encoding="utf-8")
    names = {a.name.split(".")[0] for node in ast.walk(ast.parse(src)) if isinstance(node, ast.Import)
             for a in node.names}
    froms = {node.module for node in ast.walk(ast.parse(src)) if isinstance(node, ast.ImportFrom)}
    assert not names & {"pandas", "ranx"}
    assert "hcrbench.data.interop" not in froms


def test_format_readers_sit_below_interop():
    graph = import_graph()
    for reader in ("trec", "beir", "irds", "types", "columns"):
        assert "interop" not in graph[reader], reader


def test_conversion_methods_still_work():
    from hcrbench.data import Qrels, Run
    from hcrbench.data.interop import to_frame

    qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 0}})
    run = Run.from_dict({"q1": {"d1": 0.5, "d2": 0.9}})
    assert qrels.to_frame().equals(to_frame(qrels))
    assert run.to_frame("pyterrier")["docno"].tolist() == ["d2", "d1"]
    assert Qrels.to_frame.__doc__ and Run.to_ranx.__doc__
