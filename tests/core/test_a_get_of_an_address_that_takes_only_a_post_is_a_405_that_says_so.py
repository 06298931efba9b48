"""An address that only takes a POST (the job page's budget form, its controls) answers a
GET, a reload or a followed link, with a 405 that keeps ``Allow: POST`` and says in words
to use the form on its page, instead of an empty page; the GET changes nothing, and the
POST still works."""

import pytest
from django.test import RequestFactory

from core.http import post_only
from debates.models import DebateJob

pytestmark = pytest.mark.django_db

SAID = (
    "405 Method Not Allowed: this address takes only a POST, which the form or button on its "
    "page sends; a GET here changes nothing. Go back to that page to use it.\n"
)


def test_a_get_of_the_job_budget_is_a_405_saying_to_post_and_changes_nothing(
    client_as, make_review_job
):
    job = make_review_job(escalated=1, agreed=1, sync=False).job
    DebateJob.objects.filter(pk=job.pk).update(human_budget=2)
    client = client_as("admin")
    for url in (f"/jobs/{job.pk}/budget/", f"/jobs/{job.pk}/pause/"):
        response = client.get(url, {"human_budget": "9"})
        assert response.status_code == 405
        assert response["Allow"] == "POST"
        assert response["Content-Type"] == "text/plain; charset=utf-8"
        assert response.content.decode() == SAID
    assert DebateJob.objects.get(pk=job.pk).human_budget == 2
    assert client.post(f"/jobs/{job.pk}/budget/", {"human_budget": "3"}).status_code == 302
    assert DebateJob.objects.get(pk=job.pk).human_budget == 3


def test_the_view_is_not_called_for_another_method():
    called = []
    view = post_only(lambda request: called.append(request) or "answered")
    factory = RequestFactory()
    response = view(factory.put("/x/"))
    assert response.status_code == 405 and "a PUT here changes nothing" in response.content.decode()
    assert called == []
    assert view(factory.post("/x/")) == "answered" and len(called) == 1
