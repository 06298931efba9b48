"""simulate_annotators judges a job's open escalated and audit items as the user
``simulated-annotator``: at error 0 with the truth's label, recording nothing on a second run;
at error 1 with the flipped label. Its labels' export rows name the annotator, and the
benchmark datasheet warns that they are simulated."""

import uuid

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.models import Judgment, ReviewItem
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from assess.refined.export_rows import labels_records
from assess.refined.refine import qrels_refine, refinement_get
from assess.review.services import judgment_record
from debates.management.commands._jobs import wait_job
from debates.models import DebateJob
from debates.services.backends import agent_config_build
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import pool_of
from tests.fixtures.simulated import ENERGY_TRUTH_RELEVANT, simulated_agent


def _job(energy, truth_dir) -> DebateJob:
    """A simulated job over every energy pair its qrels do not judge, whose debaters are
    right but keep their stance half the time: some pairs agree (every one audited), the
    others escalate."""
    pairs = [(q, d) for q in ("q1", "q2", "q3") for d in ("d1", "d2", "d3", "d4")]
    judged = {("q1", "d1"), ("q1", "d3"), ("q2", "d3"), ("q2", "d4")}  # by energy's qrels
    pool = pool_of(energy, [pair for pair in pairs if pair not in judged])
    agent = agent_config_build(
        fields=simulated_agent(
            truth_dir / "energy.qrels", sensitivity=1.0, specificity=1.0, persistence=0.5, seed=4
        )
    )
    spec = JobSpec(pool=pool, agent_a=agent, agent_b=agent, rounds=1, audit_share=1.0)
    job = debate_job_launch(spec=spec)
    wait_job(job, progress_bar=False)
    return job


def _judged(job) -> dict[tuple[str, str], tuple[str, int, str]]:
    rows = Judgment.objects.filter(item__debate__job=job).select_related(
        "item__debate__pair__query", "item__debate__pair__document", "annotator"
    )
    return {
        (j.item.debate.pair.query.query_id, j.item.debate.pair.document.doc_id): (
            j.annotator.username,
            j.label,
            j.note,
        )
        for j in rows
    }


def _simulate(job, truth_dir, error: str) -> None:
    call_command(
        "simulate_annotators", str(job.pk), "--truth", str(truth_dir / "energy.qrels"),
        "--error", error, "--seed", "1",
    )  # fmt: skip


@pytest.mark.django_db
def test_at_error_zero_every_open_item_gets_the_truths_label_once(energy, truth_dir, tmp_path):
    job = _job(energy, truth_dir)
    items = ReviewItem.objects.filter(debate__job=job)
    kinds = set(items.values_list("kind", flat=True))
    assert kinds == {"escalated", "audit"}
    _simulate(job, truth_dir, "0")
    judged = _judged(job)
    assert len(judged) == items.count()
    note = "SIMULATED judgment (not a real one)"
    assert judged == {
        pair: ("simulated-annotator", int(pair in ENERGY_TRUTH_RELEVANT), note) for pair in judged
    }
    assert not items.filter(judgments_done=0).exists()
    # A second run finds nothing open and records nothing.
    _simulate(job, truth_dir, "0")
    assert _judged(job) == judged
    assert Judgment.objects.count() == len(judged)

    refined = qrels_refine(pool=job.pool, name="with-simulated-humans").qrel_set
    rows = [r for r in labels_records(qrel_set=refined) if r["source"] == "human"]
    assert rows
    assert all(r["annotators"] == ["simulated-annotator"] for r in rows)
    assert all(r["human_judgments"][0]["annotator"] == "simulated-annotator" for r in rows)
    text = datasheet_render(sheet=benchmark_datasheet(refinement=refinement_get(qrel_set=refined)))
    assert f"{len(judged)} human judgments of this set's jobs came from the simulated" in text


@pytest.mark.django_db
def test_at_error_one_every_label_is_flipped(energy, truth_dir, tmp_path):
    job = _job(energy, truth_dir)
    _simulate(job, truth_dir, "1")
    judged = _judged(job)
    assert judged
    assert {pair: label for pair, (_, label, _) in judged.items()} == {
        pair: 1 - int(pair in ENERGY_TRUTH_RELEVANT) for pair in judged
    }


