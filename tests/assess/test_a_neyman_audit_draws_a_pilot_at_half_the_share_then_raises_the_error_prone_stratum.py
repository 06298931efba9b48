"""A job with the Neyman audit allocation: the sync first draws every audit unit (consensus
label x round x the pair's best rank in its pool) at half the audit share (the pilot); once
every pilot item has its human label, the next sync spends the rest of the share where the
pilot found the consensus wrong, raising that unit's probability (and every item's of it) and
drawing the pairs the raise adds, while the pilot's audits all stay (debates.audit_design,
assess.review.audit). The pairs here have no rank in their pool: each stratum is one unit,
"below 10"."""

import math

import pytest

from assess.models import Judgment, ReviewItem
from assess.review.agreement import audit_draw
from assess.review.services import review_items_sync
from corpora.models import Pair, PairSource, Run
from debates.models import DebateJob
from tests.fixtures.jobs import build_two_strata_job

# The pilot's draws are worked by hand at half the share (tests/fixtures/jobs.py).
pytestmark = pytest.mark.usefixtures("pilot_at_half_the_share")

ONES, ZEROS = "label 1, round 1, below 10", "label 0, round 2, below 10"


def _two_strata_job(make_finished_job, **fields) -> DebateJob:
    """40 debates agreed on 1 in round 1, then 40 agreed on 0 in round 2. The job and pair
    ids are fixed, so are the draws (SHA-256 of "job id:pair id")."""
    return build_two_strata_job(make_finished_job, slug="neyman", **fields)


def _drawn(job, label, below):
    return {
        d.pk for d in job.debates.filter(final_label=label) if audit_draw(job.pk, d.pair_id) < below
    }


def _judge_all(annotator, label):
    """Every audit item gets one judgment of ``label`` (the items want one)."""
    for item in ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT, judgments_done=0):
        Judgment.objects.create(
            item=item, annotator=annotator, label=label, client_id=f"{item.pk:032x}"
        )
        ReviewItem.objects.filter(pk=item.pk).update(judgments_done=1)


def test_the_pilot_is_half_the_share_and_the_wrong_stratum_is_raised_after_it(
    make_finished_job, annotators
):
    job = _two_strata_job(make_finished_job, audit_share=0.2, audit_allocation="neyman")
    (annotator,) = annotators(1)

    pilot = review_items_sync(job=job)

    job.refresh_from_db()
    assert job.audit_inclusion == {ONES: 0.1, ZEROS: 0.1}
    items = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT)
    pilot_ones, pilot_zeros = _drawn(job, 1, 0.1), _drawn(job, 0, 0.1)
    assert set(items.values_list("debate_id", flat=True)) == pilot_ones | pilot_zeros
    assert (len(pilot_ones), len(pilot_zeros), pilot) == (3, 5, 8)
    assert set(items.values_list("inclusion", flat=True)) == {0.1}
    # Pilot items still wait: a sync changes nothing.
    assert review_items_sync(job=job) == 0

    # Humans say 0 everywhere: the 3 consensus 1s are all wrong, the 5 consensus 0s right.
    _judge_all(annotator, 0)
    added = review_items_sync(job=job)

    # Laplace's rule: e = (wrong + 1) / (judged + 2); sd = sqrt(e (1 - e)).
    sd_ones = math.sqrt(4 / 5 * 1 / 5)  # 3 of 3 wrong: 0.4
    sd_zeros = math.sqrt(1 / 7 * 6 / 7)  # 0 of 5 wrong
    scale = 0.2 * 80 / (40 * sd_ones + 40 * sd_zeros)  # the share's 16 labels, all strata
    p_ones, p_zeros = scale * sd_ones, scale * sd_zeros
    assert (round(p_ones, 4), round(p_zeros, 4)) == (0.2134, 0.1866)
    job.refresh_from_db()
    assert job.audit_inclusion == pytest.approx({ONES: p_ones, ZEROS: p_zeros}, rel=1e-12)
    p_ones, p_zeros = job.audit_inclusion[ONES], job.audit_inclusion[ZEROS]  # as stored
    assert math.isclose(40 * p_ones + 40 * p_zeros, 16.0)
    ones, zeros = _drawn(job, 1, p_ones), _drawn(job, 0, p_zeros)
    assert pilot_ones < ones and pilot_zeros <= zeros
    assert set(items.values_list("debate_id", flat=True)) == ones | zeros
    assert (len(ones), len(zeros), added) == (10, 11, 21 - 8)
    inclusion = dict(items.values_list("debate_id", "inclusion"))
    assert {inclusion[pk] for pk in ones} == {p_ones}
    assert {inclusion[pk] for pk in zeros} == {p_zeros}


