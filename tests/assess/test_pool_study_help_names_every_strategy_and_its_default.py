"""``pool_study --help`` names every strategy and says its default is bandit (``build_pool``'s
is depth), and the retrieval manual says so next to the command."""

import re
from pathlib import Path

from assess.management.commands import pool_study
from corpora.models import Pool

DOC = Path(__file__).resolve().parents[2] / "docs" / "retrieval-and-pools.md"


def _option_help(command, name: str, option: str) -> str:
    parser = command.Command().create_parser("manage.py", name)
    return next(a.help for a in parser._actions if option in a.option_strings)


def test_the_strategy_help_names_every_strategy_and_the_bandit_default():
    strategy_help = _option_help(pool_study, "pool_study", "--strategy")
    for name in Pool.Strategy.values:
        assert re.search(rf"\b{name}\b", strategy_help), name
    assert "default bandit" in strategy_help
    assert "build_pool's default is depth" in strategy_help


def test_the_default_strategy_is_still_bandit():
    parser = pool_study.Command().create_parser("manage.py", "pool_study")
    assert parser.parse_args(["energy"]).strategy == "bandit"


def test_the_manual_says_the_default_next_to_the_command():
    text = " ".join(DOC.read_text().split())
    assert "defaults to `bandit` (`build_pool`'s defaults to `depth`" in text
