"""A callback URL is checked when the job is launched (service, job form, run_debates): its
host must be allowed by DREAM_WEBHOOK_ALLOWED_HOSTS (empty by default: none is), resolve to
public addresses unless listed by exact name, and the job needs a creator whose secret signs
the callbacks. A refused callback creates nothing."""

import pytest
from django.core.management import CommandError, call_command

from debates.models import Debate, DebateJob, WebhookDelivery
from debates.services import DebateJobError
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import AGENT_A, AGENT_B


@pytest.fixture
def owner(make_user):
    return make_user("admin", "hook-owner")


def spec(pool, url):
    return JobSpec(pool=pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1, callback_url=url)


def nothing_created() -> bool:
    return not (
        DebateJob.objects.exists() or Debate.objects.exists() or WebhookDelivery.objects.exists()
    )


@pytest.mark.django_db
def test_a_callback_to_a_host_not_allowed_is_refused_naming_the_setting_and_nothing_is_created(
    small_pool, fake_llms, owner, settings
):
    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = ["hooks.example.org"]
    with pytest.raises(DebateJobError, match="'evil.example.com' is not allowed; list it in "):
        debate_job_launch(spec=spec(small_pool, "https://evil.example.com/x"), created_by=owner)
    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = []  # the default: every callback is refused
    with pytest.raises(DebateJobError, match="DREAM_WEBHOOK_ALLOWED_HOSTS"):
        debate_job_launch(spec=spec(small_pool, "http://127.0.0.1:9/"), created_by=owner)
    assert nothing_created()


@pytest.mark.django_db
def test_a_callback_needs_a_creator_and_no_credentials_in_the_url(
    small_pool, fake_llms, owner, settings
):
    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    with pytest.raises(DebateJobError, match="needs a creator"):
        debate_job_launch(spec=spec(small_pool, "http://127.0.0.1:9/"), start=False)
    with pytest.raises(DebateJobError, match="user name or password"):
        debate_job_launch(spec=spec(small_pool, "http://u:p@127.0.0.1:9/"), created_by=owner)
    assert nothing_created()
    job = debate_job_launch(spec=spec(small_pool, " http://127.0.0.1:9/ "), created_by=owner)
    assert job.callback_url == "http://127.0.0.1:9/"


@pytest.mark.django_db
def test_a_name_resolving_to_a_private_address_is_refused_unless_listed_by_exact_name(
    small_pool, fake_llms, owner, settings, monkeypatch
):
    monkeypatch.setattr(
        "debates.services.webhooks.addresses_resolve", lambda host, port: ["10.0.0.7"]
    )
    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = ["*.corp.example"]
    with pytest.raises(DebateJobError, match=r"resolves to 10\.0\.0\.7, a private address"):
        debate_job_launch(spec=spec(small_pool, "https://hooks.corp.example/"), created_by=owner)
    assert nothing_created()
    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = ["*.corp.example", "hooks.corp.example"]
    job = debate_job_launch(spec=spec(small_pool, "https://hooks.corp.example/"), created_by=owner)
    assert job.callback_url == "https://hooks.corp.example/"


@pytest.mark.django_db
def test_the_job_form_puts_a_refused_callback_on_its_field_and_passes_an_allowed_one(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # a broker would get the debates; none runs here
    client = client_as("admin")
    form = {
        "pool": str(tiny_dataset.pools.get().pk),
        "a_backend": "embedded",
        "b_backend": "embedded",
        "rounds": "1",
        "judgments_per_pair": "1",
        "audit_percent": "0",
        "pair_limit": "1",
    }
    page = client.get("/jobs/new/").content.decode()
    assert 'name="callback_url"' in page and "DREAM_WEBHOOK_ALLOWED_HOSTS" in page
    answer = client.post("/jobs/new/", {**form, "callback_url": "https://evil.example.com/"})
    assert answer.status_code == 200
    assert "is not allowed; list it in DREAM_WEBHOOK_ALLOWED_HOSTS" in answer.content.decode()
    assert not DebateJob.objects.exists()

    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    with django_capture_on_commit_callbacks(execute=False):
        answer = client.post("/jobs/new/", {**form, "callback_url": "http://127.0.0.1:9/h"})
    assert answer.status_code == 302
    job = DebateJob.objects.get()
    assert (job.callback_url, job.created_by.username) == ("http://127.0.0.1:9/h", "admin")


@pytest.mark.django_db
def test_run_debates_takes_a_callback_url_only_with_a_user(small_pool, fake_llms, owner, settings):
    settings.DREAM_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    args = ["run_debates", "small/pool", "--backend", "test", "--rounds", "1", "--no-progress"]
    with pytest.raises(CommandError, match="--callback-url needs --user"):
        call_command(*args, "--callback-url", "http://127.0.0.1:9/")
    with pytest.raises(CommandError, match="no user 'nobody'"):
        call_command(*args, "--callback-url", "http://127.0.0.1:9/", "--user", "nobody")
    assert nothing_created()
    call_command(*args, "--callback-url", "http://127.0.0.1:9/", "--user", "hook-owner")
    job = DebateJob.objects.get()
    assert (job.status, job.created_by, job.callback_url) == (
        "finished",
        owner,
        "http://127.0.0.1:9/",
    )
    # Finished inside the test's transaction: the delivery is stored, to be sent on commit.
    assert list(WebhookDelivery.objects.values_list("event", "status")) == [
        ("job.finished", "pending")
    ]
