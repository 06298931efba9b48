"""``/api/v1/datasets/{slug}/guidelines`` and ``/api/v1/jobs/{job_id}/guidelines``: GET the
guidelines in force (job's, else dataset's, else the default) with their Markdown and
sanitised HTML; an admin POSTs a new version (201), an empty text is refused (400)."""

import pytest

from assess.models import Guidelines
from assess.review.guidelines import guidelines_create


@pytest.mark.django_db
def test_an_admin_posts_versions_and_readers_get_the_one_in_force(api_as, make_review_job):
    job = make_review_job(escalated=1, slug="annot").job
    admin, researcher = api_as("admin"), api_as("researcher")

    made = admin.post(
        "/api/v1/datasets/annot/guidelines",
        {"text": "# Rules\n\n<script>alert(1)</script>"},
        content_type="application/json",
    )
    assert made.status_code == 201
    body = made.json()
    assert (body["version"], body["scope"], body["created_by"]) == (1, "dataset", "admin")
    assert body["markdown"] == "# Rules\n\n<script>alert(1)</script>"
    assert body["html"] == "<h1>Rules</h1>\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"

    read = researcher.get("/api/v1/datasets/annot/guidelines").json()
    assert (read["version"], read["scope"]) == (1, "dataset")
    assert researcher.get(f"/api/v1/jobs/{job.pk}/guidelines").json()["scope"] == "dataset"

    own = admin.post(
        f"/api/v1/jobs/{job.pk}/guidelines", {"text": "job rules"}, content_type="application/json"
    )
    assert (own.status_code, own.json()["scope"], own.json()["version"]) == (201, "job", 1)
    assert researcher.get(f"/api/v1/jobs/{job.pk}/guidelines").json()["markdown"] == "job rules"
    assert (
        researcher.get("/api/v1/datasets/annot/guidelines").json()["markdown"].startswith("# Rules")
    )


@pytest.mark.django_db
def test_an_empty_text_is_refused_and_a_researcher_may_not_post(api_as, make_review_job):
    make_review_job(escalated=1, slug="annot")
    refused = api_as("admin").post(
        "/api/v1/datasets/annot/guidelines", {"text": " "}, content_type="application/json"
    )
    assert refused.status_code == 400
    assert "empty" in refused.json()["detail"]
    forbidden = api_as("researcher").post(
        "/api/v1/datasets/annot/guidelines", {"text": "x"}, content_type="application/json"
    )
    assert forbidden.status_code == 403
    assert not Guidelines.objects.filter(dataset__slug="annot").exists()


@pytest.mark.django_db
def test_without_guidelines_of_its_own_a_dataset_answers_with_the_default(api_as, make_review_job):
    make_review_job(escalated=1, slug="annot")
    default = guidelines_create(text="the default, newest", user=None)
    answer = api_as("researcher").get("/api/v1/datasets/annot/guidelines").json()
    assert (answer["scope"], answer["version"]) == ("default", default.version)
    assert answer["created_by"] is None
    assert api_as("researcher").get("/api/v1/datasets/nope/guidelines").status_code == 404
