"""A job whose stage 0 trains its dataset's judge first says why, in plain words, in the
step's progress ("no judge yet") and in its final note (read beside the new judge, so in the
past: "the dataset had none"), or the judge went stale (its training
data, its held-out people's labels or its band's labels changed; an older feature layout).
A fresh judge is reused and the note says nothing of training."""

import pytest

from debates.models import DebateJob, Stage0Judge
from debates.services.launch import JobSpec, debate_job_launch
from debates.services.stage0_route import debate_job_stage0_prepare
from tests.fixtures.jobs import pool_of

pytestmark = pytest.mark.django_db(transaction=True)

TRAINED = "; a new judge was trained first: "


def _job(dataset, name: str) -> DebateJob:
    from debates.services.backends import agent_config_validate

    pairs = [(f"q{i}", f"d{(i + 1) % 40}a") for i in range(40)]
    pool = pool_of(dataset, pairs, name=name)
    agent = agent_config_validate({"backend": "test"}, agent="A")
    options = JobSpec(pool=pool, agent_a=None, agent_b=None, rounds=1, stage0=True)
    spec = JobSpec.of(pool=pool, options=options, agent_a=agent, agent_b=agent)
    return debate_job_launch(spec=spec, start=True)


def _prepared(job: DebateJob) -> list[str]:
    lines: list[str] = []
    assert debate_job_stage0_prepare(job=job, progress=lines.append) is True
    job.refresh_from_db()
    return lines


def test_the_first_job_says_the_dataset_had_no_judge_yet(stage0_dataset, fake_llms):
    job = _job(stage0_dataset, "first")
    lines = _prepared(job)
    assert lines[0] == "training a stage-0 judge for stage0 (no judge yet): collecting labels (0/6)"
    assert lines[-2] == "training a stage-0 judge for stage0 (no judge yet): storing (5/6)"
    # Without human labels of pooled pairs the note is long (over 500 characters) and kept
    # whole: its last sentence tells a newcomer where the band's labels come from, then the
    # reason the judge was trained. 29 = the smallest n with 0.9^n <= 0.05 (delta / 2), for
    # alpha 0.1 on either side and for beta 0.1 on the relevant pairs.
    assert job.stage0_note == (
        "stage 0 settles nothing: setting its band at alpha 0.1, delta 0.1 needs at least 29 "
        "human-labelled pairs on a side, all agreeing with it; it has 0 (29 more at the "
        "least); and to settle non-relevant pairs it must show that a relevant pair (hole) is "
        "settled non-relevant with a chance of at most 0.1, which needs at least 29 relevant "
        "pairs among its human labels; it has 0; no human label of a pooled pair yet: people "
        "judge a job's escalated and audited pairs at /judge/, and a later job's stage 0 sets "
        f"its band on those labels{TRAINED}the dataset had none"
    )
    assert len(job.stage0_note) > 500
    assert job.stage0_model_hash == Stage0Judge.objects.get().model_hash


def test_a_later_job_reuses_a_fresh_judge_and_says_nothing_of_training(stage0_dataset, fake_llms):
    from debates.stage0 import stage0_judge_train

    judge = stage0_judge_train(dataset=stage0_dataset)
    job = _job(stage0_dataset, "later")
    lines = _prepared(job)
    assert not any(line.startswith("training") for line in lines), lines
    assert "trained" not in job.stage0_note, job.stage0_note
    assert job.stage0_model_hash == judge.model_hash


def test_a_job_after_the_training_data_changed_says_so(stage0_dataset, fake_llms):
    from debates.stage0 import stage0_judge_train

    judge = stage0_judge_train(dataset=stage0_dataset)
    # As if the judge had been fitted on other labels than the dataset has now.
    Stage0Judge.objects.filter(pk=judge.pk).update(data_hash="0" * 64)
    job = _job(stage0_dataset, "changed")
    lines = _prepared(job)
    why = "the judge's training data changed (labels added or changed since it was trained)"
    assert lines[0] == f"training a stage-0 judge for stage0 ({why}): collecting labels (0/6)"
    assert job.stage0_note.endswith(f"{TRAINED}{why}"), job.stage0_note
    assert Stage0Judge.objects.count() == 2


def test_each_way_a_judge_goes_stale_has_its_words(stage0_dataset, stage0_pooled_labels):
    from debates.stage0 import (
        fit,
        stage0_judge_missing_reason,
        stage0_judge_stale,
        stage0_judge_stale_reason,
        stage0_judge_train,
    )

    assert stage0_judge_missing_reason(dataset=stage0_dataset) == "no judge yet"
    judge = stage0_judge_train(dataset=stage0_dataset)
    saved = {f: getattr(judge, f) for f in ("data_hash", "heldout", "band_calibration")}
    assert (stage0_judge_stale_reason(judge=judge), stage0_judge_stale(judge=judge)) == ("", False)
    # The held-out rows of the qrels (people's labels), all dropped; the band's 40 rows too.
    assert any(row["source"] == "qrels" for row in judge.heldout)
    assert len(judge.band_calibration) == len(stage0_pooled_labels) == 40
    changes = (
        ({"data_hash": "0" * 64}, "the judge's training data changed (labels added or "
         "changed since it was trained)"),
        ({"heldout": []}, "the human labels of the judge's held-out queries changed"),
        ({"band_calibration": []}, "the human labels the judge's band is set on changed"),
        ({"metrics": {**judge.metrics, "features": "q,d/v1"}},
         "the judge's feature layout is older than this version's"),
    )  # fmt: skip
    for change, why in changes:
        Stage0Judge.objects.filter(pk=judge.pk).update(**{**saved, **change})
        judge.refresh_from_db()
        assert (stage0_judge_stale_reason(judge=judge), stage0_judge_stale(judge=judge)) == (
            why,
            True,
        )
    # Only a judge of the old layout is ready: it is not current, and the reason says why.
    assert judge.metrics["features"] != fit.FEATURES
    assert stage0_judge_missing_reason(dataset=stage0_dataset) == (
        "the judge's feature layout is older than this version's"
    )
