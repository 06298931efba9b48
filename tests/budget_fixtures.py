"""The hand-made pool of the human-budget tests (issue 15): six pairs q00i/d00i, 1-4 escalated
and 5-6 agreed and audited, with ranks in two runs A and B (impact worked by hand in
tests/test_a_human_budget_of_two_serves_exactly_the_two_highest_impact_pairs.py), and a job
whose human budget is 2. Import ``budget_job_fixture`` explicitly."""

import pytest

from assess.review.services import review_items_sync
from corpora.models import PairSource, Run
from debates.services.human import debate_job_budget_set

RANKS = {1: {"A": 5, "B": 12}, 2: {"A": 1, "B": 2}, 3: {"A": 11}, 4: {"A": 3, "B": 3}}
RANKS |= {5: {"B": 1}, 6: {"A": 2}}


@pytest.fixture(name="budget_job")
def budget_job_fixture(make_review_job):
    review = make_review_job(escalated=4, agreed=2, audit_share=1.0, sync=False)
    debates = review.escalated + review.agreed
    dataset = review.job.pool.dataset
    runs = {name: Run.objects.create(dataset=dataset, name=name.lower()) for name in "AB"}
    for number, ranks in RANKS.items():
        for run, rank in ranks.items():
            PairSource.objects.create(
                pair_id=debates[number - 1].pair_id, run=runs[run], rank=rank, score=1.0
            )
    debate_job_budget_set(job=review.job, budget=2)
    review_items_sync(job=review.job)
    return review.job, debates
