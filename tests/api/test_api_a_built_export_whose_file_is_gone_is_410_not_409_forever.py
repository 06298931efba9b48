"""A done export whose file has left the server's disk is answered 410 with the way back (a
POST builds it again), never the 409 "not ready: poll" that polling could never change."""

import pytest

from assess.models import ExportFile


@pytest.mark.django_db
def test_a_done_export_without_its_file_is_gone_and_a_pending_one_is_not_ready(
    api_as, tmp_path, settings
):
    settings.VAR_DIR = tmp_path / "var"
    api = api_as("researcher")
    gone = ExportFile.objects.create(
        kind=ExportFile.Kind.TREC, key="k-gone", status=ExportFile.Status.DONE,
        filename="x.trec", sha256="0" * 64,
    )  # fmt: skip
    answer = api.get(f"/api/v1/exports/{gone.pk}/download")
    assert (answer.status_code, answer.json()) == (
        410,
        {
            "detail": f"export {gone.pk} was built but its file is gone from the server's "
            "disk: POST the refined set's export URL to build it again"
        },
    )
    pending = ExportFile.objects.create(kind=ExportFile.Kind.TREC, key="k-pending")
    answer = api.get(f"/api/v1/exports/{pending.pk}/download")
    assert (answer.status_code, answer.json()) == (
        409,
        {"detail": f"export {pending.pk} is pending, not ready: poll /api/v1/exports/{pending.pk}"},
    )
