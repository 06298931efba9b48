"""The guidelines page of a dataset (``/datasets/<slug>/guidelines/``, ``?job=<id>`` for one
job's): everyone with a role reads the version in force, rendered, and the versions of the
scope; admins save a new version from its Markdown (an empty text is refused with the
reason, 400); annotators and researchers may not (403), and nothing is stored."""

import pytest

from assess.models import Guidelines
from assess.review.guidelines import guidelines_create
from tests.fixtures.ui import html_tables


@pytest.fixture(name="job")
def job_fixture(make_review_job):
    return make_review_job(escalated=1, slug="annot").job


def test_an_admin_saves_versions_and_sees_them_listed(client, make_user, job):
    client.force_login(make_user("admin"))
    page = client.get("/datasets/annot/guidelines/").content.decode()
    assert "has no guidelines of its own" in page
    assert 'id="guidelines-form"' in page

    saved = client.post("/datasets/annot/guidelines/", {"text": "# One\n\n*first*"})
    assert (saved.status_code, saved["Location"]) == (302, "/datasets/annot/guidelines/")
    client.post("/datasets/annot/guidelines/", {"text": "# Two\n\n<script>x()</script>"})

    page = client.get("/datasets/annot/guidelines/").content.decode()
    assert "Version 2 is in force" in page
    assert "<h1>Two</h1>" in page and "&lt;script&gt;x()&lt;/script&gt;" in page
    rows = html_tables(page)[0]
    assert [row[:3] for row in rows[1:]] == [["2", rows[1][1], "admin"], ["1", rows[2][1], "admin"]]
    assert [row[3] for row in rows[1:]] == ["0 annotators", "0 annotators"]
    texts = list(Guidelines.objects.filter(dataset=job.pool.dataset).values_list("version", "text"))
    assert texts == [(2, "# Two\n\n<script>x()</script>"), (1, "# One\n\n*first*")]


def test_an_empty_text_is_refused_with_the_reason(client, make_user, job):
    client.force_login(make_user("admin"))
    answer = client.post("/datasets/annot/guidelines/", {"text": "   \n"})
    assert answer.status_code == 400
    assert "the guidelines are empty" in answer.content.decode()
    assert not Guidelines.objects.filter(dataset=job.pool.dataset).exists()


@pytest.mark.parametrize("who", ["annotator", "researcher"])
def test_annotators_and_researchers_read_but_may_not_save(client, make_user, job, who):
    guidelines_create(text="# Read me", dataset=job.pool.dataset, user=None)
    client.force_login(make_user(who))
    page = client.get("/datasets/annot/guidelines/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>Read me</h1>" in html
    assert 'id="guidelines-form"' not in html
    assert client.post("/datasets/annot/guidelines/", {"text": "mine"}).status_code == 403
    assert Guidelines.objects.filter(dataset=job.pool.dataset).count() == 1


def test_a_jobs_guidelines_are_saved_on_the_page_with_its_id(
    client, make_user, job, make_review_job
):
    client.force_login(make_user("admin"))
    guidelines_create(text="# Dataset's", dataset=job.pool.dataset, user=None)
    url = f"/datasets/annot/guidelines/?job={job.pk}"
    page = client.get(url).content.decode()
    assert "This job has no guidelines of its own: the dataset's version 1 applies." in page

    saved = client.post(url, {"text": "# Job's own"})
    assert (saved.status_code, saved["Location"]) == (302, url)
    (own,) = Guidelines.objects.filter(job=job)
    assert (own.version, own.dataset) == (1, None)
    assert "<h1>Job's own</h1>" in client.get(url).content.decode()

    other = make_review_job(escalated=1, slug="other").job
    assert client.get(f"/datasets/annot/guidelines/?job={other.pk}").status_code == 404
    assert client.get("/datasets/annot/guidelines/?job=x").status_code == 404
    assert client.get("/datasets/nope/guidelines/").status_code == 404


def test_the_dataset_page_links_to_its_guidelines(client, make_user, job):
    client.force_login(make_user("researcher"))
    page = client.get("/datasets/annot/").content.decode()
    assert 'href="/datasets/annot/guidelines/"' in page
