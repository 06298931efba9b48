"""No module of the apps imports, however indirectly, a module that imports it back.

A circle hides in lazy imports: a service that enqueues a task imports the task module
inside a function, and the task module imports the service. Python copes at run time, but
neither module can then be read, tested or moved without the other, and which one loads
first decides what works. So every import counts here, those inside functions and under
``if TYPE_CHECKING:`` too: the modules are parsed with :mod:`ast`
(:func:`~tests.architecture.test_imports_follow_the_package_rules.imports_of`), never
imported. A circle is found as a strongly connected component of the import graph (Tarjan).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .test_imports_follow_the_package_rules import ROOT, app_modules, imports_of


def module_of(path: Path) -> tuple[str, bool]:
    """The dotted name of the module at ``path`` (under the repository root) and whether it
    is a package's ``__init__``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def import_graph(sources: Mapping[Path, str]) -> dict[str, set[str]]:
    """module -> the modules of the graph it imports (lazily or not), for the modules whose
    source is given by path. Imports of modules outside ``sources`` are left out."""
    graph: dict[str, set[str]] = {}
    for path, source in sources.items():
        module, is_package = module_of(path)
        graph[module] = {t for _, t in imports_of(module, source, is_package=is_package)}
    return {module: targets & graph.keys() - {module} for module, targets in graph.items()}


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every import circle of ``graph``: its strongly connected components of two modules or
    more, each sorted, in the order of their first module. Iterative Tarjan (no recursion
    limit on a deep graph)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _edges(graph: Mapping[str, set[str]], circle: list[str]) -> str:
    members = set(circle)
    return "; ".join(
        f"{module} -> {', '.join(sorted(graph[module] & members))}" for module in circle
    )


def test_no_module_of_the_apps_is_in_an_import_circle():
    paths = app_modules()
    assert len(paths) > 100, "the app packages were not found"
    graph = import_graph({path: path.read_text("utf-8") for path in paths})
    found = circles(graph)
    assert not found, "import circles (module -> what it imports of the circle):\n" + "\n".join(
        _edges(graph, c) for c in found
    )


def test_a_circle_through_a_lazy_import_is_found():
    sources = {
        ROOT / "debates/services/queue.py": (
            "from debates.models import Debate\n"
            "def enqueue():\n"
            "    from debates.tasks import run_debate\n"
        ),
        ROOT / "debates/tasks.py": "def run_debate():\n    from .services.queue import x\n",
        ROOT / "debates/models/__init__.py": "",
    }
    assert circles(import_graph(sources)) == [["debates.services.queue", "debates.tasks"]]


def test_a_circle_of_three_modules_is_found_once_and_a_chain_is_not_one():
    graph = {
        "a.x": {"a.y"},
        "a.y": {"a.z"},
        "a.z": {"a.x", "a.w"},
        "a.w": {"b.v"},
        "b.v": set(),
    }
    assert circles(graph) == [["a.x", "a.y", "a.z"]]
    graph["a.z"] = {"a.w"}
    assert circles(graph) == []
