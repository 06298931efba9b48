from django.core.management.base import BaseCommand, CommandError

from core.paths import caller_path
from corpora.formats import FormatError
from corpora.services.datasets import answers_import, answers_summary

from ._common import format_answers_summary, load_dataset


class Command(BaseCommand):
    help = 'Set reference answers from a JSONL file of {"query_id", "answers": [...]}.'

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="Dataset slug")
        parser.add_argument("file", type=caller_path, help="Answers JSONL (.gz allowed)")

    def handle(self, *args, **opts):
        dataset = load_dataset(opts["dataset"])
        try:
            count = answers_import(dataset=dataset, path=opts["file"])
        except FormatError as exc:
            raise CommandError(f"import failed, nothing imported: {exc}") from None
        self.stdout.write(format_answers_summary(count, answers_summary(dataset=dataset)))
