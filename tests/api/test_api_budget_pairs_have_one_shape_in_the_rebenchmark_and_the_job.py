"""The system pairs still undecided have one shape in the API, in the re-benchmark's
``intervals.budget.undecided_pairs`` as in the job's ``budget.undecided_pairs``: objects
with named keys ``{"a", "b", "difference", "low", "high", "settled", "n", "n_audited",
"n_escalated"}``, the same as the re-benchmark's ``intervals.pairs`` (the ``holes`` world of
tests/fixtures/refine.py, audited at 0.5: its one pair, alpha vs beta, is undecided)."""

import pytest

from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db

KEYS = {
    "a",
    "b",
    "difference",
    "low",
    "high",
    "settled",
    "n",
    "n_audited",
    "n_escalated",
    "n_bearing",
    "whole_range",
}


def test_the_rebenchmark_and_the_job_give_the_same_pair_objects(refined, api_as):
    refined = refined_at_share(refined, 0.5)
    client = api_as("researcher")
    rebench = client.get("/api/v1/datasets/holes/refined/test-dream/rebenchmark").json()
    job = client.get(f"/api/v1/jobs/{refined.job.pk}").json()
    (from_rebench,) = rebench["intervals"]["budget"]["undecided_pairs"]
    (from_job,) = job["budget"]["undecided_pairs"]
    assert set(from_rebench) == KEYS
    assert from_job == from_rebench == rebench["intervals"]["pairs"][0]
    assert (from_job["a"], from_job["b"], from_job["settled"]) == ("alpha", "beta", False)
    assert (from_job["n"], from_job["n_audited"], from_job["n_escalated"]) == (2, 1, 1)
