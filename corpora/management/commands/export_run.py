import sys

from django.core.management.base import BaseCommand, CommandError

from corpora.models import Run
from corpora.services import run_export, run_get

from ._common import load_dataset


class Command(BaseCommand):
    help = "Export a run as a TREC run file (scores strictly decreasing with rank)."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("run", help="Run name")
        parser.add_argument("--out", default="-", help="Output file ('-' for stdout)")

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            run = run_get(dataset=dataset, name=opts["run"])
        except Run.DoesNotExist:
            names = ", ".join(dataset.runs.values_list("name", flat=True)) or "none"
            raise CommandError(f"no run {opts['run']!r} (known: {names})") from None
        if opts["out"] == "-":
            lines = run_export(run=run, out=sys.stdout)
        else:
            with open(opts["out"], "w", encoding="utf-8", newline="\n") as out:
                lines = run_export(run=run, out=out)
        self.stderr.write(f"{lines:,} lines written to {opts['out']}")
