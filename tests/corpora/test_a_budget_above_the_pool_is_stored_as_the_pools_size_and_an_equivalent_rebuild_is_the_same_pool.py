"""A budget larger than the pool is stored as the pool's size, the budget it works out to
and the one the build prints; a rebuild whose budget works out to the same number of pairs
(the pool's size, no budget, the same large count) is the same pool, and another is refused
naming the stored budget. ``build_pool --help`` gives the default name's real rule."""

import pytest
from django.core.management import call_command

from corpora.management.commands.build_pool import Command as BuildPool
from corpora.services import PoolError, pool_build, qrel_set_get

# Depth 3: q1 d2, q1 d4, q2 d1 unjudged from run a; run b adds q2 d2 (4 pairs).
RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q1 Q0 d4 3 1 A", "q2 Q0 d1 1 .9 A"]
RUN_B = ["q1 Q0 d2 1 3 B", "q1 Q0 d3 2 2 B", "q2 Q0 d2 1 .9 B"]


@pytest.mark.django_db
def test_a_budget_above_the_pool_is_stored_as_its_size_and_equivalent_rebuilds_are_accepted(
    energy, import_run
):
    run_a = import_run(energy, "a", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")

    def build(budget, runs=(run_a,)):
        return pool_build(
            dataset=energy, qrel_set=test, runs=list(runs), depth=3, strategy="bandit",
            budget=budget,
        )  # fmt: skip

    first = build(999999)
    assert first.budget_note == (
        "budget 999,999 is more than the pool's 3 pairs: every pair is judged"
    )
    assert first.pool.budget == 3
    assert first.pool.strategy_parameters["budget_asked"] == 3
    for same in (3, None, 999999, 50):
        again = build(same)
        assert (again.created_pairs, again.pool.pk, again.pool.budget) == (0, first.pool.pk, 3)
    with pytest.raises(PoolError, match="exists with .*strategy bandit, budget 3: build it"):
        build(2)
    # Growing the pool with a large count again judges every pair of the larger pool.
    grown = build(999999, runs=(run_a, import_run(energy, "b", RUN_B)))
    assert grown.created_pairs == 1
    assert grown.pool.budget == 4 and grown.pool.strategy_parameters["budget_asked"] == 4


@pytest.mark.django_db
def test_the_command_prints_the_budget_it_stores(energy, import_run, capsys):
    import_run(energy, "a", RUN_A)
    args = ["build_pool", "energy", "--runs", "a", "--depth", "3", "--strategy", "bandit"]
    call_command(*args, "--budget", "999999", "--totals-only")
    assert "; budget 3 pairs\n" in capsys.readouterr().out
    call_command(*args, "--budget", "3", "--totals-only")
    call_command(*args, "--totals-only")
    assert capsys.readouterr().out.count("; budget 3 pairs\n") == 2


def test_build_pool_help_gives_the_default_names_rule_with_judged_and_strategy():
    text = " ".join(BuildPool().create_parser("manage.py", "build_pool").format_help().split())
    assert (
        "default: <qrels>-depth<k>, then -judged with --include-judged and -<strategy> for a "
        "strategy other than depth, e.g. test-depth10-bandit" in text
    )
