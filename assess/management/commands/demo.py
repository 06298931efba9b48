import secrets
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from assess.management.commands.pipeline import PIPELINE_ERRORS
from assess.pipeline import PipelineSpec, pipeline_run
from assess.review.next_step import queue_sentence
from assess.review.selectors import job_queue_counts
from assess.review.services import review_items_sync
from core.fixes import error_worded
from core.roles import roles_ensure, user_ensure
from corpora.formats import FormatError
from corpora.management.commands._common import format_summary
from corpora.models import Dataset
from corpora.services import dataset_import_beir, dataset_summary, embeddings_seed
from debates.management.commands._jobs import (
    add_audit_allocation_argument,
    add_backend_arguments,
    add_gold_share_argument,
    add_stage0_arguments,
    backend_flags_configs,
    share_type,
)
from debates.models import DebateJob
from debates.services.backends import agent_config_build
from debates.services.launch import job_option_default

BUNDLED_SCIFACT = Path(settings.BASE_DIR) / "data" / "scifact"
# all-MiniLM-L6-v2 vectors of the bundled corpus (see data/scifact/README.md): encoding the
# 5,183 documents takes 3-7 minutes on 2 cores, most of the demo's time budget.
BUNDLED_EMBEDDINGS = BUNDLED_SCIFACT / "embeddings"
DEMO_QUERIES = 1
# The embedded model agrees on every pair of the demo pool, and 2% of 19 pairs is none: a
# quarter of the agreed labels go to the demo annotator so the newcomer sees the judging page
# and the audit's estimate of wrong consensus labels.
DEMO_AUDIT_SHARE = 0.25
# One pair in four of the demo annotator's is a known-answer pair, so the few pairs of the
# demo show gold pairs and the annotators page an accuracy (jobs default to 5%).
DEMO_GOLD_SHARE = 0.25
DEMO_ACCOUNTS = (
    ("demo-admin", "admin"),
    ("demo-annotator", "annotator"),
    ("demo-researcher", "researcher"),
)


class Command(BaseCommand):
    help = (
        "The main job on the bundled SciFact sample with the embedded defaults, then the web UI "
        "on http://127.0.0.1:8000 with a demo admin, annotator and researcher."
    )
    # Tests pass a backend config directly (e.g. a rule-based test client) with
    # call_command("demo", agent={...}); it overrides --backend.
    stealth_options = ("agent",)

    def add_arguments(self, parser):
        parser.add_argument(
            "--queries",
            type=int,
            default=DEMO_QUERIES,
            help=f"Pool the first N judged test queries (default {DEMO_QUERIES})",
        )
        parser.add_argument("--depth", type=int, default=10, help="Pool depth (default 10)")
        parser.add_argument(
            "--rounds",
            type=int,
            default=job_option_default("rounds"),
            help="R, maximum rounds (1-5)",
        )
        parser.add_argument(
            "--retrievers", default="bm25,dense", help="Comma-separated (default bm25,dense)"
        )
        add_backend_arguments(parser, agent_b=False)
        parser.add_argument(
            "--audit-share",
            type=share_type,
            default=DEMO_AUDIT_SHARE,
            help=f"Share (0-1) of agreed labels the demo annotator audits "
            f"(default {DEMO_AUDIT_SHARE})",
        )
        add_audit_allocation_argument(parser)
        add_gold_share_argument(parser, default=DEMO_GOLD_SHARE)
        # On by default: the embedded model calls nearly every pair relevant, so without
        # stage 0 a newcomer sees labels that agree with each other where the pairs do not.
        add_stage0_arguments(parser, default=True)
        parser.add_argument("--no-serve", action="store_true", help="Stop before serving")
        parser.add_argument(
            "--addr",
            default="127.0.0.1:8000",
            help="host:port the web UI serves on at the end (default 127.0.0.1:8000)",
        )

    def _dataset(self):
        """The bundled SciFact sample, imported on the first run."""
        dataset = Dataset.objects.filter(slug="scifact").first()
        if dataset is not None:
            return dataset
        try:
            return dataset_import_beir(
                path=BUNDLED_SCIFACT,
                name="SciFact",
                slug="scifact",
                licence="CC BY-NC 2.0",
                progress=True,
            )
        except FormatError as exc:
            raise CommandError(str(exc)) from None

    def handle(self, *args, **opts):
        dataset = self._dataset()
        self.stdout.write(format_summary(dataset_summary(dataset=dataset)))
        seeded = embeddings_seed(dataset=dataset, folder=BUNDLED_EMBEDDINGS)
        if seeded:
            self.stdout.write(
                f"dense vectors: {seeded:,} precomputed all-MiniLM-L6-v2 vectors from "
                f"{BUNDLED_EMBEDDINGS.relative_to(settings.BASE_DIR)} (they match the corpus "
                "and model exactly; without them the dense run encodes the corpus itself)"
            )
        try:
            # Tests pass a config (e.g. a rule-based test client) as ``agent``.
            raw = opts.get("agent")
            agent = (
                agent_config_build(fields=raw)
                if raw
                else backend_flags_configs(opts, dataset=dataset.slug)[0]
            )
            spec = PipelineSpec.of(
                agent=agent,
                retrievers=[r.strip() for r in opts["retrievers"].split(",") if r.strip()],
                queries=opts["queries"],
                depth=opts["depth"],
                rounds=opts["rounds"],
                audit_share=opts["audit_share"],
                audit_allocation=opts["audit_allocation"],
                gold_share=opts["gold_share"],
                stage0=opts["stage0"],
                stage0_alpha=opts["stage0_alpha"],
                stage0_delta=opts["stage0_delta"],
                stage0_beta=opts["stage0_beta"],
                next_step=False,  # the demo names its own accounts and pages below
            )
            report = pipeline_run(dataset=dataset, spec=spec, echo=self.stdout.write)
        except PIPELINE_ERRORS as exc:
            # A refused option is named by the flag typed (--stage0-beta, not stage0_beta).
            raise CommandError(error_worded(exc, "cli")) from None
        job = DebateJob.objects.get(pk=report.job_id)
        review_items_sync(job=job)
        queue = job_queue_counts(job=job)
        roles_ensure()
        lines = []
        for username, role in DEMO_ACCOUNTS:
            password = secrets.token_urlsafe(9)
            user_ensure(username=username, role=role, password=password)
            lines.append(f"  {role:<10} user {username}  password {password}")
        self.stdout.write(
            f"\nrefined qrels: {report.refined_file}\n"
            f"seconds: "
            + ", ".join(f"{k} {v:.0f}" for k, v in report.seconds.items())
            + "\n\nDemo accounts (new passwords every run):\n"
            + "\n".join(lines)
        )
        self.stdout.write(
            f"\n{queue_sentence(job=job, queue=queue)}\n"
            f"Where to look: log in as demo-annotator and judge them (Judge in the menu); then "
            f"job {job.pk}'s page (/jobs/{job.pk}/, or `./dream manage debate_job "
            f"{job.pk} progress`) shows the audit's estimate of wrong consensus labels with its "
            f"95% interval, and the annotators page (/review/annotators/) each annotator's "
            f"accuracy on the known-answer pairs with its 95% interval. As demo-admin, refine "
            f"again to take the human labels; as "
            f"demo-researcher, download the refined qrels from the dataset's refined qrels page."
        )
        if opts["no_serve"]:
            return
        self.stdout.write(f"\nServing the web UI on http://{opts['addr']}/ (Ctrl-C to stop).")
        # runserver blocks from here on: a log file or pipe must see the lines above now.
        self.stdout.flush()
        call_command("runserver", opts["addr"], use_reloader=False)
