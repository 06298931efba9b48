"""The pipeline's printout with the simulated backend marks every line that counts labels
SIMULATED (the debates, the refined set's new labels and the costs), its job line names the
audit allocation (a Neyman pilot at the share times ``NEYMAN_PILOT``), and it ends, as the
demo does, with the next step for humans when escalated or audit items wait in the review
queue: where to judge them, how their labels reach a refined set, what a Neyman audit waits
for and, without a broker, that ``review_sync`` draws its second phase."""

import io

import pytest
from django.core.management import call_command

from assess.models import ReviewItem
from assess.pipeline import pipeline_run
from assess.review.next_step import next_step_lines
from debates.audit_design import NEYMAN_PILOT
from debates.models import Debate, DebateJob
from tests.assess.test_pipeline_summary_prints_the_cost_per_final_label import STANCE_RULE
from tests.fixtures.jobs import pipeline_spec

pytestmark = pytest.mark.django_db

# The energy dataset's test qrels judge q1 and q2; a run ranking every document for both
# pools the four pairs they leave unjudged: q1-d2 (relevant in the truth), q1-d4, q2-d1, q2-d2.
EVERY_DOCUMENT = [f"q{q} Q0 d{d} {d} {10 - d} every" for q in (1, 2) for d in (1, 2, 3, 4)]
AGREE = ["--sensitivity", "1", "--specificity", "1", "--persistence", "0", "--seed", "1"]
# Debaters that always state their assigned (opposite) stances never agree.
NEVER_AGREE = ["--sensitivity", "1", "--specificity", "1", "--persistence", "1", "--seed", "1"]


def pipeline(energy, import_run, tmp_path, *flags, truth=None):
    import_run(energy, "every", EVERY_DOCUMENT)
    backend = ["--backend", "simulated", "--truth", str(truth)] if truth else []
    out = io.StringIO()
    call_command(
        "pipeline", "energy", "--retrievers", "every", "--depth", "4", *backend, *flags,
        "--out", str(tmp_path / "out"), stdout=out,
    )  # fmt: skip
    return out.getvalue().splitlines()


def line(lines, start):
    return next(text for text in lines if text.startswith(start))


def test_simulated_labels_are_marked_on_every_line_that_counts_them(
    energy, import_run, truth_dir, tmp_path
):
    truth = truth_dir / "energy.qrels"
    lines = pipeline(energy, import_run, tmp_path, *AGREE, "--audit-share", "1", truth=truth)
    job = DebateJob.objects.get()
    assert Debate.objects.filter(job=job, status="agreed").count() == 4
    assert line(lines, "debate job ") == (
        f"debate job {job.pk}: 4 pairs, R = 2, audit share 100% of agreed labels, proportional "
        "allocation (every stratum at the share)"
    )
    debates = line(lines, "debates: ")
    assert debates.startswith(
        "debates: 4 pairs: 4 agreed (SIMULATED), 0 escalated to humans, 0 failed, 0 not "
        "finished; 2.0 simulated LLM calls (none made) and "
    )
    # What SIMULATED means, said once for the job, right under its counts.
    assert lines[lines.index(debates) + 1] == (
        "  SIMULATED labels in this job so far (its agreed debates and stage-0 labels, and the "
        "simulated annotator's judgments of its review items): 4 debate labels from simulated "
        "debaters (backend simulated); for planning a study, never a benchmark."
    )
    assert "  agreed by round (SIMULATED): round 1: 4" in lines
    assert line(lines, "refined qrels: ").startswith(
        "refined qrels: 8 rows = 4 original + 4 new labels (SIMULATED); 0 pairs pending"
    )
    assert "  new rows by grade (SIMULATED): grade 0: 3, grade 1: 1" in lines
    assert line(lines, "  consensus: ").startswith("  consensus: 4 labels (SIMULATED), 8 LLM calls")
    assert line(lines, "  all: ").startswith("  all: 4 labels (SIMULATED), 8 LLM calls")
    assert (
        "  The simulated backend's calls and tokens are counted as a model's would be, to plan "
        "a study's cost; it calls no model and spends nothing."
    ) in lines
    # The last words: the four audits wait, and how to judge them and take their labels.
    assert ReviewItem.objects.filter(debate__job=job, kind="audit").count() == 4
    end = lines[-4:]
    assert end[0] == ""
    assert end[1] == (
        "For humans: 0 escalated pairs and 4 audits of agreed labels (audit share 100%) wait "
        "in the review queue, with known-answer pairs from the original qrels mixed in "
        "unmarked (gold share 5%)."
    )
    assert end[2].startswith("Next: annotators judge them on the Judge page of the web UI")
    assert (
        f"job {job.pk}'s page (/jobs/{job.pk}/, or ./dream manage debate_job {job.pk} progress)"
        in end[2]
    )
    assert "./dream manage refine energy/test-d4 --name NEW_NAME" in end[2]
    assert end[3] == (
        f"The debaters are simulated: ./dream manage simulate_annotators {job.pk} --truth "
        f"{truth} judges the items as the simulated annotator instead (its labels are "
        "SIMULATED too)."
    )


