"""Qrels naming ids the dataset lacks are refused with the option that would import them
anyway, worded for the interface that received the file: the command's flag, the API's JSON
field, the upload form's control and choice. None of the three names another's words."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from core.fixes import OptionFix
from corpora.models import Operation, QrelSet
from corpora.services.datasets import UNKNOWN_IDS_FIX
from corpora.services.operations import operation_run

BAD_QRELS = "q1 0 d1 1\nq2 0 d9 1\n"  # d9 is not a document of "tiny"
REASON = "qrels name 0 unknown query id(s) and 1 unknown document id(s) in dataset 'tiny'"


def _bad_file(tmp_path):
    path = tmp_path / "bad.qrels"
    path.write_text(BAD_QRELS, encoding="utf-8")
    return path


def test_the_fix_is_worded_for_each_interface():
    fix = UNKNOWN_IDS_FIX
    assert fix.words("cli") == "pass --unknown-ids drop to skip those rows (counted and listed)"
    assert fix.words("api") == 'send "unknown_ids": "drop" to skip those rows (counted and listed)'
    assert fix.words("browser", "Unknown ids", "drop those rows, counted") == (
        'choose "drop those rows, counted" for "Unknown ids" to skip those rows (counted and '
        "listed)"
    )
    assert OptionFix("allow_partial", True, "to go on").words("browser", "Allow partial") == (
        'tick "Allow partial" to go on'
    )
    with pytest.raises(ValueError, match="interface must be one of"):
        fix.words("email")


@pytest.mark.django_db
def test_the_command_names_its_flag(tiny_dataset, tmp_path):
    with pytest.raises(CommandError) as caught:
        call_command("import_qrels", "tiny", str(_bad_file(tmp_path)), "--name", "extra")
    message = str(caught.value)
    assert f"{REASON}; pass --unknown-ids drop to skip those rows (counted and listed)" in message
    assert "unknown document id 'd9'" in message
    assert not QrelSet.objects.filter(name="extra").exists()


@pytest.mark.django_db
def test_the_api_names_its_json_field(tiny_dataset, api_as):
    api = api_as("admin")
    upload = SimpleUploadedFile("bad.qrels", BAD_QRELS.encode())
    answer = api.post("/api/v1/datasets/tiny/qrels", {"name": "extra", "qrels": upload})
    assert answer.status_code == 202, answer.content
    operation_run(operation_id=answer.json()["id"])  # the step the worker would run
    body = api.get(answer.json()["url"]).json()
    assert body["status"] == "failed"
    assert body["error"].startswith(f"import failed, nothing imported: bad.qrels:2: {REASON}\n")
    assert body["error"].endswith(
        '\nTo get past this: send "unknown_ids": "drop" to skip those rows (counted and listed)'
    )
    assert "--" not in body["error"]
    assert body["result"]["fix"] == {
        "key": "unknown_ids",
        "value": "drop",
        "purpose": "to skip those rows (counted and listed)",
    }
    assert not QrelSet.objects.filter(name="extra").exists()


@pytest.mark.django_db
def test_the_operation_page_names_the_forms_control(tiny_dataset, client_as):
    client = client_as("admin")
    upload = SimpleUploadedFile("bad.qrels", BAD_QRELS.encode())
    answer = client.post(
        "/datasets/tiny/actions/qrels/",
        {"name": "extra", "fmt": "trec", "unknown_ids": "reject", "qrels": upload},
    )
    assert answer.status_code == 302
    operation = Operation.objects.get()
    operation_run(operation_id=operation.pk)
    page = client.get(f"/operations/{operation.pk}/").content.decode()
    start = page.index('<p id="operation-fix">')
    assert page[start : page.index("</p>", start)] == (
        '<p id="operation-fix">To get past this, upload again and choose &quot;drop those '
        "rows, counted&quot; for &quot;Unknown ids&quot; to skip those rows (counted and "
        "listed)."
    )
    error = page[page.index('id="operation-error"') : page.index("</pre>")]
    assert "unknown document id &#x27;d9&#x27;" in error
    assert "--" not in error and "pass " not in error
