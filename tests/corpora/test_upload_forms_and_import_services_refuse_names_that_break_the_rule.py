"""The upload forms and the import services behind the commands refuse a name that breaks
the one name rule (``../../x``, a control character, 5,000 characters, an RTL override),
naming the field, and store nothing."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from corpora.formats import FormatError
from corpora.forms import BeirUploadForm, QrelsUploadForm, RunUploadForm
from corpora.models import Dataset, QrelSet
from corpora.services import dataset_import_beir, qrels_import
from tests.fixtures.datasets import TINY_CORPUS, TINY_QUERIES, write_beir

RULE = "a name is 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
HOSTILE = [
    ("../../x", "it holds a path separator"),
    ("a\x1bb", "it holds a control or invisible character (U+001B CONTROL)"),
    ("x" * 5000, "it has 5,000 characters, at most 100 are allowed"),
    ("abc\u202etxt", "it holds a control or invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)"),
]


def _file(name: str = "q.txt") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, b"q1 0 d1 1\n", content_type="text/plain")


@pytest.mark.parametrize(("value", "reason"), HOSTILE)
def test_the_upload_forms_refuse_the_name_naming_the_field(value, reason):
    qrels = QrelsUploadForm(
        {"name": value, "fmt": "trec", "unknown_ids": "reject"}, {"qrels": _file()}
    )
    beir = BeirUploadForm(
        {"name": "Tiny", "slug": value, "split": value, "unknown_ids": "reject"},
        {"archive": _file("b.zip")},
    )
    run = RunUploadForm({"name": value, "unknown_ids": "reject"}, {"run": _file("r.txt")})

    assert not qrels.is_valid() and not beir.is_valid() and not run.is_valid()
    assert qrels.errors["name"] == [f"Qrel set name: {reason}; {RULE}"]
    assert beir.errors["slug"] == [f"Slug: {reason}; {RULE}"]
    assert beir.errors["split"] == [f"Split: {reason}; {RULE}"]
    assert run.errors["name"] == [f"Run name: {reason}; {RULE}"]


def test_the_beir_form_refuses_a_title_with_an_rtl_override():
    form = BeirUploadForm(
        {"name": "Tiny\u202eBEIR", "unknown_ids": "reject"}, {"archive": _file("b.zip")}
    )

    assert not form.is_valid()
    assert form.errors["name"] == [
        "name: it holds a control or invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)"
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(("value", "reason"), HOSTILE)
def test_the_qrels_import_service_refuses_the_name(tiny_dataset, tmp_path, value, reason):
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 1\n")

    with pytest.raises(FormatError) as refused:
        qrels_import(dataset=tiny_dataset, path=path, name=value)

    assert str(refused.value) == f"{path}: qrel set name: {reason}; {RULE}"
    assert list(QrelSet.objects.values_list("name", flat=True)) == ["test"]


@pytest.mark.django_db
def test_the_beir_import_service_refuses_a_5000_character_slug(tmp_path):
    folder = write_beir(
        tmp_path / "b", corpus=TINY_CORPUS, queries=TINY_QUERIES, qrels={"test": "q1\td1\t1\n"}
    )

    with pytest.raises(FormatError) as refused:
        dataset_import_beir(path=folder, name="Tiny", slug="s" * 5000)

    assert str(refused.value) == (
        f"{folder}: slug: it has 5,000 characters, at most 100 are allowed; {RULE}"
    )
    assert not Dataset.objects.exists()
