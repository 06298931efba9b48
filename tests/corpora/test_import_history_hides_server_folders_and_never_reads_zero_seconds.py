"""The dataset page's import history names an uploaded file as it was uploaded (never the
server's upload folder) and a command's import by its file or folder name only (the server's
folders are the operator's, not the readers'); a quick import reads
"under 0.1" seconds, never "0.0". The operation page never repeats its state ("done done")."""

from pathlib import Path

import pytest
from django.utils import timezone

from corpora.models import ImportRecord, Operation
from corpora.views import import_file_shown, seconds_shown

UPLOADS = Path("/srv/dream/var/uploads")


def test_upload_paths_lose_their_folders_and_a_commands_path_keeps_only_its_name():
    upload = UPLOADS / "0f3a9c" / "beir"
    assert import_file_shown(str(upload), UPLOADS) == "uploaded files"
    assert import_file_shown(str(UPLOADS / "0f3a9c/qrels/extra.qrels"), UPLOADS) == (
        "uploaded extra.qrels"
    )
    unpacked = UPLOADS / "0f3a9c/unpacked/scifact/qrels/test.tsv"
    assert import_file_shown(str(unpacked), UPLOADS) == "uploaded scifact/qrels/test.tsv"
    assert import_file_shown("/home/ops/benchmarks/scifact", UPLOADS) == ("scifact (on the server)")
    assert import_file_shown("/data/nfcorpus/qrels/test.tsv", UPLOADS) == (
        "nfcorpus/qrels/test.tsv (on the server)"
    )
    assert import_file_shown("/data/runs/bm25.trec", UPLOADS) == "bm25.trec (on the server)"


def test_seconds_under_a_tenth_say_so():
    assert [seconds_shown(s) for s in (0.0, 0.049, 0.05, 2.26, 1234.5)] == [
        "under 0.1",
        "under 0.1",
        "0.1",
        "2.3",
        "1,234.5",
    ]


@pytest.mark.django_db
def test_the_dataset_page_shows_neither_the_folder_nor_zero_seconds(
    tiny_dataset, client_as, settings
):
    folder = Path(settings.VAR_DIR) / "uploads" / "9d1e" / "qrels" / "extra.qrels"
    ImportRecord.objects.create(
        dataset=tiny_dataset, kind=ImportRecord.Kind.QRELS, path=str(folder), seconds=0.01
    )
    page = client_as("researcher").get(f"/datasets/{tiny_dataset.slug}/").content.decode()
    history = page[page.index("<h2>Import history</h2>") :]
    assert '<td class="id">uploaded extra.qrels</td>' in history
    assert '<td class="num">under 0.1</td>' in history
    assert str(settings.VAR_DIR) not in history and "uploads/9d1e" not in history
    assert '<td class="num">0.0</td>' not in history


@pytest.mark.django_db
@pytest.mark.parametrize("status", ["done", "failed"])
def test_the_operation_page_says_its_state_once(tiny_dataset, client_as, status):
    operation = Operation.objects.create(
        kind=Operation.Kind.BUILD_POOL,
        dataset=tiny_dataset,
        result={"pool": tiny_dataset.pools.get().pk, "name": "p", "pairs": 2},
        params={},
        status=status,
        stage=status,
        error="it broke" if status == "failed" else "",
        finished=timezone.now(),
    )
    page = client_as("admin").get(f"/operations/{operation.pk}/").content.decode()
    line = page[
        page.index('class="progress-line"') : page.index("</p>", page.index("progress-line"))
    ]
    assert f'id="operation-state">{status}</strong>' in line
    assert 'id="operation-stage"' not in line
    assert line.count(status) == 2  # the status class and its text, never the stage again


@pytest.mark.django_db
def test_a_running_operation_still_shows_its_stage(client_as):
    operation = Operation.objects.create(
        kind=Operation.Kind.BUILD_POOL, params={}, status="running", stage="pooling 2 run(s)"
    )
    page = client_as("admin").get(f"/operations/{operation.pk}/").content.decode()
    assert '<span class="muted" id="operation-stage">pooling 2 run(s)</span>' in page
