"""A launch is refused when a running or paused job debates the same pool with the same
debate settings (it would debate every pair again, at the same cost), unless confirmed: in
the service (``allow_duplicate``), on the job form (a checkbox) and in run_debates
(``--allow-duplicate``). Other settings, another pool or a job that ended do not count."""

import pytest
from django.core.management import CommandError, call_command

from debates.models import DebateJob
from debates.services.jobs import debate_job_cancel, debate_job_pause
from debates.services.launch import DuplicateJobError, JobSpec, debate_job_launch

pytestmark = pytest.mark.django_db


def test_the_launch_service_refuses_a_duplicate_of_a_running_or_paused_job(tiny_dataset):
    pool = tiny_dataset.pools.get()
    first = debate_job_launch(spec=JobSpec(pool=pool, rounds=1), start=False)

    with pytest.raises(DuplicateJobError) as refused:
        debate_job_launch(spec=JobSpec(pool=pool, rounds=1, note="again"), start=False)
    assert refused.value.job == first
    assert str(refused.value) == (
        f"job {first.pk} (running) already debates pool {pool.pk} with the same settings "
        "(agents, rounds, budgets, prompt, scale, pairs): a second job would debate every pair "
        "again; tick “Launch a duplicate” to launch it anyway"
    )
    debate_job_pause(job=first)
    with pytest.raises(DuplicateJobError, match=rf"job {first.pk} \(paused\) already debates"):
        debate_job_launch(spec=JobSpec(pool=pool, rounds=1), start=False)
    assert DebateJob.objects.count() == 1


def test_a_confirmed_duplicate_other_settings_or_an_ended_job_are_launched(tiny_dataset):
    pool = tiny_dataset.pools.get()
    first = debate_job_launch(spec=JobSpec(pool=pool, rounds=1), start=False)

    confirmed = debate_job_launch(spec=JobSpec(pool=pool, rounds=1, allow_duplicate=True))
    other = debate_job_launch(spec=JobSpec(pool=pool, rounds=2), start=False)
    debate_job_cancel(job=first)
    debate_job_cancel(job=confirmed)
    after_cancel = debate_job_launch(spec=JobSpec(pool=pool, rounds=1), start=False)

    assert DebateJob.objects.count() == 4
    assert {other.rounds, after_cancel.rounds} == {1, 2}


def test_the_job_form_says_so_and_its_checkbox_confirms(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    pool = tiny_dataset.pools.get()
    first = debate_job_launch(spec=JobSpec(pool=pool, rounds=1), start=False)
    form = {
        "pool": str(pool.pk),
        "a_backend": "embedded",
        "b_backend": "embedded",
        "rounds": "1",
        "judgments_per_pair": "1",
        "audit_percent": "2",
    }

    refused = client.post("/jobs/new/", form)

    assert refused.status_code == 200
    html = refused.content.decode()
    assert f"job {first.pk} (running) already debates pool {pool.pk} with the same" in html
    assert 'name="allow_duplicate"' in html
    assert DebateJob.objects.count() == 1
    with django_capture_on_commit_callbacks(execute=False):
        confirmed = client.post("/jobs/new/", {**form, "allow_duplicate": "on"})
    assert confirmed.status_code == 302, confirmed.content.decode()[:2000]
    assert DebateJob.objects.count() == 2


def test_run_debates_refuses_a_duplicate_unless_allow_duplicate_is_passed(tiny_dataset):
    pool = tiny_dataset.pools.get()
    args = ["tiny/p", "--backend", "openai", "--model", "m"]
    args += ["--base-url", "http://127.0.0.1:9/v1", "--batch", "--rounds", "1"]
    call_command("run_debates", *args)
    first = DebateJob.objects.get()

    with pytest.raises(CommandError) as refused:
        call_command("run_debates", *args)
    assert str(refused.value) == (
        f"job {first.pk} (running) already debates pool {pool.pk} with the same settings "
        "(agents, rounds, budgets, prompt, scale, pairs): a second job would debate every pair "
        "again; pass --allow-duplicate to launch it anyway"
    )
    call_command("run_debates", *args, "--allow-duplicate")
    assert DebateJob.objects.count() == 2


def test_stage0_levels_count_only_for_jobs_that_use_stage0(tiny_dataset):
    """A job made before beta existed holds stage0_beta 1; without stage 0 its levels change
    nothing, so it still blocks a duplicate launched at today's default. With stage 0 on, a
    different beta is a different job (it settles other pairs)."""
    pool = tiny_dataset.pools.get()
    old = debate_job_launch(spec=JobSpec(pool=pool, rounds=1), start=False)
    DebateJob.objects.filter(pk=old.pk).update(stage0_beta=1.0)
    with pytest.raises(DuplicateJobError) as refused:
        debate_job_launch(spec=JobSpec(pool=pool, rounds=1), start=False)
    assert refused.value.job == old
    staged = debate_job_launch(spec=JobSpec(pool=pool, rounds=1, stage0=True), start=False)
    with pytest.raises(DuplicateJobError) as again:
        debate_job_launch(spec=JobSpec(pool=pool, rounds=1, stage0=True), start=False)
    assert again.value.job == staged
    other = JobSpec(pool=pool, rounds=1, stage0=True, stage0_beta=0.2)
    assert debate_job_launch(spec=other, start=False).stage0_beta == 0.2
