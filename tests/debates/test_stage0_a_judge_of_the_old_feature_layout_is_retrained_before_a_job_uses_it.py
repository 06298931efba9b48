"""A stage-0 judge stored with an older feature layout (MiniLM features alone, before the
term-matching scalars) cannot score: it is never the dataset's current judge and always
stale, so a job with stage 0 trains a new judge first and routes with it instead of
failing."""

import pickle

import pytest

from debates.models import Debate, DebateJob, Stage0Judge
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from debates.stage0 import fit
from debates.stage0_band import band_load
from tests.fixtures.jobs import pool_of

pytestmark = pytest.mark.django_db(transaction=True)

OLD = "q,d,q*d,|q-d|,cos/v1"


def _make_old(judge: Stage0Judge) -> None:
    """Store ``judge`` as the previous layout wrote it: its pickle without a standardiser,
    its metrics naming the old features; its labels (data hash) unchanged."""
    fitted = fit.fitted_load(bytes(judge.fitted))
    blob = pickle.dumps(
        {"features": OLD, "classifier": fitted.classifier, "calibrator": fitted.calibrator},
        protocol=5,
    )
    metrics = {**judge.metrics, "features": OLD}
    metrics.pop("scalars")
    Stage0Judge.objects.filter(pk=judge.pk).update(fitted=blob, metrics=metrics)
    judge.refresh_from_db()


def test_an_old_layout_judge_is_neither_current_nor_fresh(stage0_dataset):
    from debates.stage0 import stage0_judge_current, stage0_judge_stale, stage0_judge_train

    judge = stage0_judge_train(dataset=stage0_dataset)
    assert stage0_judge_current(dataset=stage0_dataset) == judge
    assert not stage0_judge_stale(judge=judge)
    _make_old(judge)
    assert stage0_judge_current(dataset=stage0_dataset) is None
    assert stage0_judge_stale(judge=judge)


def test_a_job_with_stage0_trains_a_new_judge_over_an_old_layout_one(
    stage0_dataset, stage0_pooled_labels, fake_llms, monkeypatch
):
    from debates.services.backends import agent_config_validate
    from debates.stage0 import stage0_judge_train

    old = stage0_judge_train(dataset=stage0_dataset)
    _make_old(old)
    from debates.stage0 import services

    built = []  # the corpus statistics, counted: the step builds them once for both uses
    real = services.dataset_lexicon
    monkeypatch.setattr(services, "dataset_lexicon", lambda **kw: built.append(1) or real(**kw))
    pairs = []
    for i in range(40):
        pairs += [(f"q{i}", f"d{(i + 1) % 40}a"), (f"q{i}", f"d{(i + 2) % 40}b")]
    pool = pool_of(stage0_dataset, pairs, name="cross")
    agent = agent_config_validate({"backend": "test"}, agent="A")
    options = JobSpec(
        pool=pool, agent_a=None, agent_b=None, rounds=2, audit_share=0.0, stage0=True,
        # beta 1: the band's labels hold no relevant pair, and this test follows the new
        # judge into routing, not the holes bound.
        stage0_alpha=0.3, stage0_delta=0.3, stage0_beta=1.0,
    )  # fmt: skip
    spec = JobSpec.of(pool=pool, options=options, agent_a=agent, agent_b=agent)
    job = debate_job_launch(spec=spec, start=True)
    debate_job_wait(job=job, poll_seconds=0.1)
    job.refresh_from_db()
    assert (job.stage0_state, job.status) == ("done", DebateJob.Status.FINISHED)
    assert "failed" not in job.stage0_note, job.stage0_note
    # The note says why the job trained a judge first.
    assert job.stage0_note.endswith(
        "; a new judge was trained first: the judge's feature layout is older than this version's"
    ), job.stage0_note
    new = Stage0Judge.objects.exclude(pk=old.pk).get(dataset=stage0_dataset)
    assert new.metrics["features"] == fit.FEATURES
    assert job.stage0_model_hash == new.model_hash
    # The new judge scored every pair (the band settles here), with the new layout.
    assert band_load(job.stage0_band).settles, job.stage0_note
    assert not Debate.objects.filter(job=job, stage0_p__isnull=True).exists()
    assert len(built) == 1  # trained and scored on the same corpus statistics
