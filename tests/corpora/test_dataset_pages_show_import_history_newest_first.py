"""The dataset page lists every import (kind, file, seconds), newest first."""

from datetime import timedelta
from pathlib import Path

from corpora.models import ImportRecord
from corpora.views import seconds_shown
from tests.fixtures.ui import html_tables


def test_imports_are_listed_newest_first(client_as, tiny_dataset):
    beir = tiny_dataset.imports.get()
    later = ImportRecord.objects.create(
        dataset=tiny_dataset, kind="qrels", path="/data/more.qrels", summary={}, seconds=2.26
    )
    ImportRecord.objects.filter(pk=later.pk).update(created=beir.created + timedelta(hours=1))
    html = client_as("researcher").get("/datasets/tiny/").content.decode()
    history = html_tables(html)[-1]
    assert history[0] == ["When (UTC)", "Kind", "File", "Seconds"]
    assert [row[1:] for row in history[1:]] == [
        # A command's file by its name, never the server's folders (import_file_shown).
        ["TREC qrels", "more.qrels (on the server)", "2.3"],
        # A quick import reads "under 0.1", never "0.0" (seconds_shown).
        ["BEIR folder", f"{Path(beir.path).name} (on the server)", seconds_shown(beir.seconds)],
    ]
    assert history[1][0] == (beir.created + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")
