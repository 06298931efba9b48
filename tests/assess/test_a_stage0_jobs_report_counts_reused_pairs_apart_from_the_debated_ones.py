"""A second job with stage 0 on a pool an earlier job debated takes that job's labels for the
pairs it shares (settled_by "reused": no debate, no LLM call). Stage 0's report counted
every pair it did not settle as "debated": on the trial's second job "settled 0 of 1,604
pairs, 1,604 debated; LLM calls per pair 1.41 over all pairs, 1.41 over the debated ones",
though 800 were reused and 804 debated (2.82 calls per debated pair), and the job page said
"all 1,604 were debated". The reused pairs are counted apart; and the printout gives the
job's stage-0 note (why it settled nothing), as the job page does.

The ``holes`` world (tests/fixtures/refine.py), its job launched with stage 0 that settled
nothing: (q1, d3) and (q1, d5) reused from an earlier job, (q2, d3) and (q2, d6) debated,
4 LLM calls each: 8 calls over 4 pairs, 4.00 per debated pair."""

import html
import io

import pytest
from django.core.management import call_command

from assess.review.stage0_report import job_stage0_report
from debates.models import Debate, DebateJob
from tests.fixtures.refine import settle

pytestmark = pytest.mark.django_db

NOTE = "stage 0 settles nothing: it has 5 human-labelled pairs on a side"


@pytest.fixture
def reused(holes):
    DebateJob.objects.filter(pk=holes.job.pk).update(
        stage0=True, stage0_state="done", stage0_note=NOTE
    )
    for q, d in (("q1", "d3"), ("q1", "d5")):
        debate = settle(holes.debate(q, d), "agreed", label=0, round=1)
        Debate.objects.filter(pk=debate.pk).update(settled_by="reused", calls=0)
    for q, d in (("q2", "d3"), ("q2", "d6")):
        debate = settle(holes.debate(q, d), "agreed", label=1, round=1)
        Debate.objects.filter(pk=debate.pk).update(calls=4)
    holes.job.refresh_from_db()
    return holes


def test_the_report_counts_reused_pairs_apart(reused):
    report = job_stage0_report(job=reused.job)
    assert report is not None
    assert (report.pairs, report.settled, report.reused, report.debated) == (4, 0, 2, 2)
    assert (report.calls_per_pair, report.calls_per_debated_pair) == (2.0, 4.0)
    body = report.as_json()
    assert (body["reused"], body["debated"], body["llm_calls_per_debated_pair"]) == (2, 2, 4.0)


def test_the_printout_and_the_page_say_it(reused, client_as):
    out = io.StringIO()
    call_command("debate_job", str(reused.job.pk), "progress", "--no-progress", stdout=out)
    printed = out.getvalue()
    assert (
        "stage 0: settled 0 of 4 pairs (0 not relevant, 0 relevant), 2 reused from an earlier "
        "job (no LLM call), 2 debated; LLM calls per pair 2.00 over all pairs, 4.00 over the "
        "debated ones"
    ) in printed
    assert f"stage 0 note: {NOTE}" in printed
    shown = html.unescape(client_as("researcher").get(f"/jobs/{reused.job.pk}/").content.decode())
    assert "Stage 0 settled no pair: 2 were debated, 2 reused from an earlier job." in shown
    assert "all 4 were debated" not in shown
