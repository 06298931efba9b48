"""The retrieval manual's ``build_pool`` synopsis shows every option ``build_pool --help``
lists (it once left out --strategy and --budget)."""

import re
from pathlib import Path

from corpora.management.commands import build_pool

DOC = Path(__file__).resolve().parents[2] / "docs" / "retrieval-and-pools.md"
DJANGO_OPTIONS = {
    "--help",
    "--version",
    "--verbosity",
    "--settings",
    "--pythonpath",
    "--traceback",
    "--no-color",
    "--force-color",
    "--skip-checks",
}


def test_the_build_pool_synopsis_lists_every_option_of_its_help():
    synopsis = next(
        line
        for line in DOC.read_text().splitlines()
        if line.startswith("./dream manage build_pool")
    )
    options = set(
        re.findall(
            r"\n  (--[a-z-]+)",
            build_pool.Command().create_parser("manage.py", "build_pool").format_help(),
        )
    )
    options -= DJANGO_OPTIONS
    assert options == {
        "--runs",
        "--depth",
        "--qrels",
        "--name",
        "--include-judged",
        "--strategy",
        "--budget",
        "--totals-only",
    }
    for option in options:
        assert option in synopsis, option
