"""A job with stage 0: the dataset's judge settles the pairs outside its band before any
debate (settled_by "stage0", round 0, no call); every other pair is debated."""

import pytest

from corpora.models import Pool
from debates.models import Debate, DebateJob
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from debates.stage0_band import band_load
from tests.fixtures.jobs import pool_of

pytestmark = pytest.mark.django_db(transaction=True)

RULE = {"backend": "test"}  # the stance rule's test client (tests.fixtures.jobs)


def _cross_pool(dataset) -> Pool:
    """Each query with its own first document (similar) and the next topic's (not): pairs
    the qrels do not judge, as a pool's holes are."""
    pairs = []
    for i in range(40):
        pairs += [(f"q{i}", f"d{(i + 1) % 40}a"), (f"q{i}", f"d{(i + 2) % 40}b")]
    return pool_of(dataset, pairs, name="cross")


def _launch(pool, **options) -> DebateJob:
    spec = JobSpec(pool=pool, agent_a=None, agent_b=None, rounds=2, audit_share=0.0, **options)
    from debates.services.backends import agent_config_validate

    agent = agent_config_validate(RULE, agent="A")
    spec = JobSpec.of(pool=pool, options=spec, agent_a=agent, agent_b=agent)
    return debate_job_launch(spec=spec, start=True)


def test_stage0_settles_what_lies_outside_its_band_and_debates_the_rest(
    stage0_dataset, fake_llms, monkeypatch
):
    """A hand-worked band: human labels of pooled pairs (escalations, sent to people with
    probability 1 in a job whose every pair was: all kept) 30 at p 0.95 (all relevant), 30 at
    0.05 (none), 10 at 0.5 (5 relevant): at alpha = delta = 0.1 each side rejects down to its
    30 pairs (0.9^30 = 0.042 <= 0.05) and stops at 0.5 (P(Bin(40, 0.1) <= 5) = 0.63): high
    0.505, low 0.495. Pairs scored 0.95 / 0.5 / 0.05 are settled 1 / debated / settled 0."""
    import debates.stage0 as stage0
    from debates.models import Stage0Judge

    judge = stage0.stage0_judge_train(dataset=stage0_dataset)

    def pooled(doc: str, p: float, label: int) -> dict:
        row = {"query_id": "q", "doc_id": doc, "p": p, "label": label}
        return {**row, "inclusion": 1.0, "floor": 1.0}

    band_rows = [pooled(f"r{i}", 0.95, 1) for i in range(30)]
    band_rows += [pooled(f"n{i}", 0.05, 0) for i in range(30)]
    band_rows += [pooled(f"m{i}", 0.5, i % 2) for i in range(10)]
    # Judged pairs of the qrels never set either side (a pool's holes hold far fewer
    # relevant pairs than the qrels): these 40 would stop the relevant side at once, those
    # 40 the non-relevant one, if they did.
    heldout = [
        {"query_id": "q", "doc_id": f"j{i}", "p": 0.99, "label": 0, "source": "qrels"}
        for i in range(40)
    ]
    heldout += [
        {"query_id": "q", "doc_id": f"k{i}", "p": 0.01, "label": 1, "source": "qrels"}
        for i in range(40)
    ]
    # Assumed negatives are no human's label: they never set the band.
    heldout += [
        {"query_id": "q", "doc_id": f"c{i}", "p": 0.5, "label": 0, "source": "cross"}
        for i in range(50)
    ]
    Stage0Judge.objects.filter(pk=judge.pk).update(heldout=heldout, band_calibration=band_rows)
    cycle = (0.95, 0.5, 0.05)
    monkeypatch.setattr(stage0, "stage0_judge_stale_reason", lambda *, judge: "")
    monkeypatch.setattr(
        stage0,
        "stage0_pairs_score",
        lambda *, judge, pairs, lexicon=None: [cycle[p.pk % 3] for p in pairs],
    )
    pool = _cross_pool(stage0_dataset)
    job = _launch(pool, stage0=True)
    debate_job_wait(job=job, poll_seconds=0.1)
    job.refresh_from_db()
    assert job.stage0_state == "done"
    assert job.status == DebateJob.Status.FINISHED
    band = band_load(job.stage0_band)
    assert (band.low.bound, band.high.bound, band.n) == (0.495, 0.505, 70)
    assert "band set on 70 of 70 human labels of pooled pairs" in job.stage0_note
    assert job.stage0_model_hash == Stage0Judge.objects.get(pk=judge.pk).model_hash
    for debate in Debate.objects.filter(job=job).select_related("pair"):
        p = cycle[debate.pair_id % 3]
        assert debate.stage0_p == p
        if p == 0.5:
            assert (debate.settled_by, debate.calls > 0) == ("", True)
            continue
        assert (debate.status, debate.settled_by) == (Debate.Status.AGREED, "stage0")
        assert (debate.final_label, debate.consensus_round, debate.calls) == (int(p > 0.5), 0, 0)
        assert not debate.turns.exists()
    settled = Debate.objects.filter(job=job, settled_by="stage0").count()
    assert settled == sum(1 for pk in pool.pairs.values_list("pk", flat=True) if pk % 3 != 1)
    assert f"it settled {settled} of 80 pairs" in job.stage0_note


