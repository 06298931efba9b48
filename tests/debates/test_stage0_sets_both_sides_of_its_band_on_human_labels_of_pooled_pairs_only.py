"""Stage 0 chooses both sides of its band on the human labels of pooled pairs (the judge's
``band_calibration``), thinned to an equal-probability sample, and never on a collection's
judged pairs, whose mix of relevant pairs is not a pool's."""

import pytest

from debates.stage0_band import band_draw

pytestmark = pytest.mark.django_db


def _pooled(doc: str, p: float, label: int, inclusion: float = 1.0, floor: float = 1.0):
    row = {"query_id": "q", "doc_id": doc, "p": p, "label": label}
    return {**row, "inclusion": inclusion, "floor": floor}


def _band(dataset, *, band_rows, heldout, alpha=0.1, delta=0.1, beta=1.0):
    from debates.models import DebateJob, Stage0Judge
    from debates.services.stage0_route import stage0_band_for
    from debates.stage0 import stage0_judge_train

    judge = stage0_judge_train(dataset=dataset)
    Stage0Judge.objects.filter(pk=judge.pk).update(heldout=heldout, band_calibration=band_rows)
    judge.refresh_from_db()
    # Its levels only; beta 1 (no bound on the holes given up) unless a test asks for one,
    # so that these tests see the error test alone.
    job = DebateJob(stage0=True, stage0_alpha=alpha, stage0_delta=delta, stage0_beta=beta)
    return stage0_band_for(job=job, judge=judge)


def test_the_non_relevant_side_is_set_on_pooled_labels_though_the_qrels_contradict_it(
    stage0_dataset,
):
    """Pooled: 40 pairs at p 0.02, none relevant: from threshold 0.02 on, n 40, k 0,
    p-value 0.9^40 = 0.0148 <= 0.05, so the side rejects down to the grid's end, 0.495. The
    held-out qrels hold 60 judged relevant pairs at p 0.01: had they counted (the side was
    once chosen on every held-out human label), settling "non-relevant" would be 60% wrong
    and the side would have no bound."""
    band_rows = [_pooled(f"n{i}", 0.02, 0) for i in range(40)]
    heldout = [
        {"query_id": "q", "doc_id": f"k{i}", "p": 0.01, "label": 1, "source": "qrels"}
        for i in range(60)
    ]
    band = _band(stage0_dataset, band_rows=band_rows, heldout=heldout)
    assert (band.low.bound, band.low.settled, band.low.errors) == (0.495, 40, 0)
    assert band.low.p_value == pytest.approx(0.9**40)
    assert band.high.bound is None and band.n == 40
    assert band.label_of(0.3) == 0 and band.label_of(0.6) is None


def test_escalations_are_thinned_to_the_audits_rate_before_the_band_is_set(stage0_dataset):
    """40 audits at the floor 0.1 (all kept) and 400 escalations (kept when their draw is
    below 0.1 / 1): the band is set on 40 + that many labels, the note says so."""
    audits = [_pooled(f"a{i}", 0.02, 0, inclusion=0.1, floor=0.1) for i in range(40)]
    escalations = [_pooled(f"e{i}", 0.02, 0, inclusion=1.0, floor=0.1) for i in range(400)]
    kept = 40 + sum(1 for row in escalations if band_draw(f"q\t{row['doc_id']}") < 0.1)
    band = _band(stage0_dataset, band_rows=audits + escalations, heldout=[])
    assert band.n == kept and band.low.settled == kept and band.low.errors == 0
    assert f"band set on {kept} of 440 human labels of pooled pairs" in band.message
    assert "rate 0.1" in band.message


def test_too_few_pooled_labels_settle_nothing_and_say_how_many_more(stage0_dataset):
    band_rows = [_pooled(f"n{i}", 0.02, 0) for i in range(12)]
    heldout = [
        {"query_id": "q", "doc_id": f"j{i}", "p": 0.02, "label": 0, "source": "qrels"}
        for i in range(100)
    ]
    band = _band(stage0_dataset, band_rows=band_rows, heldout=heldout)
    assert not band.settles
    assert "needs at least 29" in band.message
    assert "it has 12 (17 more at the least)" in band.message


def test_with_the_default_beta_no_relevant_label_means_no_non_relevant_side(stage0_dataset):
    """The same 40 pooled non-relevant labels as above, at the job's default beta 0.1: with
    no relevant pair among the labels nothing shows how many holes settling would give up
    (29 relevant labels are the least that can), so the side settles nothing and says why."""
    band_rows = [_pooled(f"n{i}", 0.02, 0) for i in range(40)]
    band = _band(stage0_dataset, band_rows=band_rows, heldout=[], beta=0.1)
    assert band.low.bound is None and not band.settles
    assert (band.beta, band.relevant) == (0.1, 0)
    assert "needs at least 29 relevant pairs among its human labels; it has 0" in band.message


def test_with_no_pooled_human_label_yet_the_note_says_where_such_labels_come_from(stage0_dataset):
    band = _band(stage0_dataset, band_rows=[], heldout=[])
    assert not band.settles and band.n == 0
    assert band.message.endswith(
        "; no human label of a pooled pair yet: people judge a job's escalated and audited "
        "pairs at /judge/, and a later job's stage 0 sets its band on those labels"
    )
