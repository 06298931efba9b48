"""Every download of a refined set holding simulated labels says so, so that no file of it
can pass as a real benchmark once saved: its file name starts with ``SIMULATED-`` (the TREC
and BEIR qrels, the labels JSONL, the export jobs' files, the benchmark zip and the qrels
file inside it), the HTTP response carries ``X-DREAM-Simulated-Labels: debate=N; human=M;
stage0=K``, each labels JSONL row says ``"simulated"``, the benchmark's datasheet opens with
the count, and ``export_qrels`` prints it beside the TREC file (which has no room for a comment).
A set without simulated labels keeps its names and gets no header.

The ``holes`` world of tests/fixtures/refine.py with simulated debaters and alice (who
judged the escalated (q2, d3)) as the simulated annotator: (q1, d3) and (q1, d5) keep their
simulated consensus (2 debate labels), (q2, d3) is the simulated annotator's (1 human label),
(q2, d6) is bob's audit (a real human label)."""

import io
import json
import zipfile

import pytest
from django.core.management import call_command

from assess.refined.export_rows import labels_records
from assess.refined.exports import export_file_write, export_request
from tests.fixtures.refine import HOLES_SIMULATED_AGENT, refined_at_share, simulated_world

pytestmark = pytest.mark.django_db

AGENT = HOLES_SIMULATED_AGENT
HEADER = "X-DREAM-Simulated-Labels"


@pytest.fixture
def simulated(refined):
    simulated_world(refined, annotator="alice")
    return refined_at_share(refined, 0.5)


def attachment_name(response) -> str:
    return response["Content-Disposition"].split('filename="')[1].rstrip('"')


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("trec", "SIMULATED-holes-test-dream.qrels"),
        ("beir", "SIMULATED-holes-test-dream.tsv"),
        ("labels", "SIMULATED-holes-test-dream-labels.jsonl"),
    ],
)
def test_the_api_download_is_named_and_headed_simulated(simulated, api_as, fmt, name):
    url = f"/api/v1/datasets/holes/qrels/test-dream/download?format={fmt}"
    response = api_as("researcher").get(url)
    assert response.status_code == 200
    assert attachment_name(response) == name
    assert response[HEADER] == "debate=2; human=1; stage0=0"


@pytest.mark.parametrize("fmt", ["trec", "beir"])
def test_the_pages_download_is_named_and_headed_simulated(simulated, client_as, fmt):
    response = client_as("researcher").get(f"/datasets/holes/qrels/test-dream/{fmt}")
    suffix = ".qrels" if fmt == "trec" else ".tsv"
    assert attachment_name(response) == f"SIMULATED-holes-test-dream{suffix}"
    assert response[HEADER] == "debate=2; human=1; stage0=0"


def test_a_real_set_keeps_its_names_and_gets_no_header(refined, api_as, client_as):
    response = api_as("researcher").get("/api/v1/datasets/holes/qrels/test-dream/download")
    assert attachment_name(response) == "holes-test-dream.qrels"
    assert HEADER not in response
    page = client_as("researcher").get("/datasets/holes/qrels/test-dream/trec")
    assert attachment_name(page) == "holes-test-dream.qrels" and HEADER not in page
    rows = list(labels_records(qrel_set=refined.refined))
    assert {row["simulated"] for row in rows} == {False}
    export, _ = export_request(kind="benchmark", qrel_set=refined.refined)
    assert export.filename == "holes-test-dream.benchmark.zip"


def test_the_export_files_are_named_simulated_and_their_downloads_headed(
    simulated, var_dir, django_capture_on_commit_callbacks, client_as, api_as
):
    with django_capture_on_commit_callbacks(execute=True):
        export, _ = export_request(kind="trec", qrel_set=simulated.refined)
    export.refresh_from_db()
    assert export.filename == "SIMULATED-holes-test-dream.qrels"
    page = client_as("researcher").get(f"/exports/{export.pk}/download/")
    api = api_as("researcher").get(f"/api/v1/exports/{export.pk}/download")
    for response in (page, api):
        assert response.status_code == 200
        assert attachment_name(response) == "SIMULATED-holes-test-dream.qrels"
        assert response[HEADER] == "debate=2; human=1; stage0=0"
    benchmark, _ = export_request(kind="benchmark", qrel_set=simulated.refined)
    assert benchmark.filename == "SIMULATED-holes-test-dream.benchmark.zip"


