"""A pool's budget has one bound, ``MAX_BUDGET`` (10,000,000 pairs): ``build_pool --budget``
refuses a larger count with a usage error naming the flag, as the service, the pool form and
``POST /api/v1/datasets/<slug>/pools`` refuse it, and nothing is built; the bound itself is
taken (it judges every pair of a smaller pool)."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.forms import PoolForm
from corpora.models import Pool
from corpora.pool_strategies import MAX_BUDGET
from corpora.services import qrel_set_get
from corpora.services.pools import PoolError, pool_build

# Ranks q1's unjudged d2 and d4 and q2's unjudged d1 (the energy qrels judge q1 d1, q1 d3).
RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q1 Q0 d4 3 1 A", "q2 Q0 d1 1 .9 A"]
OVER = MAX_BUDGET + 1


def test_the_bound_is_ten_million_pairs():
    assert MAX_BUDGET == 10_000_000


@pytest.mark.django_db
def test_build_pool_refuses_a_budget_over_the_bound_naming_the_flag(energy, import_run):
    import_run(energy, "a", RUN_A)
    with pytest.raises(CommandError) as refused:
        call_command("build_pool", "energy", "--runs", "a", "--budget", str(OVER))
    assert str(refused.value) == (
        "Error: argument --budget: budget must be at most 10,000,000 pairs, got 10,000,001"
    )
    assert not Pool.objects.exists()


@pytest.mark.django_db
def test_build_pool_takes_the_bound_itself_and_judges_every_pair(energy, import_run, capsys):
    import_run(energy, "a", RUN_A)
    call_command(
        "build_pool", "energy", "--runs", "a", "--depth", "3", "--budget", str(MAX_BUDGET),
        "--totals-only",
    )  # fmt: skip
    pool = Pool.objects.get()
    assert pool.budget == pool.pairs.count() > 0
    assert "note: budget 10,000,000 is more than the pool's" in capsys.readouterr().out


@pytest.mark.django_db
def test_the_service_refuses_it_too(energy, import_run):
    run = import_run(energy, "a", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")
    with pytest.raises(PoolError, match="budget must be at most 10,000,000 pairs"):
        pool_build(dataset=energy, qrel_set=test, runs=[run], depth=3, budget=OVER)
    assert not Pool.objects.exists()


@pytest.mark.django_db
def test_the_pool_form_refuses_it_beside_the_budget(energy, import_run):
    import_run(energy, "a", RUN_A)
    data = {"qrels": "test", "runs": ["a"], "depth": 3, "strategy": "rbp"}
    assert PoolForm({**data, "budget": MAX_BUDGET}, dataset=energy).is_valid()
    form = PoolForm({**data, "budget": OVER}, dataset=energy)
    assert not form.is_valid()
    assert form.errors["budget"] == ["Ensure this value is less than or equal to 10000000."]


@pytest.mark.django_db
def test_the_api_refuses_it_naming_the_field(api_as, energy, import_run):
    import_run(energy, "a", RUN_A)
    answer = api_as("admin").post(
        "/api/v1/datasets/energy/pools",
        {"runs": ["a"], "strategy": "rbp", "budget": OVER},
        content_type="application/json",
    )
    assert answer.status_code == 422
    assert answer.json()["detail"] == "budget: Input should be less than or equal to 10000000"
    assert not Pool.objects.exists()
