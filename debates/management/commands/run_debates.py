from django.core.management.base import BaseCommand, CommandError

from core.broker import tasks_run_in_process
from debates.services.common import DebateJobError
from debates.services.launch import JobSpec, debate_job_launch, job_option_default
from debates.services.progress import debate_job_notes, debate_job_progress
from debates.services.webhooks import TIMEOUT_SECONDS, webhook_threads_join

from ._jobs import (
    add_allow_duplicate_argument,
    add_audit_allocation_argument,
    add_audit_share_argument,
    add_backend_arguments,
    add_budget_arguments,
    add_check_judged_argument,
    add_concurrency_argument,
    add_gold_share_argument,
    add_prompt_version_argument,
    add_reuse_argument,
    add_rounds_argument,
    add_scale_arguments,
    add_stage0_arguments,
    backend_flags_configs,
    format_summary,
    job_options_given,
    launch_refusal,
    load_pool,
    other_backend_flags_refuse,
    wait_job,
)


class Command(BaseCommand):
    help = (
        "Debate every pair of a pool (DREAM): create a job, run it (in-process without a "
        "broker, else on the Celery workers), show the progress and a summary."
    )

    def add_arguments(self, parser):
        parser.add_argument("pool", help="Pool as DATASET/NAME, its id, or a unique name")
        add_backend_arguments(parser)
        add_concurrency_argument(parser)
        add_rounds_argument(parser)
        add_scale_arguments(parser)
        add_prompt_version_argument(parser)
        add_stage0_arguments(parser)
        add_budget_arguments(parser)
        parser.add_argument(
            "--limit",
            type=int,
            help="Only the first N pairs in the pool's judging order (its strategy's, else by "
            "query id then doc id); default: the pool's budget, else every pair",
        )
        parser.add_argument(
            "--wait",
            action="store_true",
            help="With a broker: follow the job until it ends (without one it always waits)",
        )
        parser.add_argument(
            "--human-budget",
            type=int,
            help="At most N pairs go to humans (escalated and audited together), highest "
            "impact on the benchmark first (default: no limit)",
        )
        parser.add_argument(
            "--batch",
            action="store_true",
            help="batch mode (openai agents): no direct calls; each round's requests go out "
            "as a batch file (debate_batch JOB export/import)",
        )
        add_audit_share_argument(parser, default=job_option_default("audit_share"))
        add_audit_allocation_argument(parser)
        add_gold_share_argument(parser, default=job_option_default("gold_share"))
        add_allow_duplicate_argument(parser)
        add_check_judged_argument(parser)
        add_reuse_argument(parser)
        parser.add_argument("--no-progress", action="store_true", help="No progress bar")
        parser.add_argument(
            "--callback-url",
            default="",
            help="POST a signed callback to this URL when the job finishes, fails, is paused "
            "or cancelled (its host must be in DREAM_WEBHOOK_ALLOWED_HOSTS; needs --user)",
        )
        parser.add_argument(
            "--user",
            help="USERNAME: the job's creator, whose webhook secret signs its callbacks",
        )

    def handle(self, *args, **opts):
        other_backend_flags_refuse(opts)
        creator = _creator(opts["user"])
        if opts["callback_url"] and creator is None:
            raise CommandError("--callback-url needs --user USERNAME: its secret signs the calls")
        pool = load_pool(opts["pool"])
        try:
            agent_a, agent_b = backend_flags_configs(opts, dataset=pool.dataset.slug)
            spec = JobSpec(
                pool=pool,
                agent_a=agent_a,
                agent_b=agent_b,
                note="run_debates",
                **job_options_given(opts),
            )
            job = debate_job_launch(spec=spec, created_by=creator)
        except DebateJobError as exc:
            raise CommandError(launch_refusal(exc)) from None
        if job.batch:
            self.stdout.write(
                f"job {job.pk}: {job.debates.count():,} debates in batch mode; write the due "
                f"requests with `debate_batch {job.pk} export --out FILE`, send FILE as a batch, "
                f"then `debate_batch {job.pk} import OUTPUT`, round after round; or let "
                f"`debate_batch {job.pk} submit --wait` do it through agent A's Batch API"
            )
            return
        if not (opts["wait"] or tasks_run_in_process()):
            progress = debate_job_progress(job=job)
            self.stdout.write(
                f"job {job.pk}: {progress.total:,} debates queued; follow it with "
                f"`debate_job {job.pk} progress` (workers: celery -A config worker)"
            )
            return
        progress = wait_job(job, progress_bar=not opts["no_progress"])
        self.stdout.write(format_summary(job, progress))
        # Lines other apps add, as `debate_job ID progress` prints them (stage 0's report:
        # what it settled and why, among others).
        job.refresh_from_db()
        for line in debate_job_notes(job=job):
            self.stdout.write(line)
        if job.callback_url:
            # Without a broker the callback goes out from a thread of this process: give it
            # the time of one attempt before the process exits (later retries stay pending).
            webhook_threads_join(timeout=TIMEOUT_SECONDS + 5)


def _creator(username: str | None):
    """The user named ``username`` (None for none). Raises CommandError if there is none."""
    if not username:
        return None
    from django.contrib.auth import get_user_model

    try:
        return get_user_model().objects.get_by_natural_key(username)
    except get_user_model().DoesNotExist:
        raise CommandError(f"--user: no user {username!r}") from None
