"""Reuse is on by default and opt-out everywhere a job is launched: ``--no-reuse`` on the
commands, the form's "Reuse settled debates with the same key" checkbox (ticked on a new
form), the API's ``reuse`` field. Without it every pair is asked again, and the job says so;
with it the pairs an earlier job agreed on are settled at once. The job page and the API's
job show the reuse key."""

import pytest
from django.core.management import call_command
from django.utils import timezone

from debates.forms import JobLaunchForm
from debates.models import DebateJob
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import job_form_data

pytestmark = pytest.mark.django_db


def settled_job(pool):
    """A finished job of two embedded agents, R = 1, whose 4 debates agreed on "relevant"
    (set in the database: no model runs)."""
    job = debate_job_launch(spec=JobSpec(pool=pool, rounds=1, audit_share=0.0), start=False)
    now = timezone.now()
    job.debates.update(status="agreed", final_label=1, consensus_round=1, finished=now)
    DebateJob.objects.filter(pk=job.pk).update(status="finished", finished=now)
    return job


def test_run_debates_no_reuse_asks_every_pair_and_the_default_reuses(small_pool, fake_llms):
    args = ["run_debates", "small/pool", "--backend", "test", "--rounds", "1", "--no-progress"]
    call_command(*args)
    first = DebateJob.objects.get()
    agreed = first.debates.filter(status="agreed").count()
    assert 0 < agreed < 4  # the stance rule agrees on some pairs in round 1, not all

    call_command(*args, "--no-reuse")
    again = DebateJob.objects.latest("pk")
    assert again.reuse is False and again.reuse_key == first.reuse_key
    assert sum(again.debates.values_list("calls", flat=True)) == 8  # every pair, both agents
    assert not again.debates.filter(settled_by="reused").exists()
    assert again.reuse_note == (
        f"4 of its 4 pairs are already in job {first.pk} of this dataset: all asked again "
        "(launched without reuse)"
    )

    call_command(*args)
    reusing = DebateJob.objects.latest("pk")
    assert reusing.debates.filter(settled_by="reused").count() == agreed
    assert sum(reusing.debates.values_list("calls", flat=True)) == 2 * (4 - agreed)


def test_the_form_checkbox_starts_ticked_and_unticked_asks_every_pair(
    client_as, small_pool, django_capture_on_commit_callbacks
):
    first = settled_job(small_pool)
    assert JobLaunchForm().fields["reuse"].initial is True
    client = client_as("admin")
    page = client.get("/jobs/new/").content.decode()
    assert 'name="reuse"' in page and "Reuse settled debates with the same key" in page

    with django_capture_on_commit_callbacks(execute=False):
        unticked = client.post("/jobs/new/", job_form_data(small_pool.pk))
    assert unticked.status_code == 302
    job = DebateJob.objects.latest("pk")
    assert (job.reuse, job.debates.filter(status="pending").count()) == (False, 4)

    with django_capture_on_commit_callbacks(execute=False):
        ticked = client.post(
            "/jobs/new/", job_form_data(small_pool.pk, reuse="on", allow_duplicate="on")
        )
    assert ticked.status_code == 302
    job = DebateJob.objects.latest("pk")
    assert job.reuse and job.debates.filter(settled_by="reused").count() == 4
    assert job.status == "finished"  # nothing was left to ask

    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert job.reuse_key[:12] in page and f'title="{job.reuse_key}"' in page
    assert 'id="job-reuse"' in page
    assert f"4 of its 4 pairs are already in jobs {first.pk} and" in page
    assert 'id="job-reused">4<' in page


def test_the_api_takes_reuse_and_shows_the_key(api_as, small_pool):
    first = settled_job(small_pool)
    api = api_as("admin")
    body = {"pool": small_pool.pk, "rounds": 1, "audit_share": 0}

    off = api.post("/api/v1/jobs", {**body, "reuse": False}, content_type="application/json")
    assert off.status_code == 202, off.content.decode()
    off = off.json()
    assert (off["reuse"], off["reuse_key"]) == (False, first.reuse_key[:12])
    assert (off["progress"]["pending"], off["progress"]["reused"]) == (4, 0)

    on = api.post(
        "/api/v1/jobs", {**body, "allow_duplicate": True}, content_type="application/json"
    )
    assert on.status_code == 202, on.content.decode()
    on = on.json()
    assert (on["reuse"], on["status"], on["progress"]["reused"]) == (True, "finished", 4)
    assert on["progress"]["calls"] == 0
    assert on["warnings"] == [
        f"4 of its 4 pairs are already in jobs {first.pk} and {off['id']} of this dataset: 4 "
        "reused (agreed there with the same reuse key; no LLM call), 0 asked again "
        "(escalated or failed there, or other settings)"
    ]
    detail = api.get(f"/api/v1/jobs/{on['id']}").json()
    assert detail["reuse_key"] == first.reuse_key[:12]


def test_a_stage0_job_whose_every_pair_is_reused_says_stage0_had_nothing_to_score(small_pool):
    """Every pair took the earlier job's outcome, so the job finishes at once; its stage-0
    step never runs, and the job says why instead of showing stage 0 "waiting"."""
    settled_job(small_pool)
    job = debate_job_launch(spec=JobSpec(pool=small_pool, rounds=1, stage0=True))
    job.refresh_from_db()
    assert job.status == "finished" and job.debates.filter(settled_by="reused").count() == 4
    assert job.stage0_state == "done"
    assert job.stage0_note == (
        "stage 0 settled nothing: every pair took an earlier job's outcome (reused), so no pair "
        "was left for it to score"
    )
