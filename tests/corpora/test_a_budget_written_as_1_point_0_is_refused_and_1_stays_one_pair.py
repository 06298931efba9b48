"""A budget of 1 or more must be written as a whole number of pairs: ``--budget 1.0`` (which
plausibly means the whole pool) or ``2.5`` is refused with words saying what to give, by
``build_pool``, the pool form and ``POST /api/v1/datasets/<slug>/pools`` alike, and nothing
is built; ``1`` stays one pair and ``0.6`` a share."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.forms import PoolForm
from corpora.models import Pool
from corpora.pool_strategies import budget_read
from tests.fixtures.api import wait_for

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q1 Q0 d4 3 1 A", "q2 Q0 d1 1 .9 A"]
WORDS = "give a whole number of pairs (1, 2000) or a share below 1 (0.6)"


@pytest.mark.parametrize(
    ("given", "expected"), [("1", 1), ("2000", 2000), (" 7 ", 7), ("0.6", 0.6), (1, 1), (0.5, 0.5)]
)
def test_a_whole_number_is_a_count_and_below_1_a_share(given, expected):
    read = budget_read(given)
    assert (read, type(read)) == (expected, type(expected))


@pytest.mark.parametrize(
    ("given", "written"), [("1.0", "1.0"), ("2.5", "2.5"), ("1e3", "1e3"), (1.0, "1.0")]
)
def test_a_number_of_1_or_more_not_written_whole_is_refused(given, written):
    with pytest.raises(ValueError) as refused:
        budget_read(given)
    assert str(refused.value) == f"{written}: {WORDS}; leave it out to judge the whole pool"


@pytest.mark.django_db
def test_build_pool_refuses_budget_1_point_0_naming_the_flag(energy, import_run):
    import_run(energy, "a", RUN_A)
    for typed in ("1.0", "2.5"):
        with pytest.raises(CommandError) as refused:
            call_command("build_pool", "energy", "--runs", "a", "--budget", typed)
        assert str(refused.value) == (
            f"Error: argument --budget: {typed}: {WORDS}; leave it out to judge the whole pool"
        )
    assert not Pool.objects.exists()


@pytest.mark.django_db
def test_build_pool_budget_1_is_one_pair(energy, import_run, capsys):
    import_run(energy, "a", RUN_A)
    call_command(
        "build_pool", "energy", "--runs", "a", "--depth", "3", "--strategy", "rbp",
        "--budget", "1", "--totals-only",
    )  # fmt: skip
    assert Pool.objects.get().budget == 1
    assert "budget 1 pair" in capsys.readouterr().out


@pytest.mark.django_db
def test_the_pool_form_refuses_1_point_0_beside_the_field_and_takes_1(energy, import_run):
    import_run(energy, "a", RUN_A)
    data = {"qrels": "test", "runs": ["a"], "depth": 3, "strategy": "rbp"}
    form = PoolForm({**data, "budget": "1.0"}, dataset=energy)
    assert not form.is_valid()
    assert form.errors["budget"] == [f"1.0: {WORDS}; leave the field empty to judge the whole pool"]
    form = PoolForm({**data, "budget": "1"}, dataset=energy)
    assert form.is_valid(), form.errors
    assert form.params()["budget"] == 1


@pytest.mark.django_db
def test_the_api_refuses_json_1_point_0_naming_the_field(api_as, energy, import_run):
    import_run(energy, "a", RUN_A)
    answer = api_as("admin").post(
        "/api/v1/datasets/energy/pools",
        '{"runs": ["a"], "strategy": "rbp", "budget": 1.0}',
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        f"budget: 1.0: {WORDS}; leave it out to judge the whole pool"
    )
    assert not Pool.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_api_takes_json_1_as_one_pair(api_as, energy, import_run):
    import_run(energy, "a", RUN_A)
    api = api_as("admin")
    answer = api.post(
        "/api/v1/datasets/energy/pools",
        '{"runs": ["a"], "depth": 3, "strategy": "rbp", "budget": 1}',
        content_type="application/json",
    )
    assert answer.status_code == 202, answer.content.decode()
    url = answer.json()["url"]
    done = wait_for(lambda: api.get(url).json(), lambda o: o["status"] in ("done", "failed"))
    assert (done["status"], done["result"]["budget"]) == ("done", 1)
