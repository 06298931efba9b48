import secrets
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from assess.pipeline import pipeline_run
from assess.services import review_items_sync
from corpora.formats import FormatError
from corpora.management.commands._common import format_summary
from corpora.models import Dataset
from corpora.roles import roles_ensure, user_ensure
from corpora.services import dataset_import_beir, dataset_summary
from debates.models import DebateJob

BUNDLED_SCIFACT = Path(settings.BASE_DIR) / "data" / "scifact"
DEMO_QUERIES = 1


class Command(BaseCommand):
    help = (
        "The main job on the bundled SciFact sample with the embedded defaults, then the web UI "
        "on http://127.0.0.1:8000 with a demo admin and a demo annotator."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--queries",
            type=int,
            default=DEMO_QUERIES,
            help=f"Pool the first N judged test queries (default {DEMO_QUERIES})",
        )
        parser.add_argument("--depth", type=int, default=10)
        parser.add_argument("--rounds", type=int, default=2)
        parser.add_argument("--no-serve", action="store_true", help="Stop before serving")
        parser.add_argument("--addr", default="127.0.0.1:8000")

    def handle(self, *args, **opts):
        dataset = Dataset.objects.filter(slug="scifact").first()
        if dataset is None:
            try:
                dataset = dataset_import_beir(
                    path=BUNDLED_SCIFACT,
                    name="SciFact",
                    slug="scifact",
                    licence="CC BY-NC 2.0",
                    progress=True,
                )
            except FormatError as exc:
                raise CommandError(str(exc)) from None
        self.stdout.write(format_summary(dataset_summary(dataset=dataset)))
        report = pipeline_run(
            dataset=dataset,
            queries=opts["queries"],
            depth=opts["depth"],
            rounds=opts["rounds"],
            echo=self.stdout.write,
        )
        review_items_sync(job=DebateJob.objects.get(pk=report.job_id))
        roles_ensure()
        lines = []
        for username, role in (("demo-admin", "admin"), ("demo-annotator", "annotator")):
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
        if opts["no_serve"]:
            return
        self.stdout.write(
            f"\nServing the web UI on http://{opts['addr']}/ (Ctrl-C to stop). Judge the "
            f"escalated pairs as demo-annotator; download refined qrels from the dataset page."
        )
        call_command("runserver", opts["addr"], use_reloader=False)
