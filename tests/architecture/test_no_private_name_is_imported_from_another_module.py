"""No module of the apps imports another module's private name (one with a leading
underscore): a name used across modules is part of its module's interface, so it is public,
named and documented as such, or it moves to where it is used.

Checked with :mod:`ast` (never importing), every ``from ... import _name`` counts, also those
inside functions. A private *module* is not a private name: Django's commands folder hides its
helper modules from ``manage.py`` by that underscore (``management/commands/_jobs.py``), and
what they define is meant to be imported by the commands.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .test_imports_follow_the_package_rules import APPS, ROOT, _is_module, app_modules


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(path: Path, source: str) -> list[str]:
    """``file:line: ...`` for every private name the module at ``path`` imports from another
    module of the apps (relative imports resolved against ``path``)."""
    rel = path.relative_to(ROOT)
    parts = list(rel.with_suffix("").parts)
    here = parts[:-1]  # the package a relative import starts from
    problems = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = here[: len(here) - (node.level - 1)]
            stem = ".".join(base + ([node.module] if node.module else []))
        else:
            stem = node.module or ""
        if stem.split(".")[0] not in APPS:
            continue
        problems.extend(
            f"{rel}:{node.lineno}: imports {alias.name} from {stem}: make it public "
            "(no underscore, a docstring) or move it to where it is used"
            for alias in node.names
            if _private(alias.name) and not _is_module(f"{stem}.{alias.name}")
        )
    return problems


def test_no_module_of_the_apps_imports_a_private_name_of_another():
    paths = app_modules()
    assert len(paths) > 100, "the app packages were not found"
    problems = [p for path in paths for p in private_imports(path, path.read_text("utf-8"))]
    assert not problems, "private names imported across modules:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source", "line", "name"),
    [
        ("corpora/services/runs.py", "from .datasets import _copy_rows, x\n", 1, "_copy_rows"),
        ("assess/review/annotators.py", "from assess.review.selectors import _top\n", 1, "_top"),
        ("corpora/views.py", "def f():\n    from .upload_views import _forms\n", 2, "_forms"),
        ("debates/estimate.py", "import os\nfrom ..debates.engine import _b\n", 2, "_b"),
    ],
)
def test_a_private_name_imported_from_another_module_is_named_with_file_and_line(
    module, source, line, name
):
    found = private_imports(ROOT / module, source)
    assert len(found) == 1 and found[0].startswith(f"{module}:{line}: imports {name} from ")


@pytest.mark.parametrize(
    "source",
    [
        "from corpora.management.commands._common import load_dataset\n",
        "from django.db.models import _something\n",
        "from .datasets import copy_rows, __all__\n",
        "from corpora.management.commands import _common\n",
    ],
)
def test_public_names_dunders_private_modules_and_other_libraries_pass(source):
    assert private_imports(ROOT / "corpora/management/commands/import_run.py", source) == []
