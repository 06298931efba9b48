"""On a refined set's page a researcher asks for an export: the fragment polls while the job
is pending, then shows the download link and the sha256; clicking twice reuses the job; the
download is the file with that checksum."""

import hashlib

import pytest
from django.urls import reverse

from assess.models import ExportFile
from tests.fixtures.ui import html_elements, html_tables

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.mark.django_db
def test_the_fragment_polls_then_links_the_file_with_its_checksum(
    refined, var_dir, client_as, django_capture_on_commit_callbacks
):
    client = client_as("researcher")
    start = reverse("refined:export_start", args=["holes", "test-dream", "labels"])
    with django_capture_on_commit_callbacks(execute=False) as queued:
        first = client.post(start, **HTMX)
        second = client.post(start, **HTMX)
    assert first.status_code == second.status_code == 200
    assert len(queued) == 1 and ExportFile.objects.count() == 1
    export = ExportFile.objects.get()
    status_url = reverse("refined:export_status", args=[export.pk])
    elements, _ = html_elements(first.content.decode())
    poller = next(attrs for tag, attrs in elements if attrs.get("id") == "export-labels")
    assert poller["hx-get"] == status_url
    assert poller["hx-trigger"] == "every 2s"
    assert "pending" in first.content.decode()

    for callback in queued:
        callback()
    done = client.get(status_url, **HTMX)
    export.refresh_from_db()
    html = done.content.decode()
    elements, _ = html_elements(html)
    fragment = next(attrs for tag, attrs in elements if attrs.get("id") == "export-labels")
    assert "hx-get" not in fragment  # polling stops once done
    download = reverse("refined:export_download", args=[export.pk])
    assert ("a", {"href": download, "download": None}) in elements
    assert export.sha256 in html and len(export.sha256) == 64

    response = client.get(download)
    body = b"".join(response.streaming_content)
    assert response["Content-Disposition"] == (
        'attachment; filename="holes-test-dream.labels.jsonl"'
    )
    assert response["X-Checksum-SHA256"] == hashlib.sha256(body).hexdigest() == export.sha256
    assert body.count(b"\n") == 8


@pytest.mark.django_db
def test_the_refined_set_page_shows_its_counts_and_export_buttons(refined, var_dir, client_as):
    response = client_as("admin").get(
        reverse("refined:refined_detail", args=["holes", "test-dream"])
    )
    assert response.status_code == 200
    html = response.content.decode()
    elements, inline_scripts = html_elements(html)
    assert inline_scripts == []
    assert all("style" not in attrs for _, attrs in elements)
    tables = html_tables(html)
    assert tables[0] == [["Source", "Pairs"], ["consensus", "2"], ["human", "2"]]
    posts = [attrs["hx-post"] for tag, attrs in elements if tag == "form" and "hx-post" in attrs]
    assert [p.rsplit("/", 2)[-2] for p in posts] == [
        "benchmark",
        "labels",
        "trec",
        "beir",
        "disagreements",
        "transcripts",
    ]
    assert "Every pool pair has a final label." in html


@pytest.mark.django_db
def test_annotators_cannot_request_exports(refined, var_dir, client_as):
    start = reverse("refined:export_start", args=["holes", "test-dream", "trec"])
    assert client_as("annotator").post(start).status_code == 403
    assert ExportFile.objects.count() == 0
