"""A job with stage 0 reports what stage 0 did, beyond the band's "error <= alpha": the pairs
it settled on each side, the LLM calls per pair, the audited error of its labels with the
sample size and 95% Wilson interval (the audit's own estimator) against alpha, and, since
the guarantee bounds wrong labels and not the relevant pairs (holes) lost, how many audited
"not relevant" labels people found relevant, with an estimate of the holes lost. On the job
page, in the API's job (``stage0_report``) and in ``debate_job ID progress``.

The ``holes`` world of tests/fixtures/refine.py, its job launched with stage 0 (alpha 0.1,
delta 0.1, band set on 40 labels): stage 0 settled (q1, d3) and (q1, d5) not relevant and
(q2, d6) relevant; (q2, d3) was debated, 4 LLM calls. Audited at inclusion 0.5: people
found (q1, d3) relevant (wrong), (q1, d5) not relevant and (q2, d6) relevant (right).

By hand: error 1 of 3 = 0.3333, Wilson 95% (0.0615, 0.7923): above alpha 0.1. On the "not
relevant" side 1 of 2 wrong, Wilson (0.0945, 0.9055): of its 2 labels, about 1 may be
relevant (0.19 to 1.81). Calls per pair 4 / 4 = 1.00, per debated pair 4 / 1 = 4.00."""

import html
import io

import pytest
from django.core.management import call_command

from assess.review.stage0_report import job_stage0_report
from debates.models import Debate, DebateJob
from debates.stage0_band import band_choose
from tests.fixtures.refine import review, settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def staged(holes):
    band = band_choose([0.001] * 40, [0] * 40)
    DebateJob.objects.filter(pk=holes.job.pk).update(
        stage0=True, stage0_state="done", stage0_band=band.dump(), audit_share=0.5
    )
    for (q, d), label, human in ((("q1", "d3"), 0, 1), (("q1", "d5"), 0, 0), (("q2", "d6"), 1, 1)):
        debate = settle(holes.debate(q, d), "agreed", label=label, round=0)
        Debate.objects.filter(pk=debate.pk).update(settled_by="stage0")
        item = review(debate, "audit", [("bob", human)])
        type(item).objects.filter(pk=item.pk).update(inclusion=0.5, judgments_done=1)
    debated = settle(holes.debate("q2", "d3"), "agreed", label=1, round=1)
    Debate.objects.filter(pk=debated.pk).update(calls=4)
    holes.job.refresh_from_db()
    return holes


def test_the_report_counts_the_sides_the_error_and_the_holes(staged):
    report = job_stage0_report(job=staged.job)
    assert report is not None
    assert (report.pairs, report.not_relevant, report.relevant, report.debated) == (4, 2, 1, 1)
    assert (report.calls_per_pair, report.calls_per_debated_pair) == (1.0, 4.0)
    assert (report.alpha, report.delta, report.band_labels) == (0.1, 0.1, 40)
    assert (report.sampled, report.error.successes, report.error.n) == (3, 1, 3)
    assert report.error.estimate == pytest.approx(1 / 3)
    assert (report.error.low, report.error.high) == pytest.approx((0.06149, 0.79235), abs=1e-5)
    assert report.within_alpha is False
    assert (report.not_relevant_audited, report.found_relevant) == (2, 1)
    assert report.lost == pytest.approx((1.0, 0.18906, 1.81094), abs=1e-5)


def test_the_job_page_says_it_in_words(staged, client_as):
    shown = html.unescape(client_as("researcher").get(f"/jobs/{staged.job.pk}/").content.decode())
    # The stage-0 note at the top leads to the panel.
    assert '<a href="#job-stage0-report" class="small">What it settled and its audited' in shown
    assert '<section id="job-stage0-report" class="job-review">' in shown
    assert (
        "Stage 0 settled <strong>3</strong> of 4 pairs without a debate: 2 not relevant, "
        "1 relevant; 1 was debated. LLM calls per pair: <strong>1.00</strong> over all the "
        "job's pairs, 4.00 over the debated ones."
    ) in shown
    assert (
        "Audited error of stage-0 labels: <strong>33.33%</strong> (1 of 3 audited pairs), 95% "
        "confidence interval 6.15%–79.23% (Wilson): <strong>above</strong> the alpha of 0.1"
    ) in shown
    assert (
        "The guarantee bounds the share of wrong labels among the pairs stage 0 settled, not "
        "the relevant pairs (holes) it lost by settling them not relevant: people found 1 of "
        'the 2 audited stage-0 "not relevant" labels relevant; about 1 of the 2 pairs it '
        "settled not relevant may be relevant (95%: 0-2)."
    ) in shown


def test_the_api_and_the_progress_printout_carry_it(staged, api_as):
    body = api_as("researcher").get(f"/api/v1/jobs/{staged.job.pk}").json()["stage0_report"]
    assert body["settled"] == {"relevant": 1, "not_relevant": 2}
    assert (body["debated"], body["llm_calls_per_debated_pair"]) == (1, 4.0)
    assert (body["audit"]["error"]["successes"], body["audit"]["error"]["n"]) == (1, 3)
    assert body["audit"]["error"]["low"] == pytest.approx(0.06149, abs=1e-5)
    assert body["audit"]["within_alpha"] is False
    assert (body["not_relevant_audited"], body["found_relevant"]) == (2, 1)
    assert body["lost_relevant"]["estimate"] == pytest.approx(1.0)
    out = io.StringIO()
    call_command("debate_job", str(staged.job.pk), "progress", stdout=out)
    assert (
        "stage 0 audit: error rate of stage-0 labels 0.3333 (1 of 3 audited), 95% Wilson "
        "interval 0.0615-0.7923, ABOVE alpha 0.1"
    ) in out.getvalue()


def test_a_job_without_stage0_has_no_report(holes, api_as):
    assert job_stage0_report(job=holes.job) is None
    assert api_as("researcher").get(f"/api/v1/jobs/{holes.job.pk}").json()["stage0_report"] is None


def test_a_band_that_bounds_the_holes_says_so_on_the_page_and_in_the_api(staged, client_as, api_as):
    # 40 non-relevant and 29 relevant labels: the non-relevant side settles at beta 0.1
    # (0.9^29 = 0.0471 <= 0.05), so the guarantee now bounds the holes too.
    band = band_choose([0.001] * 40 + [0.9] * 29, [0] * 40 + [1] * 29, beta=0.1)
    DebateJob.objects.filter(pk=staged.job.pk).update(stage0_band=band.dump())
    body = api_as("researcher").get(f"/api/v1/jobs/{staged.job.pk}").json()["stage0_report"]
    assert body["beta"] == 0.1
    assert body["guarantee"].startswith(
        "the guarantee bounds the error rate of stage 0's labels and the chance that a "
        "relevant pair (hole) is settled not relevant, at most 0.1"
    )
    shown = html.unescape(client_as("researcher").get(f"/jobs/{staged.job.pk}/").content.decode())
    assert (
        "The guarantee bounds the error rate of stage 0's labels and the chance that a relevant "
        "pair (hole) is settled not relevant, at most 0.1"
    ) in shown
