"""``POST /api/v1/datasets`` with a slug a dataset has (given, or made from the name) is a
400 at once, before any file is stored or any operation started, naming ``slug`` and a
free one; the same 400 as a refinement's taken name."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from corpora.models import Dataset, Operation

pytestmark = pytest.mark.django_db


def _zip():
    return SimpleUploadedFile("b.zip", b"PK", content_type="application/zip")


def test_a_name_whose_slug_is_taken_is_refused_naming_a_free_slug(api_as, tiny_dataset):
    answer = api_as("admin").post("/api/v1/datasets", {"name": "Tiny", "archive": _zip()})
    assert answer.status_code == 400, answer.content
    assert answer.json() == {
        "detail": "slug: a dataset with slug 'tiny' exists already; send another \"slug\" "
        '(e.g. "tiny-2"), or upload into the existing one with POST /datasets/tiny/qrels '
        "or /runs"
    }
    assert not Operation.objects.exists()
    assert Dataset.objects.count() == 1


def test_the_free_slug_skips_those_taken_too(api_as, tiny_dataset):
    Dataset.objects.create(slug="tiny-2", name="Tiny 2")
    answer = api_as("admin").post(
        "/api/v1/datasets", {"name": "Anything", "slug": "tiny", "archive": _zip()}
    )
    assert answer.status_code == 400
    assert '(e.g. "tiny-3")' in answer.json()["detail"]
