from django.core.management.base import BaseCommand, CommandError

from core.paths import caller_path
from corpora.formats import FormatError
from corpora.services.runs import run_import

from ._common import add_unknown_ids_argument, format_unknown_dropped, load_dataset


class Command(BaseCommand):
    help = "Import a TREC run file (qid Q0 docid rank score tag) into an existing dataset."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("file", type=caller_path, help="TREC run file (.gz allowed)")
        parser.add_argument("--name", help="Run name (default: the file's tag)")
        parser.add_argument("--system", default="", help="Description of the system")
        add_unknown_ids_argument(parser)

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            run = run_import(
                dataset=dataset,
                path=opts["file"],
                name=opts["name"],
                system=opts["system"],
                unknown_ids=opts["unknown_ids"],
            )
        except FormatError as exc:
            raise CommandError(f"import failed, nothing imported: {exc}") from None
        summary = (
            dataset.imports.filter(kind="run", summary__run=run.name).latest("created").summary
        )
        self.stdout.write(
            f"run {run.name}: {summary['queries']:,} queries, {summary['entries']:,} entries; "
            f"{summary['queries_reordered_by_score']:,} queries re-ranked by score"
        )
        if summary.get("unknown_ids_dropped_rows"):
            self.stdout.write(format_unknown_dropped(summary["unknown_ids_dropped_rows"]))
