from django.core.management.base import BaseCommand, CommandError

from core.broker import tasks_run_in_process
from debates.services.common import DebateJobError
from debates.services.failures import job_counts, job_failures
from debates.services.jobs import debate_job_cancel, debate_job_pause
from debates.services.launch import debate_job_resume_launch, debate_job_retry_launch
from debates.services.progress import debate_job_notes, debate_job_progress
from debates.services.webhooks import TIMEOUT_SECONDS, webhook_threads_join
from debates.services.worker_wait import debate_job_worker_warning

from ._jobs import format_summary, load_job, wait_job

ACTIONS = ("progress", "pause", "resume", "cancel", "retry-failed", "failures")


def format_failures(job) -> str:
    """The job's counts by outcome (total = settled + escalated + failed + pending +
    running) and each failed pair once: debate, pair id, query and doc id, failed attempts
    and the last error on one line (untrusted text: no control character reaches the
    terminal)."""
    counts = job_counts(job=job)
    lines = [
        f"job {job.pk}: {counts.total:,} pairs: {counts.settled:,} settled, "
        f"{counts.escalated:,} escalated, {counts.failed:,} failed, {counts.pending:,} "
        f"pending, {counts.running:,} running"
    ]
    for failure in job_failures(job=job).items:
        # Server text: control characters (a terminal's escapes) become spaces.
        printable = "".join(c if c.isprintable() else " " for c in failure.last_error)
        error = " ".join(printable.split())
        lines.append(
            f"debate {failure.debate_id} pair {failure.pair_id} ({failure.query_id}, "
            f"{failure.doc_id}): {failure.attempts} attempts; {error}"
        )
    if counts.failed:
        lines.append(f"retry these pairs only: debate_job {job.pk} retry-failed")
    return "\n".join(lines)


class Command(BaseCommand):
    help = (
        "Show a debate job's progress or its failed pairs (failures), or pause, resume, "
        "cancel it or retry its failed debates only (retry-failed: each resumes from its "
        "stored turns). Without a broker, resume also continues a running job whose process "
        "was interrupted."
    )

    def add_arguments(self, parser):
        parser.add_argument("job", type=int, help="Job id")
        parser.add_argument("action", choices=ACTIONS, nargs="?", default="progress")
        parser.add_argument("--wait", action="store_true", help="Follow the job until it ends")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar")

    def handle(self, *args, **opts):
        job = load_job(opts["job"])
        action = opts["action"]
        if action == "failures":
            self.stdout.write(format_failures(job))
            return
        try:
            if action == "pause":
                debate_job_pause(job=job)
            elif action == "cancel":
                debate_job_cancel(job=job)
            elif action in ("resume", "retry-failed"):
                run_now = tasks_run_in_process()
                if action == "retry-failed":
                    debate_job_retry_launch(job=job)
                else:
                    # Without a broker nothing runs a running job's debates once its process
                    # stopped (Ctrl-C): resuming it runs them here.
                    debate_job_resume_launch(job=job, interrupted=run_now)
                if run_now or opts["wait"]:
                    wait_job(job, progress_bar=not opts["no_progress"])
        except DebateJobError as exc:
            raise CommandError(str(exc)) from None
        if action == "progress" and opts["wait"]:
            wait_job(job, progress_bar=not opts["no_progress"], follow_only=True)
        job.refresh_from_db()
        progress = debate_job_progress(job=job)
        self.stdout.write(format_summary(job, progress))
        # The command the demo and the job page point to for a job's state: a job no worker
        # takes must say so here too, not only while a command follows it.
        warning = debate_job_worker_warning(job=job, progress=progress)
        if warning:
            self.stdout.write(warning)
        # Lines other apps add (assess: the review queue and the audit estimate).
        for line in debate_job_notes(job=job):
            self.stdout.write(line)
        if job.callback_url:
            # Without a broker a pause, cancel or finish is sent from a thread of this
            # process: give it one attempt's time before the process exits.
            webhook_threads_join(timeout=TIMEOUT_SECONDS + 5)
