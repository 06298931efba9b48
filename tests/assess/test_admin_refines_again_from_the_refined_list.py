"""After annotators judge escalated pairs, an admin makes a new refined set on the refined
sets page: the form offers the newest pool and a free name, pressing "Refine" opens the
refinement's progress page at once (303); once its step has run, the new set holds the
original rows plus every resolved label and the page links to it."""

import pytest
from django.urls import reverse

from assess.models import LabelProvenance, Refinement
from corpora.models import QrelSet
from corpora.services import qrels_rows
from tests.fixtures.refine_again import FIRST, form_values, refine_started
from tests.fixtures.ui import html_elements

LIST = reverse("refined:refined_list", args=["holes"])
CREATE = reverse("refined:refine_create", args=["holes"])


@pytest.mark.django_db
def test_pressing_refine_with_the_offered_values_adds_the_human_label(
    judged_after_refining, client_as
):
    world = judged_after_refining
    client = client_as("admin")
    page = client.get(LIST)
    assert page.status_code == 200
    values = form_values(page.content.decode())
    assert values == {
        "csrfmiddlewaretoken": values["csrfmiddlewaretoken"],
        "pool": str(world.pool.pk),
        "name": f"{FIRST}-2",
    }

    response, operation = refine_started(client, CREATE, values)

    assert operation.status == "done", operation.error
    assert response["Location"] == reverse("refined:refine_operation", args=["holes", operation.pk])
    refined = QrelSet.objects.get(dataset=world.dataset, name="test-dream-p-2")
    assert refined.origin == QrelSet.Origin.REFINED
    assert refined.qrels.count() == world.test.qrels.count() + 4 == 8
    assert world.first.qrels.count() == 4 + 3
    assert sorted(qrels_rows(qrel_set=refined)) == [
        ("q1", "d1", 1),
        ("q1", "d2", 0),
        ("q1", "d3", 1),
        ("q1", "d5", 0),
        ("q2", "d3", 1),
        ("q2", "d4", 1),
        ("q2", "d5", -1),
        ("q2", "d6", 1),
    ]
    refinement = Refinement.objects.get(qrel_set=refined)
    assert refinement.created_by.get_username() == "admin"
    assert refinement.allow_partial is False
    assert (refinement.pairs, refinement.unresolved, refinement.original_rows) == (4, 0, 4)
    assert (refinement.new_relevant, refinement.new_nonrelevant) == (3, 1)
    human = LabelProvenance.objects.get(
        refinement=refinement, query__query_id="q2", document__doc_id="d3"
    )
    assert (human.label, human.source, human.annotators) == (1, "human", ["alice"])

    assert operation.result["qrel_set"] == refined.pk
    progress = client.get(response["Location"])
    assert progress.status_code == 200
    page = progress.content.decode()
    assert (
        "Refined qrel set test-dream-p-2 created: 4 original rows + 4 new labels, "
        "0 pairs pending." in page
    )
    link = reverse("refined:refined_detail", args=["holes", "test-dream-p-2"])
    assert f'<a href="{link}" id="refined-set">' in page
    assert client.get(link).status_code == 200


@pytest.mark.django_db
def test_the_admin_page_shows_the_form_with_its_stable_ids(judged_after_refining, client_as):
    html = client_as("admin").get(LIST).content.decode()
    elements, _ = html_elements(html)
    by_id = {attrs.get("id"): (tag, attrs) for tag, attrs in elements if attrs.get("id")}
    assert by_id["refine-form"][0] == "form"
    assert by_id["refine-form"][1]["method"] == "post"
    assert by_id["refine-form"][1]["action"] == CREATE
    assert by_id["id_pool"][0] == "select"
    assert by_id["id_name"][0] == "input"
    assert by_id["id_allow_partial"][1]["type"] == "checkbox"
    assert "checked" not in by_id["id_allow_partial"][1]
    assert by_id["refine-submit"] == ("button", {"type": "submit", "id": "refine-submit"})
    assert '<button type="submit" id="refine-submit">Refine</button>' in html
    pool = judged_after_refining.pool.pk
    assert f'<option value="{pool}" selected>p (4 pairs)</option>' in html


@pytest.mark.django_db
def test_allow_partial_refines_with_a_pair_still_awaiting_a_human(holes, client_as):
    from tests.fixtures.refine import review, settle

    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=1)
    settle(holes.debate("q2", "d6"), "agreed", label=1, round=1)
    review(settle(holes.debate("q2", "d3"), "escalated", reason="disagreement"), "escalated", [])

    _, operation = refine_started(
        client_as("admin"),
        CREATE,
        {"pool": holes.pool.pk, "name": "partial", "allow_partial": "on"},
    )

    assert operation.status == "done", operation.error
    refinement = Refinement.objects.get(qrel_set__name="partial")
    assert (refinement.allow_partial, refinement.unresolved) == (True, 1)
    assert refinement.qrel_set.qrels.count() == 4 + 3
