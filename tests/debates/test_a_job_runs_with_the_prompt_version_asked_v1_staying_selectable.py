"""A new job takes the shared-prefix prompts (dream-v2) unless ``--prompt-version`` (run_debates,
evaluate_assessor), ``JobSpec.prompt_version`` or the job form's "Prompt version" asks for the
v1 layout, which reproduces jobs made before; a version of the other scale is refused naming
the ones there are, and a stored job is run and resumed with its own version."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from debates.llm.base import LLMResult
from debates.llm.scripted import RuleClient
from debates.models import DebateJob, Turn
from debates.services import debate_job_run_inline
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.datasets import write_beir
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import job_form_data, reply


def keep_stance(messages):
    return LLMResult(reply(int(stance_in(messages) == "relevant")), "rule", 100, 10, 5.0, "stop")


@pytest.fixture
def rule_agents(monkeypatch):
    client = RuleClient(keep_stance)
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )
    return client


def _systems(client: RuleClient) -> set[str]:
    return {call.system for call in client.calls}


@pytest.mark.django_db
def test_run_debates_defaults_to_v2_and_takes_v1_when_asked(small_pool, rule_agents):
    call_command("run_debates", "small/pool", "--rounds", "1", "--limit", "1", "--no-progress")
    job = DebateJob.objects.get()
    assert job.prompt_version == "dream-v2"
    assert set(Turn.objects.values_list("prompt_version", flat=True)) == {"dream-v2"}
    assert len(_systems(rule_agents)) == 1  # one system prompt for both agents

    rule_agents.calls.clear()
    args = ("--rounds", "1", "--limit", "1", "--prompt-version", "dream-v1", "--no-progress")
    call_command("run_debates", "small/pool", *args)
    old = DebateJob.objects.latest("pk")
    assert old.prompt_version == "dream-v1"
    assert set(old.debates.get().turns.values_list("prompt_version", flat=True)) == {"dream-v1"}
    systems = _systems(rule_agents)
    assert len(systems) == 2 and all("Your initial stance:" in s for s in systems)
    assert {d.status for d in old.debates.all()} == {"escalated"}  # stances kept, as in v2


@pytest.mark.django_db
def test_a_version_of_the_other_scale_is_refused_naming_the_available_ones(small_pool, rule_agents):
    with pytest.raises(CommandError) as refused:
        call_command(
            "run_debates", "small/pool", "--prompt-version", "dream-graded-v1", "--no-progress"
        )
    assert str(refused.value) == (
        "prompt version 'dream-graded-v1' is not available for binary debates (this code has "
        "'dream-v1', 'dream-v2')"
    )
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_a_stored_v1_job_is_run_with_the_v1_prompts(small_pool, rule_agents):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, rounds=1, limit=1, prompt_version="dream-v1"), start=False
    )

    debate_job_run_inline(job=job)

    (call_a, call_b) = rule_agents.calls
    assert "Your initial stance: RELEVANT (label 1)" in call_a.system
    assert "Your initial stance: IRRELEVANT (label 0)" in call_b.system


@pytest.mark.django_db
def test_evaluate_assessor_takes_the_prompt_version(tmp_path, rule_agents):
    from corpora.services import dataset_import_beir

    corpus = [{"_id": f"d{i}", "title": "", "text": f"text {i}"} for i in (1, 2, 3, 4)]
    qrels = "q1\td1\t1\nq1\td2\t1\nq1\td3\t0\nq1\td4\t0\n"
    queries = [{"_id": "q1", "text": "first"}]
    folder = write_beir(tmp_path / "gold", corpus=corpus, queries=queries, qrels={"test": qrels})
    dataset_import_beir(path=folder, name="gold")

    call_command(
        "evaluate_assessor",
        "gold",
        "--sample",
        "2",
        "--rounds",
        "1",
        "--prompt-version",
        "dream-v1",
        "--no-baseline",
        "--no-progress",
    )
    assert DebateJob.objects.get(note="evaluate_assessor").prompt_version == "dream-v1"


def test_the_job_form_offers_the_prompt_version_and_launches_a_v1_job(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    page = client.get("/jobs/new/").content.decode()
    assert 'name="prompt_version"' in page
    for version in ("dream-v1", "dream-v2", "dream-graded-v1", "dream-graded-v2"):
        assert f'value="{version}"' in page
    pool = tiny_dataset.pools.get()

    with django_capture_on_commit_callbacks(execute=False):
        answer = client.post("/jobs/new/", job_form_data(pool.pk, prompt_version="dream-v1"))

    assert answer.status_code == 302
    job = DebateJob.objects.get()
    assert job.prompt_version == "dream-v1"
    assert '<dd class="id">dream-v1</dd>' in client.get(f"/jobs/{job.pk}/").content.decode()


def test_the_job_form_refuses_a_version_of_the_other_scale(client_as, tiny_dataset):
    answer = client_as("admin").post(
        "/jobs/new/",
        job_form_data(tiny_dataset.pools.get().pk, scale="graded", prompt_version="dream-v1"),
    )
    assert answer.status_code == 200
    assert "not available for graded debates" in answer.content.decode()
    assert not DebateJob.objects.exists()
