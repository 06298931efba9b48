"""An operation that fails with an error no step words for itself (a full disk, a permission)
stores it for the page and the API, which researchers read: the upload folder's path is taken
out as for the steps' own errors, and any other path inside DREAM_VAR_DIR is named from the
setting. The full paths go to the server's log only."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from corpora.models import Dataset, Operation
from corpora.services.operations import STEPS, operation_create, operation_run
from corpora.uploads import error_relative

pytestmark = pytest.mark.django_db


@pytest.fixture
def var_dir(settings, tmp_path):
    settings.VAR_DIR = tmp_path / "var"
    return settings.VAR_DIR


def test_an_upload_steps_unexpected_error_names_the_file_as_uploaded(
    var_dir, monkeypatch, django_capture_on_commit_callbacks
):
    def step(operation, root):
        raise PermissionError(13, "Permission denied", str(root / "beir" / "corpus.jsonl"))

    monkeypatch.setitem(STEPS, Operation.Kind.IMPORT_BEIR, step)
    files = {
        name: SimpleUploadedFile(f"{name}.txt", b"x\n") for name in ("corpus", "queries", "qrels")
    }
    with django_capture_on_commit_callbacks(execute=False):
        operation = operation_create(kind=Operation.Kind.IMPORT_BEIR, params={}, files=files)

    failed = operation_run(operation_id=operation.pk)

    assert failed.status == Operation.Status.FAILED
    assert failed.error == "PermissionError: [Errno 13] Permission denied: 'corpus.jsonl'"
    assert str(var_dir) not in failed.error


def test_a_steps_unexpected_error_names_a_data_folder_path_from_the_setting(
    var_dir, monkeypatch, django_capture_on_commit_callbacks
):
    def step(operation, root):
        raise OSError(28, "No space left on device", str(var_dir / "indexes" / "3.bin"))

    monkeypatch.setitem(STEPS, Operation.Kind.BUILD_POOL, step)
    dataset = Dataset.objects.create(name="D", slug="d")
    with django_capture_on_commit_callbacks(execute=False):
        operation = operation_create(kind=Operation.Kind.BUILD_POOL, params={}, dataset=dataset)

    failed = operation_run(operation_id=operation.pk)

    assert failed.error == (
        "OSError: [Errno 28] No space left on device: 'DREAM_VAR_DIR/indexes/3.bin'"
    )


def test_the_steps_own_errors_were_already_relative(tmp_path):
    root = tmp_path / "uploads" / "ab12"
    assert error_relative(f"{root}/beir/corpus.jsonl:3: bad", root) == "corpus.jsonl:3: bad"


def test_a_steps_own_error_names_a_data_folder_path_from_the_setting(
    var_dir, monkeypatch, django_capture_on_commit_callbacks
):
    # A worded error (a ValueError, as a step raises for what it knows) naming a file inside
    # DREAM_VAR_DIR but outside the upload folder: named from the setting, as above.
    def step(operation, root):
        raise ValueError(f"{var_dir}/indexes/3.bin: not an index; {var_dir}x/y stays")

    monkeypatch.setitem(STEPS, Operation.Kind.BUILD_POOL, step)
    dataset = Dataset.objects.create(name="D", slug="d")
    with django_capture_on_commit_callbacks(execute=False):
        operation = operation_create(kind=Operation.Kind.BUILD_POOL, params={}, dataset=dataset)

    failed = operation_run(operation_id=operation.pk)

    assert failed.status == Operation.Status.FAILED
    assert failed.error == f"DREAM_VAR_DIR/indexes/3.bin: not an index; {var_dir}x/y stays"


def test_an_upload_steps_own_error_takes_out_both_folders(
    var_dir, monkeypatch, django_capture_on_commit_callbacks
):
    def step(operation, root):
        raise ValueError(f"{root}/beir/corpus.jsonl:3: bad; see {var_dir}/logs/import.txt")

    monkeypatch.setitem(STEPS, Operation.Kind.IMPORT_BEIR, step)
    files = {
        name: SimpleUploadedFile(f"{name}.txt", b"x\n") for name in ("corpus", "queries", "qrels")
    }
    with django_capture_on_commit_callbacks(execute=False):
        operation = operation_create(kind=Operation.Kind.IMPORT_BEIR, params={}, files=files)

    failed = operation_run(operation_id=operation.pk)

    assert failed.error == (
        "import failed, nothing imported: corpus.jsonl:3: bad; see DREAM_VAR_DIR/logs/import.txt"
    )
