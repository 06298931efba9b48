"""A refined set chosen as the original side of a re-benchmark (``rebenchmark --original``,
the page's "Original qrels") is refused, naming the set and saying that an original qrels
set is expected: scoring a refined set against another would read as a refinement of the
benchmark (the ``holes`` world of tests/fixtures/refine.py, refined twice from ``test``)."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.refined.refine import qrels_refine

pytestmark = pytest.mark.django_db

REFUSAL = (
    "qrel set 'test-dream' is a refined set (refined from 'test'): an original qrels set is "
    "expected (imported: 'test')"
)


@pytest.fixture
def twice(refined):
    qrels_refine(pool=refined.pool, name="test-dream-2")
    return refined


def test_the_command_refuses_a_refined_original(twice):
    with pytest.raises(CommandError) as refused:
        call_command(
            "rebenchmark", "holes", "--original", "test-dream", "--refined", "test-dream-2"
        )
    assert str(refused.value) == f"--original: {REFUSAL}"


def test_the_page_refuses_a_refined_original_with_the_same_words(twice, client_as):
    client = client_as("researcher")
    response = client.get("/datasets/holes/rebenchmark/?original=test-dream&refined=test-dream-2")
    assert response.status_code == 400
    assert f"Original qrels: {REFUSAL}." in response.content.decode().replace("&#x27;", "'")
    # The imported original is compared as before.
    response = client.get("/datasets/holes/rebenchmark/?original=test&refined=test-dream-2")
    assert response.status_code == 200
