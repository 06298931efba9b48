"""``--check-judged`` (the form's checkbox, the API's ``check_judged``) on a pool without judged
pairs is refused with the same words everywhere, naming the pool and how to build one that
has them, and creates no job and no debate. A check cannot run stage 0 either: its judge
learns from the very qrels being checked."""

import pytest
from django.core.management import CommandError, call_command

from debates.models import Debate, DebateJob
from debates.services.common import DebateJobError
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import AGENT_A, AGENT_B, job_form_data

REFUSAL = "check_judged: pool tiny/p has no judged pairs: build it with --include-judged"


def _nothing_created() -> bool:
    return DebateJob.objects.count() == 0 and Debate.objects.count() == 0


@pytest.mark.django_db
def test_the_launch_service_refuses_it(tiny_dataset, fake_llms):
    pool = tiny_dataset.pools.get()
    assert not pool.pairs.filter(original_relevance__isnull=False).exists()
    spec = JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, check_judged=True)
    with pytest.raises(DebateJobError) as refused:
        debate_job_launch(spec=spec)
    assert str(refused.value) == REFUSAL
    assert _nothing_created()


@pytest.mark.django_db
def test_the_command_refuses_it(tiny_dataset, fake_llms):
    with pytest.raises(CommandError) as refused:
        call_command("run_debates", "tiny/p", "--backend", "test", "--check-judged")
    assert str(refused.value) == REFUSAL
    assert _nothing_created()


@pytest.mark.django_db
def test_the_job_form_refuses_it(tiny_dataset, client_as):
    pool = tiny_dataset.pools.get()
    answer = client_as("admin").post("/jobs/new/", job_form_data(pool.pk, check_judged="on"))
    assert answer.status_code == 200
    assert REFUSAL in answer.content.decode()
    assert _nothing_created()


@pytest.mark.django_db
def test_the_api_refuses_it(tiny_dataset, api_as):
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, "check_judged": True}
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 400, answer.content
    # The API names the pool route's JSON field, not the command's flag.
    assert answer.json()["detail"] == (
        "check_judged: pool tiny/p has no judged pairs: build a pool that keeps them with "
        '"include_judged": true (POST /api/v1/datasets/tiny/pools) and launch on it'
    )
    assert _nothing_created()


@pytest.mark.django_db
def test_a_check_with_stage0_is_refused(small_pool, fake_llms):
    spec = JobSpec(
        pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, check_judged=True, stage0=True
    )
    with pytest.raises(DebateJobError, match="check_judged: stage 0 learns from the qrels"):
        debate_job_launch(spec=spec)
    assert _nothing_created()
