"""What the review queue asks of people next, as the pipeline's and the demo's last words
say it: what waits (escalated pairs, audits), where it is judged, how the labels reach a
refined set, what a Neyman audit waits for and what draws its second phase."""

from __future__ import annotations

from core.broker import tasks_run_in_process
from debates.models import DebateJob

from .audit import audit_pilot_done, audit_pilot_waiting
from .selectors import QueueCounts, job_queue_counts
from .simulated_marks import job_simulated


def queue_sentence(*, job: DebateJob, queue: QueueCounts) -> str:
    """What waits for people in ``job``'s review queue (``queue``, its
    :func:`~assess.review.selectors.job_queue_counts`), the first words of the demo's and
    the pipeline's next step: "For humans: 3 escalated pairs and 2 audits of agreed labels
    (audit share 6%, Neyman allocation) wait in the review queue, with known-answer pairs
    from the original qrels mixed in unmarked (gold share 5%)." """
    escalated = queue.escalated - queue.escalated_done
    audits = queue.audits - queue.audits_done
    allocation = ", Neyman allocation" if job.audit_allocation == "neyman" else ""
    gold = (
        f", with known-answer pairs from the original qrels mixed in unmarked (gold share "
        f"{job.gold_share:.0%})"
        if job.gold_share
        else ""
    )
    return (
        f"For humans: {escalated:,} escalated pair{'s' if escalated != 1 else ''} and "
        f"{audits:,} audit{'s' if audits != 1 else ''} of agreed labels (audit share "
        f"{job.audit_share:.0%}{allocation}) wait in the review queue{gold}."
    )


def next_step_lines(*, job: DebateJob, pool: str) -> list[str]:
    """The pipeline's last words when escalated or audit items of ``job`` wait for people:
    :func:`queue_sentence`, where they judge them and how their labels reach a refined set;
    for a Neyman audit what its pilot waits for and what draws its second phase (in-process
    mode has no periodic task); with simulated debaters, the simulated annotator. [] when
    nothing waits. ``pool``: "DATASET/POOL", as ``refine`` takes it. Reads only: the
    caller syncs the queue first (:func:`assess.review.services.review_items_sync`)."""
    queue = job_queue_counts(job=job)
    if queue.escalated == queue.escalated_done and queue.audits == queue.audits_done:
        return []
    lines = [
        queue_sentence(job=job, queue=queue),
        f"Next: annotators judge them on the Judge page of the web UI (/judge/; ./dream manage "
        f"runserver, accounts with ./dream manage createuser NAME --role annotator); job "
        f"{job.pk}'s page (/jobs/{job.pk}/, or ./dream manage debate_job {job.pk} progress) "
        f"follows them. Then refine again to take their labels: ./dream manage refine {pool} "
        f"--name NEW_NAME (or Refine on the refined qrels page).",
    ]
    if waits := audit_pilot_waiting(job=job):
        lines.append(f"{waits}.")
    if job.audit_allocation == "neyman" and not audit_pilot_done(job=job):
        lines.append(
            "Once the pilot is judged, a review sync draws the second phase: "
            + (
                "run ./dream manage review_sync then (or change the audit share); with no "
                "Celery broker nothing runs it periodically."
                if tasks_run_in_process()
                else "Celery beat's periodic task within a minute, or ./dream manage "
                "review_sync at once."
            )
        )
    if job_simulated(job):
        lines.append(
            f"The debaters are simulated: ./dream manage simulate_annotators {job.pk} --truth "
            f"{job.agent_a.get('truth') or 'FILE'} judges the items as the simulated annotator "
            "instead (its labels are SIMULATED too)."
        )
    return lines