@pytest.mark.django_db
def test_a_truth_file_outside_the_allowed_folders_is_refused(energy, truth_dir, tmp_path):
    job = _job(energy, truth_dir)
    outside = tmp_path / "elsewhere.qrels"
    outside.write_text("q1 0 d1 1\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"truth .*elsewhere\.qrels .*DREAM_SIMULATION_DIRS"):
        call_command("simulate_annotators", str(job.pk), "--truth", str(outside))
    assert not Judgment.objects.exists()


@pytest.mark.django_db
def test_a_pair_judged_in_another_job_is_left_to_others_and_said_so(energy, truth_dir, capsys):
    job = _job(energy, truth_dir)
    _simulate(job, truth_dir, "0")
    judged = len(_judged(job))
    spec = JobSpec(
        pool=job.pool, agent_a=job.agents[0], agent_b=job.agents[1], rounds=1, audit_share=1.0,
        allow_duplicate=True, reuse=False,
    )  # fmt: skip
    again = debate_job_launch(spec=spec)
    wait_job(again, progress_bar=False)
    items = ReviewItem.objects.filter(debate__job=again)
    assert items.count() == judged
    # The audits take the answers people already gave their pairs in the first job; the
    # escalations (asked again: no reuse) wait for a person.
    taken = items.filter(answered_by__isnull=False)
    assert set(taken.values_list("kind", flat=True)) == {ReviewItem.Kind.AUDIT}
    left = items.count() - taken.count()
    assert left == items.filter(kind=ReviewItem.Kind.ESCALATED).count() > 0
    capsys.readouterr()
    _simulate(again, truth_dir, "0")
    # Every item's pair was the simulated annotator's in the first job: none judged twice,
    # and the printout says why, not "held by a person".
    assert _judged(again) == {}
    assert (
        capsys.readouterr()
        .out.strip()
        .endswith(
            f"{items.count()} items skipped: {taken.count()} already judged by "
            "simulated-annotator on another job's item (it takes that label), "
            f"{left} left to others (the simulated annotator judged their query and document in "
            "another job, and judges a pair once)"
        )
    )


@pytest.mark.django_db
def test_an_audit_a_person_answered_in_another_job_is_counted_skipped_and_said_so(
    energy, truth_dir, annotators, capsys
):
    """The audit item of a pair a person judged in an earlier job takes that person's label
    and asks nobody: the run judged every other item and said "0 items skipped", so the
    item it left looked lost."""
    job = _job(energy, truth_dir)
    (alice,) = annotators(1)
    first_audit = ReviewItem.objects.filter(debate__job=job, kind="audit").order_by("pk")[0]
    judgment_record(item=first_audit, annotator=alice, label=1, client_id=uuid.uuid4())
    spec = JobSpec(
        pool=job.pool, agent_a=job.agents[0], agent_b=job.agents[1], rounds=1, audit_share=1.0,
        allow_duplicate=True, reuse=False,
    )  # fmt: skip
    again = debate_job_launch(spec=spec)
    wait_job(again, progress_bar=False)
    items = ReviewItem.objects.filter(debate__job=again)
    taken = items.get(answered_by__isnull=False)
    assert (taken.kind, taken.answered_by_id) == ("audit", first_audit.pk)
    capsys.readouterr()

    _simulate(again, truth_dir, "0")

    assert len(_judged(again)) == items.count() - 1
    assert capsys.readouterr().out.strip() == (
        f"job {again.pk}: {items.count() - 1} SIMULATED judgments by simulated-annotator (0 "
        "flipped from the truth); 0 from earlier runs; 1 item skipped: 1 already judged by a "
        "person on another job's item (it takes that label)"
    )


@pytest.mark.django_db
def test_simulated_judgments_are_untimed_and_never_count_as_click_throughs(
    energy, truth_dir, settings
):
    """A program answers in no time: were its judgments timed as a person's, every one would
    be a "possible click-through" on the annotators page (a chunk of any length counts as
    long here) and drag the median active time to zero."""
    from assess.review.quality import annotator_quality

    settings.DREAM_CLICK_THROUGH_WORDS = 0
    job = _job(energy, truth_dir)
    _simulate(job, truth_dir, "0")
    judgments = Judgment.objects.filter(item__debate__job=job)
    assert judgments.count() > 0
    assert not judgments.filter(click_through=True).exists()
    assert not judgments.filter(active_seconds__isnull=False).exists()
    (quality,) = annotator_quality().values()
    assert quality.username == "simulated-annotator"
    assert quality.click_throughs == 0
    assert quality.median_active_seconds is None
