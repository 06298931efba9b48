"""docs/architecture.md's "Layout" is the map a newcomer reads first: it names every module
of the six app packages (migrations aside), each with a description, and nothing that no
longer exists."""

import re
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "manage.py").is_file())
PACKAGES = ("config", "core", "corpora", "debates", "assess", "api")


def _tree_names() -> tuple[set[str], list[str]]:
    """(every module the tree names, the ones named without a description). A line indented
    0, 2 or 4 spaces names what comes before its first run of two spaces; a name ending in
    "/" is a package heading (indent 0) or subpackage (indent 2) the modules below belong to."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("## Layout\n\n```text\n", 1)[1].split("```", 1)[0]
    named: set[str] = set()
    bare: list[str] = []
    top, sub = "", ""
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if indent not in (0, 2, 4) or not line.strip():
            continue
        names, _, rest = line.strip().partition("  ")
        if names.endswith("/"):
            top, sub = (names, "") if indent == 0 else (top, names if indent == 2 else sub)
            continue
        base = top + (sub if indent == 4 else "")
        for name in re.findall(r"\w+\.py", names):
            named.add(base + name)
            if not rest.strip():
                bare.append(base + name)
    return named, bare


def test_the_layout_names_every_module_with_a_description_and_nothing_gone():
    actual = {
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts and path.name != "__init__.py"
    }
    named, bare = _tree_names()
    assert len(actual) > 200  # the scan reached the apps
    assert sorted(actual - named) == []
    assert sorted(n for n in named - actual if n.split("/")[0] in PACKAGES) == []
    assert bare == []
