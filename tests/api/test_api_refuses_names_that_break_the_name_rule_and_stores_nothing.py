"""A qrel set name, a dataset slug, a run or pool name that breaks the one name rule
(``../../x``, a control character, 5,000 characters, an RTL override) is refused by the API
naming the field, before any operation starts or anything is stored: a name longer than the
rule allows by the request's schema (422, its length named), any other by the name rule (400,
the reason named); a title or source with a control character is refused the same way."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from corpora.models import Dataset, Operation, QrelSet

pytestmark = pytest.mark.django_db

RULE = "a name is 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
HOSTILE = [
    ("../../x", "it holds a path separator"),
    ("a\x07b", "it holds a control or invisible character (U+0007 CONTROL)"),
    ("x" * 5000, "it has 5,000 characters, at most 100 are allowed"),
    ("abc\u202etxt", "it holds a control or invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)"),
]


def _expected(field: str, value: str, reason: str, *, longest: int = 100) -> tuple[int, str]:
    """The status and detail the API answers for ``value`` in ``field``."""
    if len(value) > longest:  # the schema's bound, checked before the service's rule
        return 422, f"{field}: String should have at most {longest} characters"
    return 400, f"{field}: {reason}; {RULE}"


def _qrels() -> SimpleUploadedFile:
    return SimpleUploadedFile("q.txt", b"q1 0 d1 1\n", content_type="text/plain")


@pytest.mark.parametrize(("value", "reason"), HOSTILE)
def test_a_qrel_set_name_breaking_the_rule_is_refused(api_as, tiny_dataset, value, reason):
    answer = api_as("admin").post("/api/v1/datasets/tiny/qrels", {"name": value, "qrels": _qrels()})

    assert (answer.status_code, answer.json()["detail"]) == _expected("name", value, reason)
    assert list(QrelSet.objects.values_list("name", flat=True)) == ["test"]
    assert not Operation.objects.exists()


@pytest.mark.parametrize(("value", "reason"), HOSTILE)
def test_a_dataset_slug_breaking_the_rule_is_refused(api_as, beir_zip, value, reason):
    archive = SimpleUploadedFile("b.zip", beir_zip(), content_type="application/zip")

    answer = api_as("admin").post(
        "/api/v1/datasets", {"name": "Tiny BEIR", "slug": value, "archive": archive}
    )

    assert (answer.status_code, answer.json()["detail"]) == _expected("slug", value, reason)
    assert not Dataset.objects.exists() and not Operation.objects.exists()


@pytest.mark.parametrize(
    ("fields", "detail"),
    [
        (
            {"name": "Tiny\u202eBEIR"},
            "name: it holds a control or invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)",
        ),
        ({"name": "x" * 201}, "name: String should have at most 200 characters"),
        (
            {"name": "Tiny", "licence": "y" * 300},
            "licence: it has 300 characters, at most 200 are allowed",
        ),
    ],
)
def test_a_dataset_title_or_licence_out_of_bounds_is_refused(api_as, beir_zip, fields, detail):
    archive = SimpleUploadedFile("b.zip", beir_zip(), content_type="application/zip")

    answer = api_as("admin").post("/api/v1/datasets", {**fields, "archive": archive})

    # Over the schema's length: 422 from the schema; otherwise 400 from the service.
    assert answer.status_code == (422 if "String should" in detail else 400)
    assert answer.json()["detail"] == detail
    assert not Operation.objects.exists()


@pytest.mark.parametrize(("value", "reason"), HOSTILE)
def test_a_run_name_breaking_the_rule_is_refused(api_as, tiny_dataset, value, reason):
    run = SimpleUploadedFile("r.txt", b"q1 Q0 d1 1 1.0 t\n", content_type="text/plain")

    answer = api_as("admin").post("/api/v1/datasets/tiny/runs", {"name": value, "run": run})

    assert (answer.status_code, answer.json()["detail"]) == _expected("name", value, reason)
    assert not Operation.objects.exists()


def test_a_5000_character_pool_name_is_refused_before_the_database(api_as, tiny_dataset):
    answer = api_as("admin").post(
        "/api/v1/datasets/tiny/pools",
        {"qrels": "test", "runs": ["bm25"], "name": "p" * 5000},
        content_type="application/json",
    )

    assert answer.status_code == 422
    assert answer.json()["detail"] == "name: String should have at most 100 characters"
    assert not Operation.objects.exists()
