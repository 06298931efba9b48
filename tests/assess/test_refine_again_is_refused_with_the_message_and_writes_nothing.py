"""A refinement the form or the checks made at once refuse (a taken name, a bad name,
another dataset's pool) gives the refined sets page again with the message and the admin's
values (400), and writes nothing; one refused while refining (too many unresolved pairs)
fails its operation with the message, and writes nothing either."""

import pytest
from django.urls import reverse

from tests.fixtures.refine import review, settle
from tests.fixtures.refine_again import FIRST, form_values, refine_started, table_counts
from tests.fixtures.ui import html_tables

CREATE = reverse("refined:refine_create", args=["holes"])


@pytest.mark.django_db
def test_a_taken_name_gives_400_with_the_message_and_creates_nothing(
    judged_after_refining, client_as
):
    before = table_counts()
    response = client_as("admin").post(
        CREATE, {"pool": judged_after_refining.pool.pk, "name": FIRST}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert (
        "qrel set &#x27;test-dream-p&#x27; already exists in &#x27;holes&#x27;; refined sets "
        "are immutable, choose another name" in html
    )
    assert form_values(html)["name"] == FIRST  # the form comes back with the admin's values
    assert html_tables(html)[0][1][0] == FIRST  # the list is still there
    assert table_counts() == before


@pytest.mark.django_db
def test_too_many_unresolved_pairs_without_allow_partial_fail_the_operation_and_create_nothing(
    holes, client_as
):
    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=1)
    review(settle(holes.debate("q2", "d3"), "escalated", reason="disagreement"), "escalated", [])
    before = table_counts()
    client = client_as("admin")

    response, operation = refine_started(client, CREATE, {"pool": holes.pool.pk, "name": "early"})

    assert operation.status == "failed"
    assert operation.error.startswith(
        "refine refused, nothing written: 2 of 4 pairs (50.0%) have no final label"
    )
    page = client.get(response["Location"]).content.decode()
    assert "2 of 4 pairs (50.0%) have no final label" in page
    assert 'id="refined-set"' not in page
    assert table_counts() == before


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "This field is required."),
        (
            "two words",
            "must be 1-100 letters, digits, &#x27;-&#x27;, &#x27;_&#x27; or &#x27;.&#x27;",
        ),
        ("x" * 101, "Ensure this value has at most 100 characters (it has 101)."),
        ("new", "&#x27;new&#x27; cannot be the name of a refined set"),
        ("..", "&#x27;..&#x27; cannot be the name of a refined set"),
        ("<b>x</b>", "&#x27;&lt;b&gt;x&lt;/b&gt;&#x27; must be 1-100 letters"),
    ],
)
@pytest.mark.django_db
def test_a_bad_name_gives_400_with_the_reason_and_creates_nothing(
    judged_after_refining, client_as, name, message
):
    before = table_counts()
    response = client_as("admin").post(
        CREATE, {"pool": judged_after_refining.pool.pk, "name": name}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    assert "<b>x</b>" not in html
    assert table_counts() == before


@pytest.mark.django_db
def test_a_pool_of_another_dataset_is_not_a_valid_choice(
    judged_after_refining, tiny_dataset, client_as
):
    other = tiny_dataset.pools.get(name="p")
    before = table_counts()
    response = client_as("admin").post(CREATE, {"pool": other.pk, "name": "elsewhere"})
    assert response.status_code == 400
    assert "Select a valid choice." in response.content.decode()
    assert table_counts() == before