def test_a_stratum_never_falls_below_what_it_was_drawn_with(make_finished_job, annotators):
    # The 0s were drawn at 0.3 already (e.g. a share raised, then lowered): 12 of the 16
    # labels the share buys are spent there, whatever the pilot finds.
    job = _two_strata_job(make_finished_job, audit_share=0.2, audit_allocation="neyman")
    # Committed under the stratum's name, as a job did before its strata were split by rank.
    DebateJob.objects.filter(pk=job.pk).update(audit_inclusion={"label 0, round 2": 0.3})
    job.refresh_from_db()
    (annotator,) = annotators(1)

    review_items_sync(job=job)
    pilot = set(ReviewItem.objects.values_list("debate_id", flat=True))
    assert pilot == _drawn(job, 1, 0.1) | _drawn(job, 0, 0.3)
    assert len(pilot) == 3 + 15
    _judge_all(annotator, 1)  # the consensus 1s all right, the 0s all wrong

    # Neyman would give the 0s 0.148 and the 1s 0.252; the 0s stay at 0.3, and the 4
    # labels left leave the 1s at their pilot probability, 4 / 40.
    assert review_items_sync(job=job) == 0
    job.refresh_from_db()
    assert job.audit_inclusion == {"label 0, round 2": 0.3, ONES: 0.1, ZEROS: 0.3}
    assert set(ReviewItem.objects.values_list("debate_id", flat=True)) == pilot


def test_pilot_items_beyond_the_human_budget_do_not_hold_the_second_phase_back(
    make_finished_job, annotators
):
    # 8 pilot items, a budget of 3 pairs: the 5 beyond it are never served, so once the 3
    # within it are judged the pilot is in and the next sync raises the strata.
    job = _two_strata_job(
        make_finished_job, audit_share=0.2, audit_allocation="neyman", human_budget=3
    )
    (annotator,) = annotators(1)
    assert review_items_sync(job=job) == 8
    served = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT, budget_rank__lte=3)
    assert served.count() == 3
    for item in served:
        Judgment.objects.create(
            item=item, annotator=annotator, label=0, client_id=f"{item.pk:032x}"
        )
        ReviewItem.objects.filter(pk=item.pk).update(judgments_done=1)
    assert review_items_sync(job=job) > 0
    job.refresh_from_db()
    assert all(p > 0.1 for p in job.audit_inclusion.values())


def test_a_pairs_best_rank_in_its_pool_names_its_unit_and_a_higher_rank_draws_more(
    make_finished_job, annotators
):
    # The same 80 debates, their pairs put in the pool by two runs: the first 20 of each
    # stratum at rank 1 by one run (and rank 7 by the other: the best rank counts), the
    # other 20 at rank 3 only.
    job = _two_strata_job(make_finished_job, audit_share=0.2, audit_allocation="neyman")
    first = Run.objects.create(dataset=job.pool.dataset, name="first")
    second = Run.objects.create(dataset=job.pool.dataset, name="second")
    for i, pair in enumerate(Pair.objects.filter(pool=job.pool).order_by("pk")):
        top = i % 40 < 20
        PairSource.objects.create(pair=pair, run=first, rank=1 if top else 3, score=1.0)
        if top:
            PairSource.objects.create(pair=pair, run=second, rank=7, score=1.0)
    (annotator,) = annotators(1)
    review_items_sync(job=job)
    job.refresh_from_db()
    units = ("label 1, round 1, rank 1", "label 1, round 1, rank 3")
    units += ("label 0, round 2, rank 1", "label 0, round 2, rank 3")
    assert job.audit_inclusion == dict.fromkeys(units, 0.1)
    audits = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT)
    j1, j0 = (audits.filter(debate__final_label=label).count() for label in (1, 0))
    _judge_all(annotator, 0)  # the consensus 1s all wrong, the 0s all right
    review_items_sync(job=job)
    job.refresh_from_db()
    # Each stratum's error SD comes from its whole pilot (Laplace's rule), each unit's
    # weight is that SD times its rank's discount (1 at rank 1, 1/2 at rank 3), and the
    # share's 16 labels are spread over the four units of 20 pairs in proportion.
    e1, e0 = (j1 + 1) / (j1 + 2), 1 / (j0 + 2)
    sd1, sd0 = math.sqrt(e1 * (1 - e1)), math.sqrt(e0 * (1 - e0))
    weights = [sd1, sd1 / 2, sd0, sd0 / 2]
    c = 16 / (20 * sum(weights))
    assert job.audit_inclusion == pytest.approx(
        {u: c * w for u, w in zip(units, weights, strict=True)}, rel=1e-12
    )
    assert min(job.audit_inclusion.values()) > 0.1  # no unit held at its pilot probability
