"""A missing or null title is read as the empty string."""

import pytest

from corpora.formats import parse_corpus
from corpora.models import Document
from corpora.services import dataset_import_beir


def test_missing_and_null_titles_are_read_as_empty(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        '{"_id": "a", "text": "no title key"}\n'
        '{"_id": "b", "title": null, "text": "null title"}\n'
        '{"_id": "c", "title": "T", "text": "titled"}\n'
    )
    assert [(r.doc_id, r.title) for r in parse_corpus(path)] == [("a", ""), ("b", ""), ("c", "T")]


@pytest.mark.django_db
def test_documents_without_titles_are_stored_with_empty_titles(tiny_beir):
    folder = tiny_beir(
        corpus=[{"_id": "d1", "text": "x"}, {"_id": "d3", "title": None, "text": "y"}],
    )
    dataset_import_beir(path=folder, name="untitled")
    assert sorted(Document.objects.values_list("doc_id", "title", "text")) == [
        ("d1", "", "x"),
        ("d3", "", "y"),
    ]