def test_a_neyman_job_names_its_pilot_and_says_review_sync_draws_the_rest_without_a_broker(
    energy, import_run, truth_dir, tmp_path
):
    truth = truth_dir / "energy.qrels"
    lines = pipeline(
        energy, import_run, tmp_path, *NEVER_AGREE, "--audit-share", "0.5",
        "--audit-allocation", "neyman", truth=truth,
    )  # fmt: skip
    job = DebateJob.objects.get()
    pilot = f"{0.5 * NEYMAN_PILOT * 100:.3g}%"
    assert line(lines, "debate job ") == (
        f"debate job {job.pk}: 4 pairs, R = 2, audit share 50% of agreed labels, Neyman "
        f"allocation (a pilot at {pilot} of agreed labels first; the rest of the share once "
        "the pilot is judged, where it found the debate wrong most often)"
    )
    # No label agreed, so none is marked; the four escalations wait for people.
    assert line(lines, "debates: ").startswith("debates: 4 pairs: 0 agreed, 4 escalated")
    assert ReviewItem.objects.filter(debate__job=job, kind="escalated").count() == 4
    start = lines.index(
        "For humans: 4 escalated pairs and 0 audits of agreed labels (audit share 50%, Neyman "
        "allocation) wait in the review queue, with known-answer pairs from the original "
        "qrels mixed in unmarked (gold share 5%)."
    )
    assert lines[start + 2 : start + 4] == [
        "The Neyman audit's pilot has drawn no pair yet: it draws from the agreed labels as "
        "the debates end.",
        "Once the pilot is judged, a review sync draws the second phase: run ./dream manage "
        "review_sync then (or change the audit share); with no Celery broker nothing runs it "
        "periodically.",
    ]


def test_real_debaters_labels_get_no_mark_and_no_simulated_annotator_is_offered(
    energy, import_run, fake_llms, tmp_path
):
    import_run(energy, "every", EVERY_DOCUMENT)
    lines: list[str] = []
    spec = pipeline_spec(
        retrievers=["every"], depth=4, agent=STANCE_RULE, audit_share=0.0, out_dir=tmp_path
    )
    pipeline_run(dataset=energy, echo=lines.append, spec=spec)
    job = DebateJob.objects.get()
    assert line(lines, "debates: ").startswith("debates: 4 pairs: 3 agreed, 1 escalated")
    assert line(lines, "  consensus: ").startswith("  consensus: 3 labels, ")
    assert not [text for text in lines if "SIMULATED" in text]
    # The escalated pair waits for people: where to judge it, and nothing about simulation.
    said = lines[-2:]
    assert said[0] == (
        "For humans: 1 escalated pair and 0 audits of agreed labels (audit share 0%) wait in "
        "the review queue, with known-answer pairs from the original qrels mixed in unmarked "
        "(gold share 5%)."
    )
    assert said[1].startswith("Next: annotators judge them") and lines[-3] == ""
    assert next_step_lines(job=job, pool="energy/test-d4") == said


def test_nothing_waiting_for_people_ends_the_printout_without_a_next_step(
    energy, import_run, truth_dir, tmp_path
):
    truth = truth_dir / "energy.qrels"
    lines = pipeline(energy, import_run, tmp_path, *AGREE, "--audit-share", "0", truth=truth)
    assert not ReviewItem.objects.exists()
    assert lines[-1].startswith("human sample: 0 audited of 4 agreed labels")
    assert not [text for text in lines if text.startswith(("For humans", "Next: "))]
