"""Requesting the same export twice reuses the pending, running or done job; a vanished
file or changed transcripts start a new one."""

import pytest

from assess.models import ExportFile
from assess.refined.exports import export_path, export_request, export_write
from debates.models import Turn


@pytest.mark.django_db
def test_a_second_request_reuses_the_pending_then_the_done_export(
    refined, var_dir, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as queued:
        first, created_first = export_request(kind="trec", qrel_set=refined.refined)
        second, created_second = export_request(kind="trec", qrel_set=refined.refined)
    assert (created_first, created_second) == (True, False)
    assert first.pk == second.pk and first.status == "pending"
    assert len(queued) == 1  # one job, not two
    for callback in queued:
        callback()
    first.refresh_from_db()
    assert first.status == "done"
    with django_capture_on_commit_callbacks(execute=False) as queued_again:
        third, created_third = export_request(kind="trec", qrel_set=refined.refined)
    assert (third.pk, created_third, len(queued_again)) == (first.pk, False, 0)
    # A second delivery of the task changes nothing.
    assert export_write(export=first).sha256 == first.sha256
    assert ExportFile.objects.count() == 1


@pytest.mark.django_db
def test_a_done_export_whose_file_vanished_is_replaced(
    refined, var_dir, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first, _ = export_request(kind="labels", qrel_set=refined.refined)
    first.refresh_from_db()
    export_path(export=first).unlink()
    with django_capture_on_commit_callbacks(execute=True):
        second, created = export_request(kind="labels", qrel_set=refined.refined)
    first.refresh_from_db()
    second.refresh_from_db()
    assert created and second.pk != first.pk
    assert (first.status, first.error) == ("failed", "file missing")
    assert second.status == "done" and second.sha256 == first.sha256


@pytest.mark.django_db
def test_new_turns_make_the_transcripts_export_a_new_one(
    refined, var_dir, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first, _ = export_request(kind="transcripts", pool=refined.pool)
    Turn.objects.create(
        debate=refined.debate("q1", "d3"), round=2, agent="A", stance="relevant", model="m"
    )
    with django_capture_on_commit_callbacks(execute=True):
        second, created = export_request(kind="transcripts", pool=refined.pool)
    second.refresh_from_db()
    first.refresh_from_db()
    assert created and second.pk != first.pk
    assert (first.rows, second.rows) == (12, 13)
