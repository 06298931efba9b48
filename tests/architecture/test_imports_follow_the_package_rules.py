"""Every module of the app packages imports only what its package's rule allows.

The rule table, :data:`RULES`, is the one place the dependency rules are written. Each
package's ``__init__.py`` states its own rule in its docstring, in one line of the form
``May import: core, corpora.`` (``nothing`` for none, ``anything`` for no limit); a package
may always import itself and its subpackages. :func:`test_every_init_states_its_rule` checks
those lines against the table.

The modules are parsed with :mod:`ast`, never imported, so no import is executed and every
``import``/``from ... import`` counts, also those inside functions or ``if TYPE_CHECKING:``.
A module belongs to the longest package name in the table that contains it; migrations are
exempt (they are frozen history, the migration chain must not change).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "manage.py").is_file())
APPS = ("core", "corpora", "debates", "assess", "config")
ANYTHING = "anything"

# package: the other packages its modules may import (besides itself and its subpackages).
RULES: dict[str, tuple[str, ...] | str] = {
    "core": (),
    "corpora": ("core",),
    "corpora.services": ("core", "corpora"),
    "debates": ("core", "corpora"),
    "debates.llm": (),
    # Stage 0 reads the app's models and the assessor's settings (debates' own modules may
    # import it, as any subpackage of theirs).
    "debates.stage0": ("core", "corpora", "debates"),
    # assess's own modules (apps, admin, tasks, receivers, pipeline, management) reach every
    # assess package; its packages below are narrower.
    "assess": ("core", "corpora", "debates"),
    "assess.models": ("core", "corpora", "debates"),
    "assess.review": ("core", "corpora", "debates", "assess.models"),
    "assess.refined": ("core", "corpora", "debates", "assess.models", "assess.review"),
    "assess.evaluation": ("core", "corpora", "debates", "assess.models"),
    # The HTTP API sits on top: it calls the services of every app, none calls it.
    "api": ("core", "corpora", "debates", "assess"),
    "config": ANYTHING,
}


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def package_of(module: str) -> str:
    """The rule a module follows: the longest package of :data:`RULES` containing it."""
    owners = [p for p in RULES if _inside(module, p)]
    if not owners:
        raise LookupError(f"{module} is in no package of the rule table")
    return max(owners, key=len)


def allowed(module: str, target: str) -> bool:
    """True if ``module`` may import ``target`` (a dotted name inside one of the apps): the
    target is in the module's own package, or in a package its rule names."""
    package = package_of(module)
    rule = RULES[package]
    return rule == ANYTHING or any(_inside(target, p) for p in (package, *rule))


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of(module: str, source: str, *, is_package: bool) -> list[tuple[int, str]]:
    """``(line, dotted name)`` for every import of ``source`` that reaches one of the apps.
    ``from a.b import c`` names ``a.b.c`` when ``c`` is a module, else ``a.b``; relative
    imports are resolved against ``module``."""
    found: list[tuple[int, str]] = []
    here = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            names = []
            for alias in node.names:
                sub = f"{stem}.{alias.name}"
                names.append(sub if alias.name != "*" and _is_module(sub) else stem)
        else:
            continue
        found.extend((node.lineno, n) for n in names if n.split(".")[0] in APPS)
    return found


