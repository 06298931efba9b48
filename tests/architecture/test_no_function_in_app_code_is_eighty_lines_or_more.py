"""No function of the app code or the benches (but five listed) is 80 lines or more: one that long
does several things a newcomer has to tell apart, and its parts deserve names.

The modules are parsed with :mod:`ast`, never imported; a function's length is
``end_lineno - lineno + 1`` (its decorators excluded, its docstring included); nested
functions count on their own and inside the function holding them. Migrations are exempt
(they are generated history).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "manage.py").is_file())
SCANNED = ("core", "corpora", "debates", "assess", "api", "config", "bench")
MAX_LINES = 79
# The benches' set-up and main functions written before this rule, by "path:function": they
# build fixtures step by step and are not app code; none may join, and one that is broken up
# leaves this list (the test says so).
BENCH_KNOWN_LONG = frozenset(
    {
        "bench/debate_bench.py:main",
        "bench/export_bench.py:build",
        "bench/export_bench.py:build_disagreements",
        "bench/ui_load.py:build",
        "bench/ui_load.py:main",
    }
)


def long_functions(source: str, *, limit: int = MAX_LINES) -> list[tuple[str, int, int]]:
    """``(name, first line, lines)`` of every function of ``source`` longer than ``limit``
    lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            if lines > limit:
                found.append((node.name, node.lineno, lines))
    return sorted(found, key=lambda item: item[1])


def test_the_checker_counts_a_functions_lines_from_def_to_its_last_line() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(78))
    source = f"@decorator\ndef short():\n{body}\n\n\nasync def long():\n{body}\n    return 1\n"
    assert long_functions(source) == [("long", 83, 80)]
    assert long_functions(source, limit=80) == []


def test_no_function_in_app_code_is_eighty_lines_or_more() -> None:
    paths = [p for package in SCANNED for p in sorted((ROOT / package).rglob("*.py"))]
    paths = [p for p in paths if "migrations" not in p.parts]
    assert len(paths) > 100  # the scan reached the apps
    found = {
        f"{path.relative_to(ROOT)}:{name}": f"{path.relative_to(ROOT)}:{line}: {name} is {lines}"
        for path in paths
        for name, line, lines in long_functions(path.read_text(encoding="utf-8"))
    }
    new = [said for key, said in sorted(found.items()) if key not in BENCH_KNOWN_LONG]
    assert new == [], "break these into named parts:\n" + "\n".join(new)
    assert sorted(BENCH_KNOWN_LONG - set(found)) == [], "now short: remove from the list"
