"""A refused agent setting is named by the flag that sets it, beside the config's own words:
the user of ``run_debates`` typed ``--model-b``, not ``model``."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates.models import DebateJob


@pytest.mark.django_db
def test_agent_bs_own_backend_names_its_b_flag(small_pool):
    with pytest.raises(CommandError) as refused:
        call_command("run_debates", "small/pool", "--backend-b", "openai")
    assert str(refused.value) == (
        "agent B: model: required for the openai backend (e.g. gpt-4o-mini) (flag --model-b)"
    )
    assert DebateJob.objects.count() == 0


@pytest.mark.django_db
def test_agent_as_own_flag_needs_no_naming(small_pool):
    with pytest.raises(CommandError) as refused:
        call_command("run_debates", "small/pool", "--backend", "openai")
    assert str(refused.value) == (
        "agent A: model: required for the openai backend (e.g. gpt-4o-mini)"
    )


@pytest.mark.django_db
def test_a_message_about_no_field_is_left_as_it_is(small_pool):
    with pytest.raises(CommandError) as refused:
        call_command("run_debates", "small/pool", "--rounds", "9")
    assert "(flag" not in str(refused.value)
