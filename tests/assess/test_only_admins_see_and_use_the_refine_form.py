"""Only admins refine from the browser: annotators and researchers get 403 from the POST and
nothing is written; researchers see the refined sets but not the form; a dataset without a
pool shows a sentence instead of the form; the POST needs the CSRF token."""

import pytest
from django.test import Client
from django.urls import reverse

from corpora.models import Dataset, QrelSet
from tests.fixtures.refine_again import FIRST, table_counts
from tests.fixtures.ui import PASSWORD, html_elements, html_tables

LIST = reverse("refined:refined_list", args=["holes"])
CREATE = reverse("refined:refine_create", args=["holes"])


def _ids(html: str) -> set[str]:
    elements, _ = html_elements(html)
    return {attrs["id"] for _, attrs in elements if attrs.get("id")}


@pytest.mark.parametrize("who", ["annotator", "researcher"])
@pytest.mark.django_db
def test_annotators_and_researchers_get_403_and_nothing_is_written(
    judged_after_refining, client_as, who
):
    before = table_counts()
    response = client_as(who).post(CREATE, {"pool": judged_after_refining.pool.pk, "name": "mine"})
    assert response.status_code == 403
    assert table_counts() == before


@pytest.mark.django_db
def test_anonymous_users_are_sent_to_the_login_page(judged_after_refining, client):
    response = client.post(CREATE, {"pool": judged_after_refining.pool.pk, "name": "mine"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")
    assert not QrelSet.objects.filter(name="mine").exists()


@pytest.mark.django_db
def test_a_get_is_not_allowed(judged_after_refining, client_as):
    assert client_as("admin").get(CREATE).status_code == 405


@pytest.mark.django_db
def test_the_researcher_sees_the_refined_sets_without_the_form(judged_after_refining, client_as):
    response = client_as("researcher").get(LIST)
    assert response.status_code == 200
    html = response.content.decode()
    assert html_tables(html)[0][1][:3] == [FIRST, "p", "test"]
    assert not {"refine-form", "id_pool", "id_name", "id_allow_partial", "refine-submit"} & _ids(
        html
    )
    assert CREATE not in html


@pytest.mark.django_db
def test_the_hint_without_refined_sets_depends_on_the_role(holes, client_as):
    researcher = client_as("researcher").get(LIST).content.decode()
    assert "No refined qrel sets yet: an admin makes them on this page" in researcher
    assert "refine-form" not in _ids(researcher)
    admin = client_as("admin").get(LIST).content.decode()
    assert "No refined qrel sets yet: make one from a pool with the form below." in admin
    assert "refine-form" in _ids(admin)


@pytest.mark.django_db
def test_a_dataset_without_pools_shows_a_sentence_instead_of_the_form(client_as):
    Dataset.objects.create(name="Empty", slug="empty")
    html = client_as("admin").get(reverse("refined:refined_list", args=["empty"])).content.decode()
    assert "refine-form" not in _ids(html)
    assert "This dataset has no pool to refine from yet" in html
    response = client_as("admin").post(
        reverse("refined:refine_create", args=["empty"]), {"pool": "1", "name": "x"}
    )
    assert response.status_code == 400
    assert not QrelSet.objects.filter(name="x").exists()


@pytest.mark.django_db
def test_the_post_needs_the_csrf_token(judged_after_refining, make_user):
    make_user("admin", username="csrf-admin")
    client = Client(enforce_csrf_checks=True)
    assert client.login(username="csrf-admin", password=PASSWORD)
    before = table_counts()
    response = client.post(CREATE, {"pool": judged_after_refining.pool.pk, "name": "forged"})
    assert response.status_code == 403
    assert "Form expired" in response.content.decode()
    assert table_counts() == before
