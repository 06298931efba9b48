"""Exports are deterministic: the same input gives the same bytes, whose sha256 is recorded
and shown; TREC and BEIR exports are byte-identical to export_qrels."""

import hashlib
import io

import pytest

from assess.refined.exports import export_file_write, export_path, export_request
from corpora.services import qrels_export

KINDS = ["trec", "beir", "labels", "disagreements", "transcripts", "benchmark"]


def source(world, kind):
    return {"pool": world.pool} if kind == "transcripts" else {"qrel_set": world.refined}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_two_exports_of_the_same_input_are_byte_identical(refined, tmp_path, kind):
    first = export_file_write(kind=kind, path=tmp_path / "a", **source(refined, kind))
    second = export_file_write(kind=kind, path=tmp_path / "b", **source(refined, kind))
    data = (tmp_path / "a").read_bytes()
    assert data == (tmp_path / "b").read_bytes()
    assert first == second == (first[0], len(data), hashlib.sha256(data).hexdigest())
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["trec", "beir"])
def test_qrels_exports_match_export_qrels(refined, tmp_path, fmt):
    export_file_write(kind=fmt, path=tmp_path / "x", qrel_set=refined.refined)
    expected = io.StringIO()
    qrels_export(qrel_set=refined.refined, out=expected, fmt=fmt)
    assert (tmp_path / "x").read_bytes() == expected.getvalue().encode("utf-8")


@pytest.mark.django_db
def test_the_job_records_rows_bytes_and_the_sha256_of_its_file(
    refined, var_dir, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        export, created = export_request(kind="labels", qrel_set=refined.refined)
    export.refresh_from_db()
    data = export_path(export=export).read_bytes()
    assert created and export.status == "done"
    assert (export.rows, export.bytes) == (8, len(data))
    assert export.sha256 == hashlib.sha256(data).hexdigest()
    assert export_path(export=export).parent == var_dir / "exports"
    assert export.filename == "holes-test-dream.labels.jsonl"
