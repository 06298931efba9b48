"""A job with audit share 0 on a pool that shares pairs with an audited job's pool gets that
job's audits and escalations in its refined set: the earlier job's reviews of the same query
and document count on every pool (assess.refined.same_pairs), and label reuse gives the new
job the earlier job's agreed labels. Each audited label keeps the inclusion probability under
which it was drawn (the earlier job's), so the estimate stands; but the report says whose
they are, with that job's audit share, instead of claiming an audit for a job that drew none.

The ``holes`` world of tests/fixtures/refine.py, job 1 audited at 0.5 on pool ``p``: bob's
audit of (q2, d6) and alice's label of the escalated (q2, d3). Pool ``p2`` holds q2's two
pooled pairs, both in ``p``; job 2 (audit share 0, reuse on) reuses job 1's label of (q2, d6)
and asks (q2, d3) again. Refined, ``p2`` has 1 audited and 1 escalated human label, both job
1's."""

import io

import pytest
from django.core.management import call_command

from assess.evaluation.budget import job_budget
from assess.evaluation.refined_intervals import rebench_intervals
from assess.models import LabelProvenance
from assess.refined.refine import qrels_refine
from corpora.services import pool_build
from debates.services import JobSpec, debate_job_launch
from tests.fixtures.refine import AGENT, refined_at_share

pytestmark = pytest.mark.django_db

JOB1 = "job {job} (audit share 50%): 1 audited, 1 escalated"


@pytest.fixture
def borrowed(refined):
    world = refined_at_share(refined, 0.5)
    p2 = pool_build(
        dataset=world.dataset, qrel_set=world.test, runs=world.runs, depth=3, name="p2",
        queries=["q2"],
    ).pool  # fmt: skip
    spec = JobSpec(
        pool=p2, agent_a=AGENT, agent_b=AGENT, prompt_version="dream-v1", audit_share=0.0
    )
    world.job2 = debate_job_launch(spec=spec, start=False)
    world.p2 = qrels_refine(pool=p2, name="p2-dream", allow_partial=True).qrel_set
    return world


def test_the_intervals_name_the_job_whose_audit_they_rest_on(borrowed):
    # The borrowed labels keep the inclusion probability they were drawn with (job 1's).
    rows = LabelProvenance.objects.filter(qrel_set=borrowed.p2).order_by("document__doc_id")
    kept = rows.values_list("document__doc_id", "source", "job_id", "review_kind", "inclusion")
    job1 = borrowed.job.pk
    assert list(kept) == [
        ("d3", "human", job1, "escalated", 1.0),
        ("d6", "human", job1, "audit", 0.5),
    ]
    assert borrowed.job2.debates.get(pair__document__doc_id="d6").settled_by == "reused"
    found = rebench_intervals(original=borrowed.test, refined=borrowed.p2, runs=borrowed.runs)
    assert found.error == ""
    assert found.counts["audited"] == 1 and found.counts["escalated"] == 1
    job1 = JOB1.format(job=job1)
    assert (
        f"human labels from jobs on other pools are in this sample ({job1}): their reviews of "
        "the same pairs count here, and a pair any of these jobs could draw is weighted by "
        "its chance of being drawn by at least one of them"
    ) in found.notes
    assert [(s.job, s.audited, s.escalated, s.on_pool) for s in found.sources] == [
        (borrowed.job.pk, 1, 1, False)
    ]
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "p2-dream", "--no-per-query", stdout=out)
    assert (
        f"human sample: 1 audited of 1 agreed labels, 1 escalated pair judged; by job: {job1}"
        in (out.getvalue())
    )
    # The note on other pools names job 1 without repeating the figures listed by job.
    assert out.getvalue().count(job1) == 1
    assert (
        f"Note: human labels from jobs on other pools are in this sample (job {borrowed.job.pk}):"
        in out.getvalue()
    )


def test_the_zero_share_jobs_budget_says_the_audit_is_another_jobs(borrowed, api_as):
    budget = job_budget(job=borrowed.job2)
    assert budget.error == "" and (budget.n_audited, budget.n_escalated) == (1, 1)
    job1 = JOB1.format(job=borrowed.job.pk)
    assert budget.notes[0] == (
        f"the human sample is not all this job's: {job1}; this job's own audit share is 0%"
    )
    body = api_as("researcher").get(f"/api/v1/jobs/{borrowed.job2.pk}").json()
    assert body["budget"]["notes"][0] == budget.notes[0]
    # Job 1's own budget (its pool's newest refined set) is all its own: no such note.
    assert not any("not all this job's" in n for n in job_budget(job=borrowed.job).notes)


def test_the_job_page_names_the_other_jobs_sample_once(borrowed, client_as):
    # The set's note on jobs of other pools would name job 1 again beside the job's own note.
    job1 = JOB1.format(job=borrowed.job.pk)
    notes = job_budget(job=borrowed.job2).notes
    assert [n for n in notes if job1 in n] == [
        f"the human sample is not all this job's: {job1}; this job's own audit share is 0%"
    ]
    shown = client_as("researcher").get(f"/jobs/{borrowed.job2.pk}/").content.decode()
    assert shown.count(job1) == 1
