"""Refining runs as an operation: the request answers before any label is written (the
operation queued), each stage of the refinement is told as it starts, and the API answers
202 with the operation to poll, which ends naming the refined set."""

import pytest

from assess.models import Refinement
from assess.refined.refine import qrels_refine
from corpora.models import Operation
from corpora.services.operations import operation_run
from tests.fixtures.refine import settle


@pytest.fixture
def settled(holes):
    for query, doc in (("q1", "d3"), ("q1", "d5"), ("q2", "d3"), ("q2", "d6")):
        settle(holes.debate(query, doc), "agreed", label=1, round=1)
    return holes


@pytest.mark.django_db
def test_the_refinement_tells_each_stage_as_it_starts(settled):
    stages: list[str] = []
    qrels_refine(pool=settled.pool, name="staged", progress=stages.append)
    assert stages == [
        "step 1 of 3: resolving the final labels of 4 pairs",
        "step 2 of 3: writing the refined set (4 final labels)",
        "step 3 of 3: writing the provenance of 4 pairs",
    ]


@pytest.mark.django_db
def test_the_api_answers_202_before_refining_then_the_operation_names_the_set(settled, api_as):
    api = api_as("admin")
    answer = api.post(
        "/api/v1/datasets/holes/refined",
        {"pool": settled.pool.pk, "name": "later"},
        content_type="application/json",
    )
    assert answer.status_code == 202
    body = answer.json()
    assert (body["kind"], body["status"], body["url"]) == (
        "refine",
        "queued",
        f"/api/v1/operations/{body['id']}",
    )
    assert not Refinement.objects.exists()  # nothing refined while the request ran

    operation_run(operation_id=body["id"])  # the step the worker would run
    polled = api.get(body["url"]).json()
    refinement = Refinement.objects.get()
    assert (polled["status"], polled["stage"], polled["error"]) == ("done", "done", "")
    assert polled["result"]["qrel_set"] == refinement.qrel_set_id
    assert (polled["result"]["name"], polled["result"]["new_labels"]) == ("later", 4)


@pytest.mark.django_db
def test_a_taken_name_is_refused_at_once_and_starts_nothing(settled, api_as):
    qrels_refine(pool=settled.pool, name="taken")
    answer = api_as("admin").post(
        "/api/v1/datasets/holes/refined",
        {"pool": settled.pool.pk, "name": "taken"},
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert "qrel set 'taken' already exists in 'holes'" in answer.json()["detail"]
    assert not Operation.objects.exists()
