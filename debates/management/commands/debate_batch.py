"""``./dream manage debate_batch JOB export --out FILE`` / ``import FILE``: run a batch-mode
job's rounds through batch files (OpenAI's Batch API format; ``vllm run-batch -i FILE -o
OUT``). See :mod:`debates.services.batch`. ``debate_batch JOB submit [--wait]``: the same
rounds through agent A's OpenAI-compatible Batch API (:mod:`debates.services.batch_api`)."""

from __future__ import annotations

from pathlib import Path

import openai
from django.core.management.base import BaseCommand, CommandError

from core.paths import caller_path
from debates.batch import BatchFileError
from debates.services.batch import batch_export, batch_import
from debates.services.batch_api import batch_submit_step, batch_submit_wait
from debates.services.common import DebateJobError
from debates.services.progress import debate_job_progress

from ._jobs import format_summary, load_job


class Command(BaseCommand):
    help = (
        "Batch mode: `export` writes every request due now (round 1 of pending pairs, later "
        "rounds of pairs still disagreeing, re-asks) as a batch input file; `import` reads "
        "an output file (OpenAI Batch API or vllm run-batch), stores each reply once and "
        "says how many requests are due next; `submit` sends the due requests to agent A's "
        "OpenAI-compatible Batch API, or polls and imports the batch in flight (one step; "
        "--wait: round after round until the job ends)."
    )

    def add_arguments(self, parser):
        parser.add_argument("job", type=int, help="Job id (launched with --batch)")
        parser.add_argument("action", choices=("export", "import", "submit"))
        parser.add_argument(
            "file", nargs="?", type=caller_path, help="import: the output file to read"
        )
        parser.add_argument("--out", type=caller_path, help="export: the input file to write")
        parser.add_argument(
            "--again",
            action="store_true",
            help="export: also write requests sent before that have no reply yet (a lost file)",
        )
        parser.add_argument(
            "--wait",
            action="store_true",
            help="submit: submit, poll and import round after round until the job ends",
        )
        parser.add_argument(
            "--poll-seconds",
            type=float,
            default=30.0,
            help="submit --wait: seconds between polls of a batch in flight (default 30)",
        )

    def handle(self, *args, **opts):
        job = load_job(opts["job"])
        try:
            if opts["action"] == "export":
                self._export(job, opts)
            elif opts["action"] == "import":
                self._import(job, opts)
            else:
                self._submit(job, opts)
        except (DebateJobError, BatchFileError, OSError) as exc:
            raise CommandError(str(exc)) from None
        except openai.APIError as exc:  # the SDK's messages name status and reason, no key
            raise CommandError(f"batch API: {exc}") from None

    def _submit(self, job, opts) -> None:
        if opts["poll_seconds"] < 0:
            raise CommandError("--poll-seconds must be 0 or more")
        if not opts["wait"]:
            self.stdout.write(batch_submit_step(job=job))
            return
        batch_submit_wait(job=job, poll_seconds=opts["poll_seconds"], on_step=self.stdout.write)
        job.refresh_from_db()
        self.stdout.write(format_summary(job, debate_job_progress(job=job)))

    def _export(self, job, opts) -> None:
        if not opts["out"]:
            raise CommandError("export needs --out FILE")
        path = Path(opts["out"])
        with path.open("w", encoding="utf-8") as out:
            written = batch_export(
                job=job, out=out, batch_ref=f"file:{path.name}", again=opts["again"]
            )
        if written:
            self.stdout.write(f"{written:,} request(s) written to {path}")
        else:
            path.unlink(missing_ok=True)
            job.refresh_from_db()
            self.stdout.write(f"nothing is due: job {job.pk} is {job.status}")
            self.stdout.write(format_summary(job, debate_job_progress(job=job)))

    def _import(self, job, opts) -> None:
        if not opts["file"]:
            raise CommandError("import needs the output FILE")
        path = Path(opts["file"])
        with path.open(encoding="utf-8") as lines:
            report = batch_import(job=job, lines=lines, name=path.name)
        job.refresh_from_db()
        self.stdout.write(
            f"{report.answered:,} replies stored, {report.ignored:,} lines seen before "
            f"(ignored), {report.failed:,} failed lines ({report.given_up:,} given up); "
            f"{report.ended:,} debate(s) ended; {report.due:,} request(s) due next"
            + ("" if job.status == "running" else f"; job {job.pk} is {job.status}")
        )
