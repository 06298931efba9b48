"""The benchmark export of a refined set is a zip in BEIR layout: exactly the corpus, the
queries, the refined qrels (byte for byte the ``beir`` export) under ``qrels/<split>.tsv``
and a datasheet README; every document once, in code-point order; the same input gives the
same bytes; a README that would change (a licence edited) makes a new export."""

import hashlib
import io
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command

from assess.refined import benchmark_zip
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from assess.refined.exports import (
    ExportError,
    export_file_write,
    export_key,
    export_request,
    export_stream,
)
from corpora.models import Document
from corpora.services import qrels_export

FILES = [
    "holes/README.md",
    "holes/corpus.jsonl",
    "holes/queries.jsonl",
    "holes/qrels/test.tsv",
]


def write(world, path):
    return export_file_write(kind="benchmark", path=path, qrel_set=world.refined)


@pytest.mark.django_db
def test_the_zip_holds_exactly_the_beir_files_and_the_datasheet(refined, tmp_path):
    rows, size, digest = write(refined, tmp_path / "b.zip")
    data = (tmp_path / "b.zip").read_bytes()
    assert (rows, size, digest) == (8, len(data), hashlib.sha256(data).hexdigest())
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        assert archive.namelist() == FILES
        infos = archive.infolist()
        queries = archive.read("holes/queries.jsonl").decode("utf-8")
        readme = archive.read("holes/README.md").decode("utf-8")
    assert {(i.date_time, i.compress_type, i.external_attr >> 16) for i in infos} == {
        ((1980, 1, 1, 0, 0, 0), zipfile.ZIP_DEFLATED, 0o100644)
    }
    assert queries == (
        '{"_id":"q1","metadata":{},"text":"first question"}\n'
        '{"_id":"q2","metadata":{},"text":"second question"}\n'
    )
    refinement = refined.refined.refinement
    assert readme == datasheet_render(sheet=benchmark_datasheet(refinement=refinement))
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.django_db
def test_the_qrels_file_is_the_beir_export_byte_for_byte(refined, tmp_path):
    write(refined, tmp_path / "b.zip")
    export_file_write(kind="beir", path=tmp_path / "q.tsv", qrel_set=refined.refined)
    expected = io.StringIO()
    qrels_export(qrel_set=refined.refined, out=expected, fmt="beir")
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        qrels = archive.read("holes/qrels/test.tsv")
    assert qrels == (tmp_path / "q.tsv").read_bytes() == expected.getvalue().encode("utf-8")
    assert qrels.startswith(b"query-id\tcorpus-id\tscore\nq1\td1\t1\n")


@pytest.mark.django_db
def test_the_corpus_has_every_document_once_in_code_point_order(refined, tmp_path, monkeypatch):
    # Ids a locale would order otherwise (a < B < é < Z); read two documents a batch.
    for doc_id in ("é7", "a7", "Z7", "B7"):
        Document.objects.create(dataset=refined.dataset, doc_id=doc_id, text=f"text {doc_id}")
    monkeypatch.setattr(benchmark_zip, "BATCH_SIZE", 2)
    write(refined, tmp_path / "b.zip")
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        lines = archive.read("holes/corpus.jsonl").decode("utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    ids = [r["_id"] for r in records]
    assert ids == ["B7", "Z7", "a7", "d1", "d2", "d3", "d4", "d5", "d6", "é7"]
    assert ids == sorted(set(ids)) and len(ids) == Document.objects.count()
    assert records[3] == {"_id": "d1", "title": "Title 1", "text": "text of document 1"}
    assert lines[3] == '{"_id":"d1","text":"text of document 1","title":"Title 1"}'
    assert records[-1] == {"_id": "é7", "title": "", "text": "text é7"}


@pytest.mark.django_db
def test_two_exports_give_identical_bytes(refined, tmp_path):
    first = write(refined, tmp_path / "a.zip")
    second = write(refined, tmp_path / "b.zip")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()
    assert first == second


@pytest.mark.django_db
def test_the_datasheet_reads_the_refinement_its_jobs_and_costs(refined):
    sheet = benchmark_datasheet(refinement=refined.refined.refinement)
    assert (sheet.folder, sheet.split, sheet.refined_name) == ("holes", "test", "test-dream")
    assert (sheet.documents, sheet.queries, sheet.qrels_rows, sheet.pairs) == (6, 2, 8, 4)
    assert dict(sheet.by_source) == {"consensus": 2, "human": 2}
    assert dict(sheet.escalations) == {"disagreement": 1}
    assert sheet.overrides_consensus == 1
    assert [(r.name, sheet.pool_depth) for r in sheet.pool_runs] == [("alpha", 3), ("beta", 3)]
    (job,) = sheet.jobs
    assert (job.job, job.rounds, job.max_tokens, job.max_tokens_cap) == (
        refined.job.pk,
        refined.job.rounds,
        refined.job.max_tokens,
        2 * refined.job.max_tokens,
    )
    assert [(a.name, a.stance) for a in job.agents] == [("A", "relevant"), ("B", "irrelevant")]
    assert all(a.model == refined.job.agents[0].label for a in job.agents)
    assert job.audit.sampled == 1
    assert sheet.costs[-1].startswith("all: 4 labels")


@pytest.mark.django_db
def test_a_readme_that_would_change_makes_a_new_export(
    refined, var_dir, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first, _ = export_request(kind="benchmark", qrel_set=refined.refined)
    again, created = export_request(kind="benchmark", qrel_set=refined.refined)
    assert again.pk == first.pk and not created
    refined.dataset.licence = "CC BY-SA 4.0"
    refined.dataset.save(update_fields=["licence"])
    assert export_key(kind="benchmark", qrel_set=refined.refined) != first.key
    with django_capture_on_commit_callbacks(execute=True):
        second, created = export_request(kind="benchmark", qrel_set=refined.refined)
    assert created and second.pk != first.pk
    second.refresh_from_db()
    assert second.status == "done" and second.filename == "holes-test-dream.benchmark.zip"


@pytest.mark.django_db
def test_only_a_refined_set_makes_a_benchmark_and_only_into_a_file(refined, tmp_path):
    with pytest.raises(ExportError, match="'test' was not refined: only a refined set has a"):
        export_file_write(kind="benchmark", path=tmp_path / "x.zip", qrel_set=refined.test)
    with pytest.raises(ExportError, match="a benchmark export is a zip file"):
        export_stream(kind="benchmark", out=io.StringIO(), qrel_set=refined.refined)
    assert not list(tmp_path.glob("x.zip*"))


@pytest.mark.django_db
def test_the_command_writes_the_zip_and_refuses_stdout(refined, tmp_path):
    err = io.StringIO()
    out = tmp_path / "holes.zip"
    call_command(
        "export_labels", "holes", "test-dream", "--kind", "benchmark", "--out", str(out), stderr=err
    )
    data = out.read_bytes()
    assert err.getvalue().strip() == (
        f"wrote 8 rows ({len(data):,} bytes) to {out}; sha256 {hashlib.sha256(data).hexdigest()}"
    )
    with pytest.raises(CommandError, match="a benchmark export is a zip file"):
        call_command("export_labels", "holes", "test-dream", "--kind", "benchmark", "--out", "-")
