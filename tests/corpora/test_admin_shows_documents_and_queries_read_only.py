"""Documents and queries are written by imports only: pools, debates, exports and RAG prompts
were made from their text, so the Django admin shows them but refuses to add, change or
delete them one by one (403, nothing changed). Deleting the whole dataset still takes them."""

import pytest

from corpora.models import Dataset, Document, Query


def snapshot() -> dict:
    return {
        "documents": list(
            Document.objects.order_by("pk").values_list("pk", "doc_id", "title", "text")
        ),
        "queries": list(
            Query.objects.order_by("pk").values_list("pk", "query_id", "text", "answers")
        ),
    }


@pytest.mark.django_db
def test_add_change_and_delete_posts_are_refused_and_change_nothing(refined, admin_client):
    document = Document.objects.order_by("pk").first()
    query = Query.objects.order_by("pk").first()
    before = snapshot()
    assert len(before["documents"]) > 0 and len(before["queries"]) > 0
    posts = {
        "/admin/corpora/document/add/": {
            "dataset": document.dataset_id,
            "doc_id": "forged",
            "title": "t",
            "text": "x",
        },
        f"/admin/corpora/document/{document.pk}/change/": {
            "dataset": document.dataset_id,
            "doc_id": document.doc_id,
            "title": "edited",
            "text": "edited",
        },
        f"/admin/corpora/document/{document.pk}/delete/": {"post": "yes"},
        "/admin/corpora/query/add/": {"dataset": query.dataset_id, "query_id": "qx", "text": "x"},
        f"/admin/corpora/query/{query.pk}/change/": {
            "dataset": query.dataset_id,
            "query_id": query.query_id,
            "text": "edited",
        },
        f"/admin/corpora/query/{query.pk}/delete/": {"post": "yes"},
    }
    for url, data in posts.items():
        assert admin_client.post(url, data).status_code == 403, url
    assert snapshot() == before
    page = admin_client.get(f"/admin/corpora/document/{document.pk}/change/")
    assert page.status_code == 200
    assert document.doc_id.encode() in page.content
    assert b'name="_save"' not in page.content


@pytest.mark.django_db
def test_deleting_the_dataset_takes_its_documents_and_queries(admin_client):
    dataset = Dataset.objects.create(name="Tiny", slug="tiny")
    Document.objects.create(dataset=dataset, doc_id="d1", title="", text="solar panel")
    Query.objects.create(dataset=dataset, query_id="q1", text="solar")
    response = admin_client.post(f"/admin/corpora/dataset/{dataset.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert (Dataset.objects.count(), Document.objects.count(), Query.objects.count()) == (0, 0, 0)
