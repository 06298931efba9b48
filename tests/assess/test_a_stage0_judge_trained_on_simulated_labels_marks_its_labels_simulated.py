"""Stage 0 learns from simulated labels as from any other (the cascade study trains it on
nothing else), but a judge that did counts them (``Stage0Judge.simulated_labels``), its job
records them (``DebateJob.stage0_simulated_labels``) and says so in its stage-0 note, and
every stage-0 label of that job counts as simulated: in the refined set's counts, its
download header and the job's own simulated labels. A judge trained on real labels only
marks nothing.

The 40-topic ``stage0`` dataset (tests/fixtures/stage0.py). A first job agrees 0 on 40
unjudged pairs, (q<i>, d<i+1>a): consensus labels, simulated when its debaters are. The
judge fits and calibrates on the queries outside its held-out test part (split by
``sha256("stage0:0:<query id>")``: 26 training and 5 calibration queries; the 9 held out are
q0, q9, q15, q16, q21, q30, q32, q33, q38), so 31 of the 40 consensus labels. A second job
with stage 0 on 40 other pairs (q<i>, d<i+2>b), its band set on 70 real human labels and
every pair scored 0.05, settles all 40 "not relevant"; refined, the set holds 40 stage-0
labels."""

import pytest

from assess.refined.refine import qrels_refine
from assess.review.simulated_marks import job_simulated_labels
from corpora.simulated import qrel_set_simulated_counts, simulated_header
from debates.models import Debate, DebateJob, Stage0Judge
from debates.services import JobSpec, debate_job_launch
from debates.services.stage0_route import debate_job_stage0_prepare
from tests.fixtures.jobs import pool_of
from tests.fixtures.refine import AGENT, HOLES_SIMULATED_AGENT, settle

pytestmark = pytest.mark.django_db


def _band_rows() -> list[dict]:
    """70 real human labels of pooled pairs (all kept: inclusion and floor 1): 30 at p 0.95
    relevant, 30 at 0.05 not, 10 at 0.5 half and half; at alpha = delta = 0.1 the band
    settles p <= 0.495 and p >= 0.505 (tests/debates/test_stage0_settles_the_pairs_...)."""
    rows = [(f"r{i}", 0.95, 1) for i in range(30)] + [(f"n{i}", 0.05, 0) for i in range(30)]
    rows += [(f"m{i}", 0.5, i % 2) for i in range(10)]
    return [
        {"query_id": "q", "doc_id": d, "p": p, "label": y, "inclusion": 1.0, "floor": 1.0}
        for d, p, y in rows
    ]


def _staged(dataset, monkeypatch, *, simulated: bool):
    """The second job's stage 0 run after a judge trained on the first job's consensus
    (simulated debaters or not); returns (judge, second job)."""
    import debates.stage0 as stage0

    first = pool_of(dataset, [(f"q{i}", f"d{(i + 1) % 40}a") for i in range(40)], name="first")
    job = debate_job_launch(spec=JobSpec(pool=first, agent_a=AGENT, agent_b=AGENT), start=False)
    for debate in Debate.objects.filter(job=job):
        settle(debate, "agreed", label=0, round=1)
    if simulated:
        agent = HOLES_SIMULATED_AGENT
        DebateJob.objects.filter(pk=job.pk).update(agent_a=agent, agent_b=agent)
    judge = stage0.stage0_judge_train(dataset=dataset)
    Stage0Judge.objects.filter(pk=judge.pk).update(band_calibration=_band_rows())
    judge.refresh_from_db()
    monkeypatch.setattr(stage0, "stage0_judge_stale_reason", lambda *, judge: "")
    monkeypatch.setattr(
        stage0, "stage0_pairs_score", lambda *, judge, pairs, lexicon=None: [0.05] * len(pairs)
    )
    second = pool_of(dataset, [(f"q{i}", f"d{(i + 2) % 40}b") for i in range(40)], name="second")
    spec = JobSpec(pool=second, agent_a=AGENT, agent_b=AGENT, stage0=True, audit_share=0.0)
    staged = debate_job_launch(spec=spec, start=False)
    DebateJob.objects.filter(pk=staged.pk).update(status=DebateJob.Status.RUNNING)
    staged.refresh_from_db()
    assert debate_job_stage0_prepare(job=staged) is True
    staged.refresh_from_db()
    assert Debate.objects.filter(job=staged, settled_by="stage0").count() == 40
    return judge, staged


def test_a_judge_trained_on_simulated_consensus_marks_its_stage0_labels(
    stage0_dataset, monkeypatch, api_as
):
    judge, job = _staged(stage0_dataset, monkeypatch, simulated=True)
    assert (judge.simulated_labels, judge.band_simulated) == (31, 0)
    assert job.stage0_simulated_labels == 31
    assert job.stage0_note.startswith(
        "SIMULATED: the judge was trained on 31 simulated labels and its band set on 0 "
        "simulated human labels, so its labels count as simulated. "
    )
    assert job_simulated_labels(job=job) == {"debate": 0, "human": 0, "stage0": 40}
    refined = qrels_refine(pool=job.pool, name="staged").qrel_set
    counts = qrel_set_simulated_counts(qrel_set=refined)
    assert counts == {"debate": 0, "human": 0, "stage0": 40}
    assert simulated_header(counts) == "debate=0; human=0; stage0=40"
    response = api_as("researcher").get("/api/v1/datasets/stage0/qrels/staged/download")
    assert response["X-DREAM-Simulated-Labels"] == "debate=0; human=0; stage0=40"


def test_a_judge_trained_on_real_labels_only_marks_nothing(stage0_dataset, monkeypatch):
    judge, job = _staged(stage0_dataset, monkeypatch, simulated=False)
    assert (judge.simulated_labels, judge.band_simulated) == (0, 0)
    assert job.stage0_simulated_labels == 0
    assert "SIMULATED" not in job.stage0_note
    assert job_simulated_labels(job=job) == {"debate": 0, "human": 0, "stage0": 0}
    refined = qrels_refine(pool=job.pool, name="staged").qrel_set
    assert qrel_set_simulated_counts(qrel_set=refined) == {"debate": 0, "human": 0, "stage0": 0}


def test_a_judge_whose_labels_turn_out_simulated_is_stale_and_retrains_with_its_count(
    stage0_dataset,
):
    """The same labels, now known to be simulated (the first job's debaters), hash apart:
    a judge trained before they were counted (as every judge before the counts existed) is
    stale, so it is retrained, and the new one counts them."""
    import debates.stage0 as stage0

    first = pool_of(stage0_dataset, [(f"q{i}", f"d{(i + 1) % 40}a") for i in range(40)])
    job = debate_job_launch(spec=JobSpec(pool=first, agent_a=AGENT, agent_b=AGENT), start=False)
    for debate in Debate.objects.filter(job=job):
        settle(debate, "agreed", label=0, round=1)
    judge = stage0.stage0_judge_train(dataset=stage0_dataset)
    assert stage0.stage0_judge_stale(judge=judge) is False

    agent = HOLES_SIMULATED_AGENT
    DebateJob.objects.filter(pk=job.pk).update(agent_a=agent, agent_b=agent)

    assert stage0.stage0_judge_stale(judge=judge) is True
    assert stage0.stage0_judge_train(dataset=stage0_dataset).simulated_labels == 31
