from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from corpora.formats import FormatError
from corpora.management.commands._common import format_summary
from corpora.models import Dataset
from corpora.services import dataset_import_beir, dataset_summary

BUNDLED_SCIFACT = Path(settings.BASE_DIR) / "data" / "scifact"


class Command(BaseCommand):
    help = "The main job on the bundled SciFact sample (for now: import it and summarise)."

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
        else:
            self.stdout.write("SciFact is already imported; summary:")
        self.stdout.write(format_summary(dataset_summary(dataset=dataset)))
