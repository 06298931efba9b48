"""A superuser opens the admin changelists of datasets, documents, queries, qrel sets and
qrels, and finds documents and queries by id and by text: the matching rows appear, the
others do not."""

import pytest

from corpora.models import Document, Qrel, QrelSet, Query
from corpora.services import dataset_import_beir
from tests.fixtures.datasets import write_beir

PASSWORD = "admin-test-password"  # noqa: S105


@pytest.fixture
def admin_browser(client, django_user_model):
    django_user_model.objects.create_superuser("root", "root@example.org", PASSWORD)
    assert client.login(username="root", password=PASSWORD)
    return client


@pytest.fixture
def two_datasets(tiny_beir, tmp_path):
    """``tiny`` (d1..d3, q1..q2, qrels test) and ``other`` (o1, p1, qrels dev)."""
    tiny = dataset_import_beir(path=tiny_beir(), name="tiny")
    other = dataset_import_beir(
        path=write_beir(
            tmp_path / "other",
            corpus=[{"_id": "o1", "title": "Tides", "text": "ocean tide energy"}],
            queries=[{"_id": "p1", "text": "tidal power"}],
            qrels={"dev": "p1\to1\t2\n"},
        ),
        name="other",
    )
    return tiny, other


def shown(client, url: str, **params) -> list:
    """The objects a changelist shows (``cl.result_list``), after checking the page renders."""
    response = client.get(url, params)
    assert response.status_code == 200
    return list(response.context["cl"].result_list)


@pytest.mark.django_db
def test_every_changelist_shows_its_rows(admin_browser, two_datasets):
    assert sorted(d.slug for d in shown(admin_browser, "/admin/corpora/dataset/")) == [
        "other",
        "tiny",
    ]
    assert sorted(d.doc_id for d in shown(admin_browser, "/admin/corpora/document/")) == [
        "d1",
        "d2",
        "d3",
        "o1",
    ]
    assert sorted(q.query_id for q in shown(admin_browser, "/admin/corpora/query/")) == [
        "p1",
        "q1",
        "q2",
    ]
    assert sorted(str(s) for s in shown(admin_browser, "/admin/corpora/qrelset/")) == [
        "other/dev",
        "tiny/test",
    ]
    assert sorted(
        (r.query.query_id, r.document.doc_id, r.relevance)
        for r in shown(admin_browser, "/admin/corpora/qrel/")
    ) == [("p1", "o1", 2), ("q1", "d1", 1), ("q2", "d3", 1)]


@pytest.mark.django_db
def test_documents_are_found_by_id_and_by_text(admin_browser, two_datasets):
    url = "/admin/corpora/document/"
    assert [d.doc_id for d in shown(admin_browser, url, q="d2")] == ["d2"]
    assert [d.doc_id for d in shown(admin_browser, url, q="turbine")] == ["d3"]
    assert sorted(d.doc_id for d in shown(admin_browser, url, q="solar")) == ["d1", "d2"]
    assert [d.doc_id for d in shown(admin_browser, url, q="Tides")] == ["o1"]
    assert shown(admin_browser, url, q="nothing-like-this") == []


@pytest.mark.django_db
def test_queries_are_found_by_id_and_by_text(admin_browser, two_datasets):
    url = "/admin/corpora/query/"
    assert [q.query_id for q in shown(admin_browser, url, q="q2")] == ["q2"]
    assert [q.query_id for q in shown(admin_browser, url, q="tidal")] == ["p1"]
    assert [q.query_id for q in shown(admin_browser, url, q="solar power")] == ["q1"]
    assert shown(admin_browser, url, q="turbine") == []


@pytest.mark.django_db
def test_datasets_qrel_sets_and_qrels_are_found_by_their_ids(admin_browser, two_datasets):
    assert [d.slug for d in shown(admin_browser, "/admin/corpora/dataset/", q="other")] == ["other"]
    assert [str(s) for s in shown(admin_browser, "/admin/corpora/qrelset/", q="dev")] == [
        "other/dev"
    ]
    assert [str(s) for s in shown(admin_browser, "/admin/corpora/qrelset/", q="tiny")] == [
        "tiny/test"
    ]
    assert [
        (r.query.query_id, r.document.doc_id)
        for r in shown(admin_browser, "/admin/corpora/qrel/", q="d3")
    ] == [("q2", "d3")]
    assert [
        (r.query.query_id, r.document.doc_id)
        for r in shown(admin_browser, "/admin/corpora/qrel/", q="p1")
    ] == [("p1", "o1")]


@pytest.mark.django_db
def test_each_change_page_opens(admin_browser, two_datasets):
    tiny, _ = two_datasets
    pages = [
        f"/admin/corpora/dataset/{tiny.pk}/change/",
        f"/admin/corpora/document/{Document.objects.get(doc_id='d1').pk}/change/",
        f"/admin/corpora/query/{Query.objects.get(query_id='q1').pk}/change/",
        f"/admin/corpora/qrelset/{QrelSet.objects.get(name='test').pk}/change/",
        f"/admin/corpora/qrel/{Qrel.objects.get(document__doc_id='d1').pk}/change/",
    ]
    for page in pages:
        assert admin_browser.get(page).status_code == 200, page


def test_an_anonymous_visitor_is_sent_to_the_admin_login(client):
    response = client.get("/admin/corpora/document/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
