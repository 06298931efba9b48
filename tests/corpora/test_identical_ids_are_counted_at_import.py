"""At import, query ids that are also document ids and documents whose text equals a query's
text are counted and reported; "exclude identical ids" is on by default only when most
queries have a document with the same id *and* text (ArguAna), not when numeric ids merely
coincide (Cranfield), and --identical-ids overrides it."""

from io import StringIO

import pytest
from django.core.management import call_command

from corpora.models import Dataset
from corpora.services import dataset_import_beir
from tests.fixtures.datasets import shared_dataset


@pytest.mark.slow
@pytest.mark.django_db
def test_arguana_has_1298_query_ids_that_are_documents_and_excludes_them():
    dataset = dataset_import_beir(path=shared_dataset("arguana"), name="arguana", splits=["test"])
    summary = dataset.imports.get().summary["identical"]
    assert summary == {
        "queries": 1406,
        "ids": 1298,
        "texts": 1298,
        "same_id_and_text": 1298,
        "exclude": True,
    }
    dataset.refresh_from_db()
    assert (dataset.identical_ids, dataset.identical_texts) == (1298, 1298)
    assert dataset.exclude_identical_ids is True


@pytest.mark.django_db
def test_cranfield_ids_coincide_but_its_queries_are_not_documents():
    dataset = dataset_import_beir(path=shared_dataset("cranfield"), name="cranfield")
    assert dataset.imports.get().summary["identical"] == {
        "queries": 225,
        "ids": 225,
        "texts": 0,
        "same_id_and_text": 0,
        "exclude": False,
    }
    assert Dataset.objects.get(slug="cranfield").exclude_identical_ids is False


@pytest.mark.django_db
def test_the_flag_overrides_the_default_and_the_command_reports_the_counts(selfish_folder):
    out = StringIO()
    call_command(
        "import_beir",
        str(selfish_folder),
        name="kept",
        identical_ids="keep",
        no_progress=True,
        stdout=out,
    )
    assert Dataset.objects.get(slug="kept").exclude_identical_ids is False
    assert out.getvalue().splitlines()[-1] == (
        "identical ids: 2 of 2 query ids are also document ids (2 with the same text); "
        "2 documents have a query's text; a query's own document is kept (--identical-ids, "
        "or the dataset's admin page)"
    )
    dataset_import_beir(path=selfish_folder, name="default")
    assert Dataset.objects.get(slug="default").exclude_identical_ids is True
