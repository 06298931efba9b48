from django.core.management.base import BaseCommand, CommandError

from core.paths import caller_path
from corpora.formats import DUPLICATE_POLICIES, FormatError
from corpora.services.datasets import dataset_summary, qrels_import

from ._common import (
    add_unknown_ids_argument,
    format_summary,
    format_unknown_dropped,
    load_dataset,
)


class Command(BaseCommand):
    help = "Import a TREC qrels file (qid iter docid rel) into an existing dataset."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("file", type=caller_path, help="Qrels file (.gz allowed)")
        parser.add_argument("--name", required=True, help="Name of the new qrel set")
        parser.add_argument("--format", choices=["trec", "beir"], default="trec")
        parser.add_argument("--on-duplicate", choices=DUPLICATE_POLICIES, default=None)
        add_unknown_ids_argument(parser)

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            qrel_set = qrels_import(
                dataset=dataset,
                path=opts["file"],
                name=opts["name"],
                fmt=opts["format"],
                on_duplicate=opts["on_duplicate"],
                unknown_ids=opts["unknown_ids"],
            )
        except FormatError as exc:
            raise CommandError(f"import failed, nothing imported: {exc}") from None
        self.stdout.write(format_summary(dataset_summary(dataset=dataset)))
        if qrel_set.unknown_ids_dropped:
            record = dataset.imports.filter(kind="qrels").latest("pk")
            self.stdout.write(format_unknown_dropped(record.summary["unknown_ids_dropped_rows"]))