def test_a_trained_judge_routes_a_pool_end_to_end(stage0_dataset, stage0_pooled_labels, fake_llms):
    pool = _cross_pool(stage0_dataset)
    # beta 1: the labels hold no relevant pair, so a bound on the holes given up would stop
    # the non-relevant side (the next test); this one follows the routing.
    job = _launch(pool, stage0=True, stage0_alpha=0.3, stage0_delta=0.3, stage0_beta=1.0)
    assert job.stage0_state == "waiting"
    debate_job_wait(job=job, poll_seconds=0.1)
    job.refresh_from_db()
    assert (job.stage0_state, job.status) == ("done", DebateJob.Status.FINISHED)
    band = band_load(job.stage0_band)
    assert band.settles and band.n == 40, job.stage0_note
    assert len(job.stage0_model_hash) == 64
    for debate in Debate.objects.filter(job=job):
        assert debate.stage0_p is not None and 0.0 <= debate.stage0_p <= 1.0
        label = band.label_of(debate.stage0_p)
        assert debate.settled_by == ("stage0" if label is not None else "")
        if label is not None:
            assert (debate.final_label, debate.calls) == (label, 0)


def test_with_no_relevant_label_the_holes_bound_keeps_every_pair_debated(
    stage0_dataset, stage0_pooled_labels, fake_llms
):
    """The same 40 non-relevant labels at the default beta 0.1: nothing shows how many holes
    settling "non-relevant" would give up (at delta 0.3 that takes 19 relevant labels, 0.9^19
    = 0.135 <= 0.15 < 0.9^18 = 0.150), so no pair is settled that way and the note says so."""
    pool = _cross_pool(stage0_dataset)
    job = _launch(pool, stage0=True, stage0_alpha=0.3, stage0_delta=0.3)
    debate_job_wait(job=job, poll_seconds=0.1)
    job.refresh_from_db()
    band = band_load(job.stage0_band)
    assert (job.stage0_beta, band.beta, band.relevant, band.low.bound) == (0.1, 0.1, 0, None)
    assert "needs at least 19 relevant pairs among its human labels; it has 0" in job.stage0_note
    assert not Debate.objects.filter(job=job, settled_by="stage0", final_label=0).exists()


def test_too_few_human_labels_for_the_band_settle_nothing_and_say_how_many_more(
    stage0_dataset, fake_llms
):
    pool = _cross_pool(stage0_dataset)
    job = _launch(pool, stage0=True)  # alpha = delta = 0.1: 29 agreeing labels on a side
    debate_job_wait(job=job, poll_seconds=0.1)
    job.refresh_from_db()
    assert job.stage0_state == "done"
    assert "settles nothing" in job.stage0_note and "at least 29" in job.stage0_note
    assert not Debate.objects.filter(job=job, settled_by="stage0").exists()
    assert not Debate.objects.filter(job=job, calls=0).exists()
    assert job.status == DebateJob.Status.FINISHED


def test_a_dataset_too_small_to_train_a_judge_debates_every_pair_and_says_why(
    stage0_small_dataset, fake_llms
):
    pairs = [(f"q{i}", f"d{(i + 1) % 5}a") for i in range(5)]
    pool = pool_of(stage0_small_dataset, pairs, name="cross")
    job = _launch(pool, stage0=True)
    debate_job_wait(job=job, poll_seconds=0.1)
    job.refresh_from_db()
    assert job.stage0_note.startswith("stage 0 settled nothing: ")
    assert "stage 0 needs" in job.stage0_note
    assert Debate.objects.filter(job=job, calls__gt=0).count() == 5


