"""The launch form has the audit allocation (proportional by default, or neyman) and
reports an unknown one on its field, launching nothing."""

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


def test_the_form_launches_a_neyman_audit(client_as, tiny_dataset, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    page = client.get("/jobs/new/").content.decode()
    assert 'name="audit_allocation"' in page and 'value="neyman"' in page
    answer = client.post(
        "/jobs/new/", _form(tiny_dataset.pools.get().pk, audit_allocation="neyman")
    )
    assert answer.status_code == 302
    assert (DebateJob.objects.get().audit_allocation, DebateJob.objects.get().audit_share) == (
        "neyman",
        0.1,
    )


def test_the_form_and_the_job_page_say_a_neyman_audit_splits_the_strata_by_rank(
    client_as, tiny_dataset, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    form = " ".join(client.get("/jobs/new/").content.decode().split())
    assert "Neyman: a pilot at a tenth of the share, the rest where the debate errs most" in form
    assert "under Neyman over units of stratum x the pair&#x27;s best rank in its pool" in form
    client.post("/jobs/new/", _form(tiny_dataset.pools.get().pk, audit_allocation="neyman"))
    page = " ".join(client.get(f"/jobs/{DebateJob.objects.get().pk}/").content.decode().split())
    assert (
        "neyman allocation over units of consensus label &times; round &times; the pair's "
        "best rank in its pool)" in page
    )


def test_the_form_refuses_an_unknown_allocation_on_its_field(client_as, tiny_dataset):
    client = client_as("admin")
    pool = tiny_dataset.pools.get().pk
    answer = client.post("/jobs/new/", _form(pool, audit_allocation="stratified"))
    assert answer.status_code == 200
    errors = answer.context["form"].errors
    assert errors["audit_allocation"] == [
        "Select a valid choice. stratified is not one of the available choices."
    ]
    assert DebateJob.objects.count() == 0
