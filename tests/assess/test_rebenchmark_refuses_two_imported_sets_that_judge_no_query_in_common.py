"""Two imported qrel sets may be compared (an externally refined set imported beside the
original), but not two that judge no query in common (the test and train splits): every
score on one side would be 0, read as a refinement that lowered them all. The command and
the page refuse with the same words (the ``holes`` world of tests/fixtures/refine.py)."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.models import Qrel, QrelSet, Query

pytestmark = pytest.mark.django_db

REFUSAL = (
    "qrel sets 'test' and 'train' judge no query in common: a re-benchmark compares two sets "
    "of judgments of the same queries (another split?)"
)


@pytest.fixture
def train(holes):
    # q3 is judged only by 'train'; 'test' judges q1 and q2.
    q3 = Query.objects.create(dataset=holes.dataset, query_id="q3", text="third question")
    split = QrelSet.objects.create(dataset=holes.dataset, name="train")
    doc = holes.dataset.documents.get(doc_id="d1")
    Qrel.objects.create(qrel_set=split, query=q3, document=doc, relevance=1)
    return split


def test_the_command_refuses_two_splits_with_no_query_in_common(train):
    with pytest.raises(CommandError) as refused:
        call_command("rebenchmark", "holes", "--original", "test", "--refined", "train")
    assert str(refused.value) == f"--original: {REFUSAL}"


def test_the_page_refuses_them_with_the_same_words_and_takes_a_set_sharing_a_query(
    train, client_as
):
    client = client_as("researcher")
    response = client.get("/datasets/holes/rebenchmark/?original=test&refined=train")
    assert response.status_code == 400
    assert f"Original qrels: {REFUSAL}." in response.content.decode().replace("&#x27;", "'")
    # Once 'train' judges q1 too, the two imported sets compare.
    doc = train.dataset.documents.get(doc_id="d2")
    q1 = train.dataset.queries.get(query_id="q1")
    Qrel.objects.create(qrel_set=train, query=q1, document=doc, relevance=1)
    response = client.get("/datasets/holes/rebenchmark/?original=test&refined=train")
    assert response.status_code == 200
