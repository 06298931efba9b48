"""A refined set's page offers the benchmark zip first among its downloads; asking for it runs
the export job (a second click reuses it), the fragment polls, then links the zip with its
sha256, and the download is that zip."""

import hashlib
import io
import zipfile

import pytest
from django.urls import reverse

from assess.models import ExportFile
from tests.fixtures.ui import html_elements

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.mark.django_db
def test_the_refined_set_page_offers_the_benchmark_download(refined, var_dir, client_as):
    page = client_as("researcher").get(
        reverse("refined:refined_detail", args=["holes", "test-dream"])
    )
    html = page.content.decode()
    elements, _ = html_elements(html)
    start = reverse("refined:export_start", args=["holes", "test-dream", "benchmark"])
    posts = [attrs["hx-post"] for tag, attrs in elements if tag == "form" and "hx-post" in attrs]
    assert posts[0] == start
    assert "Benchmark: corpus, queries, refined qrels and datasheet (BEIR zip)" in html
    assert any(attrs.get("id") == "export-benchmark" for _, attrs in elements)


@pytest.mark.django_db
def test_the_export_flow_produces_the_zip(
    refined, var_dir, client_as, django_capture_on_commit_callbacks
):
    client = client_as("researcher")
    start = reverse("refined:export_start", args=["holes", "test-dream", "benchmark"])
    with django_capture_on_commit_callbacks(execute=False) as queued:
        first = client.post(start, **HTMX)
        second = client.post(start, **HTMX)
    assert first.status_code == second.status_code == 200
    assert len(queued) == 1 and ExportFile.objects.count() == 1
    export = ExportFile.objects.get()
    assert (export.kind, export.status) == ("benchmark", "pending")
    status_url = reverse("refined:export_status", args=[export.pk])
    elements, _ = html_elements(first.content.decode())
    poller = next(attrs for _, attrs in elements if attrs.get("id") == "export-benchmark")
    assert poller["hx-get"] == status_url and poller["hx-trigger"] == "every 2s"

    for callback in queued:
        callback()
    done = client.get(status_url, **HTMX)
    export.refresh_from_db()
    html = done.content.decode()
    elements, _ = html_elements(html)
    fragment = next(attrs for _, attrs in elements if attrs.get("id") == "export-benchmark")
    assert "hx-get" not in fragment
    download = reverse("refined:export_download", args=[export.pk])
    assert ("a", {"href": download, "download": None}) in elements
    assert export.sha256 in html and "Download holes-test-dream.benchmark.zip" in html

    response = client.get(download)
    body = b"".join(response.streaming_content)
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == (
        'attachment; filename="holes-test-dream.benchmark.zip"'
    )
    assert response["X-Checksum-SHA256"] == hashlib.sha256(body).hexdigest() == export.sha256
    assert export.bytes == len(body) and export.rows == 8
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert archive.namelist() == [
            "holes/README.md",
            "holes/corpus.jsonl",
            "holes/queries.jsonl",
            "holes/qrels/test.tsv",
        ]
        assert archive.read("holes/README.md").startswith(b"# holes: refined qrels `test-dream`")


@pytest.mark.django_db
def test_annotators_cannot_ask_for_the_benchmark(refined, var_dir, client_as):
    start = reverse("refined:export_start", args=["holes", "test-dream", "benchmark"])
    assert client_as("annotator").post(start).status_code == 403
    assert ExportFile.objects.count() == 0
