"""A bad upload fails with the same ``file:line: reason`` as ``import_beir`` (paths as
inside the upload) and imports nothing; an unsafe archive is refused; an upload over the
limit is refused before its body is read."""

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from corpora.models import Dataset
from tests.fixtures.api import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _zip(data: bytes):
    return SimpleUploadedFile("bad.zip", data, content_type="application/zip")


def _upload_and_wait(api, **files):
    answer = api.post("/api/v1/datasets", {"name": "Bad", **files})
    assert answer.status_code == 202, answer.content
    url = answer.json()["url"]
    return wait_for(lambda: api.get(url).json(), lambda op: op["status"] in ("done", "failed"))


def test_a_bad_qrels_line_fails_with_the_same_message_as_import_beir(api_as, beir_zip, tiny_beir):
    bad_qrels = {"test": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\n"}
    operation = _upload_and_wait(api_as("admin"), archive=_zip(beir_zip(qrels=bad_qrels)))

    assert operation["status"] == "failed"
    folder = tiny_beir(qrels=bad_qrels)
    with pytest.raises(CommandError) as command:
        call_command("import_beir", str(folder), "--name", "Bad")
    expected = str(command.value).replace(str(folder) + "/", "tinybeir/")
    assert operation["error"] == expected
    assert operation["error"].startswith(
        "import failed, nothing imported: tinybeir/qrels/test.tsv:3: "
    )
    assert not Dataset.objects.exists()


def test_an_archive_escaping_its_folder_is_refused_before_anything_is_written(api_as, tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../../evil.txt", "x")
    operation = _upload_and_wait(api_as("admin"), archive=_zip(buffer.getvalue()))

    assert operation["status"] == "failed"
    assert operation["error"] == (
        "import failed, nothing imported: bad.zip: member '../../evil.txt' would be written "
        "outside the folder"
    )
    assert not Dataset.objects.exists()


def test_a_file_that_is_no_archive_is_named(api_as):
    operation = _upload_and_wait(api_as("admin"), archive=_zip(b"not a zip at all"))
    assert operation["error"].endswith("bad.zip: not a .zip or .tar.gz archive")


class _Body(io.BytesIO):
    """A request body that records how much of it was read."""

    read_bytes = 0

    def read(self, size=-1):
        data = super().read(size)
        _Body.read_bytes += len(data)
        return data

    def readline(self, size=-1):
        data = super().readline(size)
        _Body.read_bytes += len(data)
        return data


def test_an_upload_over_the_limit_is_refused_without_reading_its_body(api_as, settings):
    settings.DREAM_UPLOAD_MAX_BYTES = 1000
    api = api_as("admin")
    body = _Body(b"x" * 5000)
    _Body.read_bytes = 0

    answer = api.generic(
        "POST",
        "/api/v1/datasets",
        data=b"",
        content_type="multipart/form-data; boundary=B",
        **{"wsgi.input": body, "CONTENT_LENGTH": "5000"},
    )

    assert answer.status_code == 413
    assert answer.json() == {"detail": "upload: 5,000 bytes is over the limit of 1,000 bytes"}
    assert _Body.read_bytes == 0


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("split", "../../../../tmp/evil", "it holds a path separator"),
        ("slug", "my set", "it holds U+0020 SPACE"),
    ],
)
def test_a_split_or_slug_that_is_not_a_slug_is_refused_before_anything_is_written(
    api_as, beir_zip, field, value, reason
):
    answer = api_as("admin").post(
        "/api/v1/datasets",
        {"name": "X", field: value, "archive": _zip(beir_zip())},
    )
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        f"{field}: {reason}; a name is 1-100 letters, digits, '.', '_' or '-', starting with a "
        "letter or digit"
    )
    assert not Dataset.objects.exists()