def test_the_stage0_step_runs_once_however_often_it_is_asked(stage0_dataset, fake_llms):
    from debates.services.stage0_route import debate_job_stage0_prepare

    pool = _cross_pool(stage0_dataset)
    job = _launch(pool, stage0=True, stage0_alpha=0.3, stage0_delta=0.3)
    assert debate_job_stage0_prepare(job=job) is True
    first = list(Debate.objects.filter(job=job).order_by("pk").values_list("status", "stage0_p"))
    assert debate_job_stage0_prepare(job=job) is False
    again = list(Debate.objects.filter(job=job).order_by("pk").values_list("status", "stage0_p"))
    assert again == first


def test_stage0_is_refused_for_a_graded_or_batch_job(stage0_dataset, fake_llms):
    from debates.services.common import DebateJobError

    pool = _cross_pool(stage0_dataset)
    with pytest.raises(DebateJobError, match="graded job cannot use it"):
        _launch(pool, stage0=True, scale="graded", max_grade=1)
    with pytest.raises(DebateJobError, match="stage0_alpha must be between 0.001 and 0.999"):
        _launch(pool, stage0=True, stage0_alpha=1.0)
    with pytest.raises(DebateJobError, match="stage0_beta must be between 0.001 and 1.0"):
        _launch(pool, stage0=True, stage0_beta=0.0)


def test_a_judge_is_reused_until_the_datasets_labels_change(stage0_dataset, fake_llms):
    from debates.models import Stage0Judge
    from debates.stage0 import stage0_judge_stale, stage0_judge_train

    judge = stage0_judge_train(dataset=stage0_dataset)
    assert not stage0_judge_stale(judge=judge)
    pool = _cross_pool(stage0_dataset)
    job = _launch(pool, stage0=True, stage0_alpha=0.3, stage0_delta=0.3)
    debate_job_wait(job=job, poll_seconds=0.1)
    job.refresh_from_db()
    assert job.stage0_model_hash == judge.model_hash  # the same labels: no new judge
    assert Stage0Judge.objects.count() == 1
    # That job's debates settled labels (consensus) of the dataset's pairs: new labels.
    if Debate.objects.filter(job=job, status="agreed", settled_by="").exists():
        assert stage0_judge_stale(judge=judge)
    debate_only = _launch(pool, allow_duplicate=True)
    debate_job_wait(job=debate_only, poll_seconds=0.1)
    assert stage0_judge_stale(judge=judge)
    again = _launch(pool, stage0=True, stage0_alpha=0.3, stage0_delta=0.3, allow_duplicate=True)
    debate_job_wait(job=again, poll_seconds=0.1)
    again.refresh_from_db()
    assert not again.stage0_note.startswith("stage 0 failed"), again.stage0_note
    assert Stage0Judge.objects.filter(status="ready").count() == 2
    assert again.stage0_model_hash != judge.model_hash
    newest = Stage0Judge.objects.get(model_hash=again.stage0_model_hash)
    # The debates' consensus labels were learned from, never held out as gold.
    assert (
        newest.metrics["counts"]["train"].get("consensus_nonrelevant", 0)
        + newest.metrics["counts"]["train"].get("consensus_relevant", 0)
        > 0
    )
    assert {row["source"] for row in newest.heldout} <= {"qrels", "human", "cross", "unjudged"}


def test_run_debates_with_stage0_ends_by_saying_what_stage0_did_and_why(stage0_dataset, fake_llms):
    import io

    from django.core.management import call_command

    _cross_pool(stage0_dataset)
    out = io.StringIO()
    args = ["stage0/cross", "--backend", "test", "--rounds", "2", "--stage0", "--no-progress"]
    call_command("run_debates", *args, stdout=out)
    printed = out.getvalue()
    assert "stage 0: settled 0 of 80 pairs (0 not relevant, 0 relevant), 80 debated" in printed
    assert "stage 0 holes: none given up (it settled no pair)" in printed
    assert "stage 0 note: stage 0 settles nothing: setting its band at alpha 0.1" in printed
