"""A pool build over the API naming a run the dataset does not have is refused at once (400,
nothing started) with the runs it has, as ``build_pool`` says it; the background step says
the same when a run is gone by the time it runs."""

import pytest

from corpora.models import Operation
from corpora.services.operations import operation_run

pytestmark = pytest.mark.django_db


def test_the_refusal_lists_the_known_runs(tiny_dataset, api_as):
    response = api_as("admin").post(
        "/api/v1/datasets/tiny/pools",
        {"runs": ["bm25", "dense"], "name": "p2"},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "runs: no run 'dense' in tiny (known: bm25)"
    assert not Operation.objects.filter(kind=Operation.Kind.BUILD_POOL).exists()


def test_the_background_step_lists_them_too(tiny_dataset):
    operation = Operation.objects.create(
        kind=Operation.Kind.BUILD_POOL,
        dataset=tiny_dataset,
        params={"qrels": "test", "runs": ["dense"], "depth": 2, "name": "p2"},
    )
    done = operation_run(operation_id=operation.pk)
    assert (done.status, done.error) == ("failed", "runs: no run 'dense' (known: bm25)")
