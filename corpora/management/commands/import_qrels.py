from django.core.management.base import BaseCommand, CommandError

from corpora.formats import DUPLICATE_POLICIES, FormatError
from corpora.services.datasets import dataset_summary, qrels_import

from ._common import format_summary, load_dataset


class Command(BaseCommand):
    help = "Import a TREC qrels file (qid iter docid rel) into an existing dataset."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("file", help="Qrels file (.gz allowed)")
        parser.add_argument("--name", required=True, help="Name of the new qrel set")
        parser.add_argument("--format", choices=["trec", "beir"], default="trec")
        parser.add_argument("--on-duplicate", choices=DUPLICATE_POLICIES, default=None)

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            qrels_import(
                dataset=dataset,
                path=opts["file"],
                name=opts["name"],
                fmt=opts["format"],
                on_duplicate=opts["on_duplicate"],
            )
        except FormatError as exc:
            raise CommandError(f"import failed, nothing imported: {exc}") from None
        self.stdout.write(format_summary(dataset_summary(dataset=dataset)))
