"""No module of the app code is over 700 lines: one that long holds several subjects a
newcomer has to tell apart, and each deserves its own module (a package when they share a
name, as ``debates.models`` does). Migrations are exempt (they are generated history); the
benches and tests are not app code."""

from __future__ import annotations

from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "manage.py").is_file())
SCANNED = ("core", "corpora", "debates", "assess", "api", "config")
MAX_LINES = 700


def lines_of(text: str) -> int:
    """The lines of a module's text as an editor numbers them (a last line without its
    newline counts; an empty text has none)."""
    return len(text.splitlines())


def test_a_module_is_counted_by_its_lines_with_or_without_a_last_newline() -> None:
    assert lines_of("") == 0
    assert lines_of("a = 1\nb = 2\n") == 2
    assert lines_of("a = 1\nb = 2") == 2
    assert lines_of("a = 1\n\n\n") == 3


def test_no_module_in_app_code_is_over_seven_hundred_lines() -> None:
    paths = [p for package in SCANNED for p in sorted((ROOT / package).rglob("*.py"))]
    paths = [p for p in paths if "migrations" not in p.parts]
    assert len(paths) > 100  # the scan reached the apps
    long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in paths
        if (lines := lines_of(path.read_text(encoding="utf-8"))) > MAX_LINES
    ]
    assert long == [], f"split these (at most {MAX_LINES} lines a module):\n" + "\n".join(long)
