"""Import direction: the library never imports its applications, and no two modules import each
other in a cycle.

The library is every package that games, robots and the proofs import (``LIBRARY`` below); the
applications are what runs it for a user: the command line (``navproof.cli``), scenario loading
(``navproof.scenario``, ``navproof.explain_scenario``), the demos (``navproof.demos``) and the campaigns. ``navproof`` itself
(``runtime/__init__.py``) is the front door: it names the public API and loads it lazily, so it
is outside the rule.

The imports are read from the source files with ``ast`` (nothing is imported):

* the layer rule counts every import of a library module, at module level or inside a function
  (an import deferred into a function is still the library knowing its application);
* the cycle rule between modules counts module-level imports only (including those in class
  bodies and in ``try``/``if`` blocks), since an import inside a function runs after every module
  involved has finished loading and cannot deadlock the import;
* the cycle rule between packages (``navproof.world`` -> ``navproof.handoff``) counts every
  import, so that no package reaches back into one that depends on it;
* imports under ``if TYPE_CHECKING:`` never run and are left out of every rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"navproof": ROOT / "runtime", "navproof.proofs": ROOT / "proofs",
           "navproof.specs": ROOT / "specs"}
LIBRARY = ("core", "solver", "orca", "steering", "boundary", "step", "handoff", "world", "viz",
           "_generated", "proofs", "specs", "navmesh")
APPLICATIONS = ("cli", "scenario", "explain_scenario", "demos", "campaign", "campaigns")
FRONT_DOOR = "navproof"


def _modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (three folders, one import package)."""
    found: dict[str, Path] = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join([package, *parts])
            if package == "navproof" and parts and parts[0] in ("proofs", "specs"):
                continue  # served by their own folders
            found[name] = path
    return found


MODULES = _modules()


def layer_of(module: str) -> str:
    """"front door", "library" or "application" (an unclassified package fails the test)."""
    if module == FRONT_DOOR:
        return "front door"
    top = module.split(".")[1]
    if top in LIBRARY:
        return "library"
    if top in APPLICATIONS:
        return "application"
    return "unclassified"


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _target(module: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The navproof modules one import statement loads."""
    is_package = MODULES[module].name == "__init__.py"
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = module.split(".") if is_package else module.split(".")[:-1]
            anchor = anchor[:len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        # `from pkg import sub` loads the module pkg.sub when it is one, else pkg's attribute
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                 for alias in node.names]
    out = []
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name.startswith("navproof") and name != module:
            out.append(name)
    return out


def imports_of(module: str) -> tuple[set[str], set[str]]:
    """(module-level imports, every import) of ``module`` as navproof module names."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"), filename=str(MODULES[module]))
    top: set[str] = set()
    every: set[str] = set()

    def visit(node: ast.AST, *, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:
                    visit(ast.Module(body=[sub], type_ignores=[]), in_function=in_function)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                targets = _target(module, child)
                every.update(targets)
                if not in_function:
                    top.update(targets)
            visit(child, in_function=in_function or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    visit(tree, in_function=False)
    return top, every


GRAPH = {module: imports_of(module) for module in MODULES}


def back_edges() -> list[tuple[str, str]]:
    """Every import from a library module into an application module."""
    return sorted((src, dst) for src, (_, every) in GRAPH.items() for dst in every
                  if layer_of(src) == "library" and layer_of(dst) == "application")


def package_graph() -> dict[str, tuple[set[str], set[str]]]:
    """Every import between the packages ``navproof.X`` (the front door left out)."""
    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    graph: dict[str, set[str]] = {}
    for src, (_, every) in GRAPH.items():
        if src == FRONT_DOOR:
            continue
        graph.setdefault(package(src), set()).update(
            package(dst) for dst in every if dst != FRONT_DOOR and package(dst) != package(src))
    return {name: (edges, edges) for name, edges in graph.items()}


def cycles() -> list[list[str]]:
    """The strongly connected components (more than one module) of the module-level imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v][0]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            connect(module)
    return found


def test_the_walk_sees_the_whole_package():
    assert {"navproof", "navproof.cli", "navproof.world.world", "navproof.handoff.controller",
            "navproof.proofs.engine", "navproof.specs.profile", "navproof.scenario"} <= set(MODULES)
    # `from pkg import module` is an edge to the module; an import inside a function counts for
    # the layer rule only
    assert "navproof.cli.pictures" in GRAPH["navproof.cli.simulate"][0]
    assert "navproof.cli.output" in GRAPH["navproof.cli.explain"][1] - GRAPH["navproof.cli.explain"][0]


def test_every_package_is_library_or_application():
    unclassified = sorted(m for m in MODULES if layer_of(m) == "unclassified")
    assert unclassified == [], f"classify these in LIBRARY or APPLICATIONS: {unclassified}"


def test_the_library_never_imports_an_application():
    assert back_edges() == []


def test_no_module_level_import_cycle():
    assert cycles() == []


def test_no_import_cycle_between_packages(monkeypatch):
    monkeypatch.setitem(globals(), "GRAPH", package_graph())
    assert cycles() == []


@pytest.mark.parametrize(("graph", "expected"), [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
])
def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle(monkeypatch, graph, expected):
    monkeypatch.setitem(globals(), "GRAPH", {k: (v, v) for k, v in graph.items()})
    assert cycles() == expected
