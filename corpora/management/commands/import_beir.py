from django.core.management.base import BaseCommand, CommandError

from core.paths import caller_path
from corpora.formats import DUPLICATE_POLICIES, FormatError
from corpora.identical import IDENTICAL_ID_POLICIES
from corpora.services.datasets import dataset_import_beir, dataset_summary

from ._common import (
    add_unknown_ids_argument,
    format_identical,
    format_long_texts,
    format_summary,
    format_unknown_dropped,
)


class Command(BaseCommand):
    help = "Import a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) as a dataset."

    def add_arguments(self, parser):
        parser.add_argument("path", type=caller_path, help="BEIR folder")
        parser.add_argument("--name", required=True, help="Dataset name (slug derived from it)")
        parser.add_argument("--slug", help="Dataset slug (default: from --name)")
        parser.add_argument("--licence", default="", help="Licence note")
        parser.add_argument("--source", default="", help="Provenance note (default: the path)")
        parser.add_argument("--on-duplicate", choices=DUPLICATE_POLICIES, default=None)
        parser.add_argument(
            "--splits", help="Comma-separated qrels splits to import (default: every qrels/*.tsv)"
        )
        add_unknown_ids_argument(parser, rows="Qrels rows", refused="import")
        parser.add_argument(
            "--identical-ids",
            choices=IDENTICAL_ID_POLICIES,
            default=None,
            help="Exclude a query's own document (doc id = query id) from retrieval, pools and "
            "evaluation, as BEIR does for ArguAna and Quora (default: exclude when most queries "
            "have a document with the same id and text)",
        )
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        try:
            dataset = dataset_import_beir(
                path=opts["path"],
                name=opts["name"],
                slug=opts["slug"],
                licence=opts["licence"],
                source=opts["source"],
                on_duplicate=opts["on_duplicate"],
                splits=opts["splits"].split(",") if opts["splits"] else None,
                progress=not opts["no_progress"],
                unknown_ids=opts["unknown_ids"],
                identical_ids=opts["identical_ids"],
            )
        except FormatError as exc:
            raise CommandError(f"import failed, nothing imported: {exc}") from None
        self.stdout.write(format_summary(dataset_summary(dataset=dataset)))
        summary = dataset.imports.latest("pk").summary
        for lines in summary["unknown_ids_dropped"].values():
            self.stdout.write(format_unknown_dropped(lines))
        self.stdout.write(format_identical(summary["identical"]))
        long_texts = format_long_texts(summary.get("long_texts"))
        if long_texts:
            self.stdout.write(self.style.WARNING(long_texts))
