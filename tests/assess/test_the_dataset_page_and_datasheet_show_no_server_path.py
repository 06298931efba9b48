"""A dataset imported from a folder on the server shows only the folder's name as its source
on the dataset page and in the benchmark zip's datasheet, as the API does
(``core.paths.source_shown``): the server's folders are nobody's business."""

import zipfile

import pytest

from assess.refined.exports import export_file_write

pytestmark = pytest.mark.django_db


def test_the_dataset_page_shows_the_folders_name_only(refined, client_as):
    assert refined.dataset.source.startswith("/")  # the fixture imports from a tmp folder
    page = client_as("researcher").get("/datasets/holes/").content.decode()
    assert '<dt>Source</dt><dd class="id">imported from holes</dd>' in page
    # (The import history below names a command's import by the path it was given.)
    facts = page[: page.index("<h2>Import history</h2>")]
    assert refined.dataset.source not in facts


def test_the_datasheet_shows_the_folders_name_only(refined, tmp_path):
    export_file_write(kind="benchmark", path=tmp_path / "b.zip", qrel_set=refined.refined)
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        readme = archive.read("holes/README.md").decode()
    assert "- Source: `imported from holes`" in readme
    assert refined.dataset.source not in readme
