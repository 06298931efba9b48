"""The launch form's "Stage 0 first" box and its levels reach the job; empty levels take the
defaults (0.1, 0.1); a graded job with stage 0 is refused on the form."""

from debates.models import DebateJob


def _form(pool_id: int, **overrides) -> dict:
    data = {
        "pool": str(pool_id),
        "a_backend": "embedded",
        "b_backend": "embedded",
        "rounds": "1",
        "judgments_per_pair": "1",
        "audit_percent": "10",
        "pair_limit": "1",
    }
    return {**data, **overrides}


def test_the_form_launches_a_stage0_job(client_as, tiny_dataset, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    page = client.get("/jobs/new/").content.decode()
    assert 'name="stage0"' in page and 'name="stage0_alpha"' in page
    answer = client.post(
        "/jobs/new/", _form(tiny_dataset.pools.get().pk, stage0="on", stage0_alpha="0.05")
    )
    assert answer.status_code == 302
    job = DebateJob.objects.get()
    assert (job.stage0, job.stage0_state, job.stage0_alpha, job.stage0_delta) == (
        True,
        "waiting",
        0.05,
        0.1,
    )
    assert job.min_agreement_probability == 0.0


def test_the_form_refuses_stage0_on_a_graded_job(client_as, tiny_dataset, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    answer = client.post(
        "/jobs/new/", _form(tiny_dataset.pools.get().pk, stage0="on", scale="graded")
    )
    assert answer.status_code == 200
    assert "graded job cannot use it" in answer.content.decode()
    assert DebateJob.objects.count() == 0


def test_the_form_takes_the_share_of_holes_stage0_may_give_up(client_as, tiny_dataset, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    page = client.get("/jobs/new/").content.decode()
    assert 'name="stage0_beta"' in page and "Stage 0: holes given up (beta)" in page
    pool = tiny_dataset.pools.get().pk
    assert client.post("/jobs/new/", _form(pool, stage0="on", stage0_beta="1")).status_code == 302
    assert DebateJob.objects.get().stage0_beta == 1.0  # 1: not bounded
    refused = client.post("/jobs/new/", _form(pool, stage0="on", stage0_beta="1.5"))
    assert refused.status_code == 200 and DebateJob.objects.count() == 1
    unset = client.post("/jobs/new/", _form(pool, stage0="on", allow_duplicate="on"))
    assert unset.status_code == 302
    assert DebateJob.objects.order_by("-pk").first().stage0_beta == 0.1  # the default
