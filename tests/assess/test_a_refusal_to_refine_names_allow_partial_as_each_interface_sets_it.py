"""Refining a pool with too many unresolved pairs is refused with the option that refines
anyway, worded for the interface: the command's ``--allow-partial``, the API's
``"allow_partial": true`` (on the operation it polls), the refine form's "Allow partial"
box (on the refinement's progress page)."""

import io

import pytest
from django.core.management import CommandError, call_command

from assess.models import Refinement
from corpora.services.operations import operation_run
from tests.fixtures.refine import review, settle
from tests.fixtures.refine_again import refine_started

PURPOSE = (
    "to refine with the resolved labels only (the unresolved pairs stay unjudged and are listed)"
)


@pytest.fixture
def half_open(holes):
    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=1)
    review(settle(holes.debate("q2", "d3"), "escalated", reason="disagreement"), "escalated", [])
    return holes


@pytest.mark.django_db
def test_the_command_names_its_flag(half_open):
    with pytest.raises(CommandError) as caught:
        call_command("refine", "holes/p", "--name", "partial", stdout=io.StringIO())
    assert str(caught.value).endswith(
        f"allowed: finish the debates and human reviews; pass --allow-partial {PURPOSE}"
    )


@pytest.mark.django_db
def test_the_api_names_its_json_field(half_open, api_as):
    answer = api_as("admin").post(
        "/api/v1/datasets/holes/refined",
        {"pool": half_open.pool.pk, "name": "partial"},
        content_type="application/json",
    )
    assert answer.status_code == 202
    operation_run(operation_id=answer.json()["id"])  # the step the worker would run
    polled = api_as("admin").get(answer.json()["url"]).json()
    assert polled["status"] == "failed"
    assert polled["error"].endswith(f'\nTo get past this: send "allow_partial": true {PURPOSE}')
    assert "--" not in polled["error"]
    assert not Refinement.objects.exists()


@pytest.mark.django_db
def test_the_refine_form_names_its_box(half_open, client_as):
    client = client_as("admin")
    answer, _ = refine_started(
        client, "/datasets/holes/refined/new/", {"pool": half_open.pool.pk, "name": "partial"}
    )
    page = client.get(answer["Location"]).content.decode()
    start = page.index('<p id="operation-fix">')
    assert f"tick &quot;Allow partial&quot; {PURPOSE}.</p>" in page[start:]
    assert "--allow-partial" not in page
    assert not Refinement.objects.exists()