def test_each_labels_row_says_whether_its_label_is_simulated(simulated):
    rows = {
        (r["query_id"], r["doc_id"]): r["simulated"]
        for r in labels_records(qrel_set=simulated.refined)
    }
    assert rows == {
        ("q1", "d1"): False,
        ("q1", "d2"): False,
        ("q1", "d3"): True,
        ("q1", "d5"): True,
        ("q2", "d3"): True,
        ("q2", "d4"): False,
        ("q2", "d5"): False,
        ("q2", "d6"): False,
    }


def test_the_streamed_labels_lines_say_it_too(simulated, api_as):
    url = "/api/v1/datasets/holes/qrels/test-dream/download?format=labels"
    body = b"".join(api_as("researcher").get(url).streaming_content).decode()
    marked = {
        (r["query_id"], r["doc_id"]) for r in map(json.loads, body.splitlines()) if r["simulated"]
    }
    assert marked == {("q1", "d3"), ("q1", "d5"), ("q2", "d3")}


def test_the_benchmark_zip_names_its_qrels_and_opens_its_datasheet_with_the_count(
    simulated, tmp_path
):
    export_file_write(kind="benchmark", path=tmp_path / "b.zip", qrel_set=simulated.refined)
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        names = archive.namelist()
        readme = archive.read("holes/README.md").decode()
    assert "holes/qrels/SIMULATED-test.tsv" in names
    assert readme.splitlines()[2] == (
        "**SIMULATED labels in this set's final labels: 2 debate labels from simulated "
        "debaters (backend simulated), 1 human label from the simulated annotator "
        "(simulate_annotators); for planning a study, never a benchmark.**"
    )


def test_export_qrels_prints_the_count_beside_the_file(simulated, tmp_path):
    err = io.StringIO()
    out = tmp_path / "x.qrels"
    call_command("export_qrels", "holes", "test-dream", "--out", str(out), stderr=err)
    assert (
        "SIMULATED labels in qrel set 'test-dream': debate=2; human=1; stage0=0 (for planning "
        "a study, never a benchmark)"
    ) in err.getvalue()
    err = io.StringIO()
    call_command("export_qrels", "holes", "test", "--out", str(out), stderr=err)
    assert "SIMULATED" not in err.getvalue()


def test_a_pools_transcripts_of_simulated_debaters_are_named_and_headed_simulated(
    simulated, var_dir, django_capture_on_commit_callbacks, client_as
):
    from debates.models import Debate

    debated = Debate.objects.filter(job=simulated.job, turns__isnull=False).distinct().count()
    with django_capture_on_commit_callbacks(execute=True):
        export, _ = export_request(kind="transcripts", pool=simulated.pool)
    export.refresh_from_db()
    assert export.filename == "SIMULATED-holes-p.transcripts.jsonl"
    response = client_as("researcher").get(f"/exports/{export.pk}/download/")
    assert attachment_name(response) == "SIMULATED-holes-p.transcripts.jsonl"
    assert response[HEADER] == f"debate={debated}; human=0; stage0=0"
    # The header counts the file's own turns (up to the last one its key records): none
    # before the first turn.
    from assess.refined.exports import pool_simulated_counts

    assert pool_simulated_counts(pool=simulated.pool, last_turn=0) == {
        "debate": 0,
        "human": 0,
        "stage0": 0,
    }


def test_a_pools_real_transcripts_keep_their_name(refined, var_dir):
    export, _ = export_request(kind="transcripts", pool=refined.pool)
    assert export.filename == "holes-p.transcripts.jsonl"
