"""Refining a pool with too many unresolved pairs is refused with the option that refines
anyway, worded for the interface: the command's ``--allow-partial``, the API's
``"allow_partial": true``, the refine form's "Allow partial" box."""

import io

import pytest
from django.core.management import CommandError, call_command

from assess.models import Refinement
from tests.fixtures.refine import review, settle

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
    assert answer.status_code == 400
    detail = answer.json()["detail"]
    assert detail.endswith(f'; send "allow_partial": true {PURPOSE}')
    assert "--" not in detail
    assert not Refinement.objects.exists()


@pytest.mark.django_db
def test_the_refine_form_names_its_box(half_open, client_as):
    answer = client_as("admin").post(
        "/datasets/holes/refined/new/", {"pool": half_open.pool.pk, "name": "partial"}
    )
    assert answer.status_code == 400
    page = answer.content.decode()
    assert f"; tick &quot;Allow partial&quot; {PURPOSE}" in page
    assert "--allow-partial" not in page
    assert not Refinement.objects.exists()
