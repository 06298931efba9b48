"""Qrel sets are immutable, imported and refined alike (exports are cached under the set's id):
the Django admin shows their rows, refinement and provenance but refuses to add, change or
delete them one by one (403, nothing changed); only the whole set can be deleted, taking its
rows, provenance and exports along."""

import pytest

from assess.models import ExportFile, LabelProvenance, Refinement
from corpora.models import Qrel, QrelSet


def snapshot() -> dict:
    return {
        "sets": list(QrelSet.objects.order_by("pk").values_list("pk", "name", "origin", "source")),
        "qrels": list(
            Qrel.objects.order_by("pk").values_list("pk", "qrel_set_id", "document_id", "relevance")
        ),
        "provenance": list(
            LabelProvenance.objects.order_by("pk").values_list("pk", "label", "source")
        ),
        "refinements": list(Refinement.objects.values_list("pk", "pairs", "unresolved")),
    }


@pytest.mark.django_db
@pytest.mark.parametrize("which", ["test", "test-dream"])
def test_add_change_and_delete_posts_are_refused_and_change_nothing(refined, admin_client, which):
    qrel_set = QrelSet.objects.get(name=which)
    row = Qrel.objects.filter(qrel_set=qrel_set).order_by("pk").first()
    before = snapshot()
    assert len(before["qrels"]) == 4 + 8 and len(before["provenance"]) == 4
    posts = {
        "/admin/corpora/qrel/add/": {
            "qrel_set": qrel_set.pk,
            "query": row.query_id,
            "document": row.document_id,
            "relevance": 2,
        },
        f"/admin/corpora/qrel/{row.pk}/change/": {
            "qrel_set": qrel_set.pk,
            "query": row.query_id,
            "document": row.document_id,
            "relevance": 2,
        },
        f"/admin/corpora/qrel/{row.pk}/delete/": {"post": "yes"},
        "/admin/corpora/qrelset/add/": {"dataset": qrel_set.dataset_id, "name": "forged"},
        f"/admin/corpora/qrelset/{qrel_set.pk}/change/": {
            "dataset": qrel_set.dataset_id,
            "name": "renamed",
            "origin": "imported",
        },
    }
    for url, data in posts.items():
        assert admin_client.post(url, data).status_code == 403, url
    # The changelist offers no bulk delete: the action is refused and nothing goes.
    response = admin_client.post(
        "/admin/corpora/qrel/",
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )
    assert response.status_code in (200, 302)
    assert snapshot() == before
    assert admin_client.get(f"/admin/corpora/qrel/{row.pk}/change/").status_code == 200
    assert b"deletelink" not in admin_client.get(f"/admin/corpora/qrel/{row.pk}/change/").content


@pytest.mark.django_db
def test_refinement_and_provenance_rows_are_read_only(refined, admin_client):
    provenance = LabelProvenance.objects.get(query__query_id="q2", document__doc_id="d6")
    refinement = Refinement.objects.get()
    before = snapshot()
    posts = {
        f"/admin/assess/labelprovenance/{provenance.pk}/change/": {"label": 1, "source": "human"},
        f"/admin/assess/labelprovenance/{provenance.pk}/delete/": {"post": "yes"},
        "/admin/assess/labelprovenance/add/": {"label": 1, "source": "human"},
        f"/admin/assess/refinement/{refinement.pk}/change/": {"pairs": 1},
        f"/admin/assess/refinement/{refinement.pk}/delete/": {"post": "yes"},
    }
    for url, data in posts.items():
        assert admin_client.post(url, data).status_code == 403, url
    assert snapshot() == before
    assert (provenance.label, provenance.source) == (0, "human")
    page = admin_client.get(f"/admin/assess/labelprovenance/{provenance.pk}/change/")
    assert page.status_code == 200


@pytest.mark.django_db
def test_the_whole_refined_set_can_still_be_deleted(refined, admin_client):
    ExportFile.objects.create(kind="trec", qrel_set=refined.refined, key="v1:trec:qrels:x")
    url = f"/admin/corpora/qrelset/{refined.refined.pk}/delete/"
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert list(QrelSet.objects.values_list("name", flat=True)) == ["test"]
    assert Qrel.objects.count() == 4
    assert (Refinement.objects.count(), LabelProvenance.objects.count()) == (0, 0)
    assert ExportFile.objects.count() == 0
