import os
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.paths import caller_path
from corpora.models import Run
from corpora.services.runs import RunError, run_export, run_get

from ._common import load_dataset


class Command(BaseCommand):
    help = "Export a run as a TREC run file (scores strictly decreasing with rank)."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("run", help="Run name")
        parser.add_argument(
            "--out", type=caller_path, default="-", help="Output file ('-' for stdout)"
        )

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            run = run_get(dataset=dataset, name=opts["run"])
        except Run.DoesNotExist:
            names = ", ".join(dataset.runs.values_list("name", flat=True)) or "none"
            raise CommandError(f"no run {opts['run']!r} (known: {names})") from None
        try:
            if opts["out"] == "-":
                lines = run_export(run=run, out=sys.stdout)
            else:
                lines = self._export_to_file(run, Path(opts["out"]))
        except RunError as exc:
            raise CommandError(f"{exc}; nothing written") from None
        except OSError as exc:
            raise CommandError(f"cannot write {opts['out']}: {exc}; nothing written") from None
        self.stderr.write(f"{lines:,} lines written to {opts['out']}")

    @staticmethod
    def _export_to_file(run: Run, path: Path) -> int:
        """Write into a temporary file beside ``path`` and rename it over ``path`` only once
        complete, so an error (or an interrupt) never leaves a truncated run file behind."""
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            # mkstemp makes the file private (0600); give it the mode open() would have.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
                lines = run_export(run=run, out=out)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return lines
