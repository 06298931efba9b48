from django.core.management.base import BaseCommand, CommandError

from debates.services.common import DebateJobError
from debates.services.jobs import debate_job_create

from ._jobs import (
    add_backend_arguments,
    add_scale_arguments,
    backend_configs,
    format_summary,
    in_process,
    load_pool,
    run_job,
)


class Command(BaseCommand):
    help = (
        "Debate every pair of a pool (DREAM): create a job, run it (in-process without a "
        "broker, else on the Celery workers), show the progress and a summary."
    )

    def add_arguments(self, parser):
        parser.add_argument("pool", help="Pool as DATASET/NAME, its id, or a unique name")
        add_backend_arguments(parser)
        parser.add_argument("--rounds", type=int, default=2, help="Maximum rounds R (1-5)")
        add_scale_arguments(parser)
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument(
            "--max-tokens", type=int, default=384, help="Completion budget per LLM call"
        )
        parser.add_argument(
            "--limit", type=int, help="Only the first N pairs (by query id, then doc id)"
        )
        parser.add_argument(
            "--wait",
            action="store_true",
            help="With a broker: follow the job until it ends (without one it always waits)",
        )
        parser.add_argument("--no-progress", action="store_true", help="No progress bar")

    def handle(self, *args, **opts):
        pool = load_pool(opts["pool"])
        agent_a, agent_b = backend_configs(opts)
        try:
            job = debate_job_create(
                pool=pool,
                agent_a=agent_a,
                agent_b=agent_b,
                rounds=opts["rounds"],
                temperature=opts["temperature"],
                max_tokens=opts["max_tokens"],
                limit=opts["limit"],
                scale=opts["scale"],
                consensus=opts["consensus"],
                note="run_debates",
            )
        except DebateJobError as exc:
            raise CommandError(str(exc)) from None
        wait = opts["wait"] or in_process()
        progress = run_job(job, wait=wait, progress_bar=not opts["no_progress"])
        if not wait:
            self.stdout.write(
                f"job {job.pk}: {progress.total:,} debates queued; follow it with "
                f"`debate_job {job.pk} progress` (workers: celery -A config worker)"
            )
            return
        self.stdout.write(format_summary(job, progress))