def violations(path: Path, source: str) -> list[str]:
    """``file:line: ...`` for every import of the module at ``path`` against the rules."""
    rel = path.relative_to(ROOT)
    parts = list(rel.with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    module = ".".join(parts)
    package = package_of(module)
    return [
        f"{rel}:{line}: {module} imports {target}, but {package} may import only: "
        f"{', '.join(RULES[package]) or 'nothing'} (tests/architecture/"
        f"test_imports_follow_the_package_rules.py, RULES)"
        for line, target in imports_of(module, source, is_package=is_package)
        if not allowed(module, target)
    ]


def app_modules() -> list[Path]:
    return sorted(
        path
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.relative_to(ROOT).parts
    )


def test_every_module_imports_only_what_its_package_allows():
    paths = app_modules()
    assert len(paths) > 100, "the app packages were not found"
    problems = [v for path in paths for v in violations(path, path.read_text("utf-8"))]
    assert not problems, "imports against the package rules:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source", "line", "target"),
    [
        (
            "assess/review/views.py",
            "import os\nfrom ..refined.cost import cost_rows\n",
            2,
            "assess.refined.cost",
        ),
        (
            "assess/evaluation/x.py",
            "def f():\n    from assess.review import services\n",
            2,
            "assess.review.services",
        ),
        (
            "assess/models/x.py",
            "from assess.review.budget import pair_impact\n",
            1,
            "assess.review.budget",
        ),
        ("debates/engine.py", "from assess.models import ReviewItem\n", 1, "assess.models"),
        ("corpora/models.py", "import debates.models\n", 1, "debates.models"),
        ("core/roles.py", "from corpora import views\n", 1, "corpora.views"),
        ("debates/llm/base.py", "from debates.models import Debate\n", 1, "debates.models"),
    ],
)
def test_a_forbidden_import_is_named_with_file_and_line(module, source, line, target):
    found = violations(ROOT / module, source)
    assert len(found) == 1 and found[0].startswith(f"{module}:{line}: ") and target in found[0]


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("assess/refined/labels.py", "from ..review.agreement import majority_label\n"),
        ("assess/pipeline.py", "from assess.refined import refine\nfrom .evaluation import x\n"),
        ("assess/management/commands/demo.py", "from assess.review.services import sync\n"),
        ("assess/review/views.py", "from ..models import ReviewItem\nfrom . import budget\n"),
        ("debates/views.py", "from corpora.models import Pool\nfrom core.roles import Role\n"),
        ("config/urls.py", "from assess.review import urls\n"),
        ("corpora/services/runs.py", "from corpora.models import Run\nfrom ..formats import x\n"),
    ],
)
def test_an_allowed_import_passes(module, source):
    assert violations(ROOT / module, source) == []


_RULE_LINE = re.compile(r"^May import: (?P<names>.+?)\.?$", re.MULTILINE)


def stated_rule(package: str) -> tuple[str, ...] | str | None:
    """The ``May import:`` line of the package's ``__init__.py`` docstring, or None."""
    init = ROOT.joinpath(*package.split("."), "__init__.py")
    doc = ast.get_docstring(ast.parse(init.read_text("utf-8"))) or ""
    lines = _RULE_LINE.findall(doc)
    if not lines:
        return None
    assert len(lines) == 1, f"{init.relative_to(ROOT)}: more than one 'May import:' line"
    names = tuple(n.strip() for n in lines[0].split(","))
    if names == ("nothing",):
        return ()
    if names == (ANYTHING,):
        return ANYTHING
    return names


def test_every_init_states_its_rule():
    problems = []
    for package, rule in RULES.items():
        stated = stated_rule(package)
        if stated is None:
            problems.append(
                f"{package.replace('.', '/')}/__init__.py: its docstring has no 'May import:' line"
            )
        elif (stated if stated == ANYTHING else set(stated)) != (
            rule if rule == ANYTHING else set(rule)
        ):
            problems.append(
                f"{package.replace('.', '/')}/__init__.py says {stated}, the table says {rule}"
            )
    # A package without its own row (debates.services, management, templatetags) follows its
    # parent's rule; if its docstring states one anyway, it must be that rule.
    for path in app_modules():
        if path.name != "__init__.py":
            continue
        package = ".".join(path.relative_to(ROOT).parent.parts)
        if package in RULES:
            continue
        stated = stated_rule(package)
        rule = RULES[package_of(package)]
        if stated is not None and (stated if stated == ANYTHING else set(stated)) != (
            rule if rule == ANYTHING else set(rule)
        ):
            problems.append(
                f"{package.replace('.', '/')}/__init__.py says {stated}, its rule is {rule}"
            )
    assert not problems, "\n".join(problems)


def rule_exceptions(rules: dict[str, tuple[str, ...] | str]) -> list[str]:
    """The names in ``rules`` that are not rows of it: a rule reaches whole packages of the
    table, never one chosen module (such an exception is a circle between two packages in
    disguise: the module's package may import the one whose rule names it)."""
    return [
        f"{package} may import {name}, which is no package of the table"
        for package, rule in rules.items()
        if rule != ANYTHING
        for name in rule
        if name not in rules
    ]


def test_every_rule_names_whole_packages_of_the_table():
    assert rule_exceptions(RULES) == []


def test_a_rule_naming_one_module_of_another_package_is_an_exception():
    rules: dict[str, tuple[str, ...] | str] = {
        "debates": ("core",),
        "debates.llm": ("debates.ratelimit",),
        "core": (),
        "config": ANYTHING,
    }
    assert rule_exceptions(rules) == [
        "debates.llm may import debates.ratelimit, which is no package of the table"
    ]
