"""A dataset imported from a folder on the server (``import_beir PATH``) shows only the
folder's name as its ``source`` over the API; a source given at import or an upload's file
names show as they are."""

import pytest

from api.datasets import source_shown


def test_a_dataset_imported_from_a_server_folder_shows_only_its_name(api_as, tiny_dataset):
    assert tiny_dataset.source.startswith("/")  # the fixture imports from a tmp folder
    shown = api_as("researcher").get("/api/v1/datasets/tiny").json()["source"]
    assert shown == "imported from tiny"
    listed = api_as("researcher").get("/api/v1/datasets").json()["items"][0]["source"]
    assert listed == "imported from tiny"


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("/srv/dream/var/uploads/17/beir/", "imported from beir"),
        ("~/data/arguana", "imported from arguana"),
        ("../shared/data/scifact", "imported from scifact"),
        ("C:\\data\\nfcorpus", "imported from nfcorpus"),
        ("/", "imported from a folder on the server"),
        ("BEIR arguana (Wachsmuth et al., ACL 2018)", "BEIR arguana (Wachsmuth et al., ACL 2018)"),
        ("uploaded corpus.jsonl, queries.jsonl", "uploaded corpus.jsonl, queries.jsonl"),
        ("", ""),
    ],
)
def test_only_a_path_is_cut_to_its_last_part(source, shown):
    assert source_shown(source) == shown
