"""An import says how many queries and documents are longer than DREAM_LONG_TEXT_CHARS and
names them: in its record's summary, the command's output, the operation's result (the API
reads it) and the operation page. The import itself succeeds."""

import pytest
from django.core.management import call_command

from corpora.models import Operation
from corpora.services import dataset_import_beir

EXPECTED = {
    "chars": 100_000,
    "queries": 1,
    "query_ids": ["q2"],
    "documents": 1,
    "document_ids": ["d2"],
}


@pytest.mark.django_db
def test_the_import_record_counts_and_names_the_over_long_texts(overlong_folder):
    dataset = dataset_import_beir(path=overlong_folder, name="long")
    assert dataset.imports.get().summary["long_texts"] == EXPECTED
    assert dataset.documents.count() == 2 and dataset.queries.count() == 2


@pytest.mark.django_db
def test_the_threshold_is_a_setting_and_the_ids_listed_are_capped(overlong_folder, settings):
    # Below every text's length: all four count, listed in id order.
    settings.DREAM_LONG_TEXT_CHARS = 10
    dataset = dataset_import_beir(path=overlong_folder, name="long")
    long_texts = dataset.imports.get().summary["long_texts"]
    assert long_texts == {
        "chars": 10,
        "queries": 2,
        "query_ids": ["q1", "q2"],
        "documents": 2,
        "document_ids": ["d1", "d2"],
    }


@pytest.mark.django_db
def test_a_short_dataset_has_no_over_long_texts(tiny_beir):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    long_texts = dataset.imports.get().summary["long_texts"]
    assert (long_texts["queries"], long_texts["documents"]) == (0, 0)


@pytest.mark.django_db
def test_the_import_command_warns_of_them_with_their_ids(overlong_folder, capsys):
    call_command("import_beir", str(overlong_folder), "--name", "long", "--no-progress")
    out = capsys.readouterr().out
    assert (
        "over-long texts (more than 100,000 characters): 1 queries (q2): their debates will "
        "end as too long for the context; 1 documents (d2): the agents read only their "
        "beginning"
    ) in out


@pytest.mark.django_db
def test_the_operation_result_and_page_name_them(overlong_folder, client_as):
    from corpora.services.operations import STEPS

    operation = Operation.objects.create(
        kind=Operation.Kind.IMPORT_BEIR, params={"name": "long"}, status="running"
    )
    # The step as the background task runs it, on a folder laid out as an upload.
    root = overlong_folder.parent
    (root / "beir").symlink_to(overlong_folder)
    result = STEPS[Operation.Kind.IMPORT_BEIR](operation, root)
    assert result["long_texts"] == EXPECTED
    Operation.objects.filter(pk=operation.pk).update(status="done", stage="done", result=result)
    page = client_as("admin").get(f"/operations/{operation.pk}/").content.decode()
    start = page.index('id="operation-long-texts"')
    line = " ".join(page[start : page.index("</p>", start)].split())
    assert '1 query (<span class="id">q2</span>)' in line
    assert '1 document (<span class="id">d2</span>)' in line
    assert "more than 100,000 characters" in line
