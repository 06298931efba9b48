"""A .gz in an upload counts as the bytes it decompresses to: an archive holding
corpus.jsonl.gz, separate .gz files, a qrels or run .gz over DREAM_UPLOAD_MAX_UNPACKED_BYTES
fail naming the file, import nothing and leave no upload folder; so does a line longer than
corpora.uploads.MAX_LINE_BYTES. An operator's own file imported with a command is held to
neither."""

import gzip
import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from corpora.models import Dataset, Document, QrelSet, Run
from tests.fixtures.api import wait_for
from tests.fixtures.datasets import TINY_CORPUS, TINY_QUERIES

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 100_000
BIG = json.dumps({"_id": "d1", "title": "", "text": "x " * 1_000_000}) + "\n"  # 2 MB, one line
QUERIES = json.dumps({"_id": "q1", "text": "x"}) + "\n"
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"


@pytest.fixture
def limited(settings, tmp_path):
    settings.VAR_DIR = tmp_path / "var"
    settings.DREAM_UPLOAD_MAX_UNPACKED_BYTES = LIMIT
    return tmp_path / "var" / "uploads"


def _wait(api, answer):
    assert answer.status_code == 202, answer.content
    url = answer.json()["url"]
    return wait_for(lambda: api.get(url).json(), lambda o: o["status"] in ("done", "failed"))


def _archive(members: dict[str, bytes]) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return SimpleUploadedFile("b.zip", buffer.getvalue(), "application/zip")


def _jsonl(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_an_archive_holding_a_gz_corpus_past_the_limit_imports_nothing(api_as, limited):
    archive = _archive(
        {
            "b/corpus.jsonl.gz": gzip.compress(BIG.encode()),
            "b/queries.jsonl": QUERIES.encode(),
            "b/qrels/test.tsv": QRELS.encode(),
        }
    )
    assert archive.size < 10_000  # the archive itself is far under the limit
    api = api_as("admin")

    operation = _wait(api, api.post("/api/v1/datasets", {"name": "Big", "archive": archive}))

    assert operation["status"] == "failed"
    assert operation["error"] == (
        "import failed, nothing imported: b/corpus.jsonl.gz: unpacks to more than the "
        "upload's limit of 100,000 bytes"
    )
    assert not Dataset.objects.exists() and not Document.objects.exists()
    assert list(limited.iterdir()) == []


def test_separate_gz_files_past_the_limit_in_all_import_nothing(api_as, limited):
    corpus = _jsonl(TINY_CORPUS)
    queries = _jsonl([{"_id": f"q{i}", "text": "y" * 990} for i in range(101)])  # > 100 kB
    files = {
        "corpus": SimpleUploadedFile("corpus.jsonl.gz", gzip.compress(corpus.encode())),
        "queries": SimpleUploadedFile("queries.jsonl.gz", gzip.compress(queries.encode())),
        "qrels": SimpleUploadedFile("test.tsv", QRELS.encode()),
    }
    api = api_as("admin")

    operation = _wait(api, api.post("/api/v1/datasets", {"name": "Big", **files}))

    assert operation["error"] == (
        "import failed, nothing imported: queries.jsonl.gz: unpacks to more than the "
        "upload's limit of 100,000 bytes"
    )
    assert not Dataset.objects.exists()
    assert list(limited.iterdir()) == []


def test_a_qrels_or_run_gz_past_the_limit_adds_nothing_to_the_dataset(
    api_as, limited, tiny_dataset
):
    qrels = gzip.compress(("q1 0 d1 1\n" * 10_001).encode())  # 100,010 bytes
    run = gzip.compress(("q1 Q0 d1 1 1.0 big\n" * 5_300).encode())  # 100,700 bytes
    api = api_as("admin")

    failed_qrels = _wait(
        api,
        api.post(
            "/api/v1/datasets/tiny/qrels",
            {"name": "big", "qrels": SimpleUploadedFile("big.tsv.gz", qrels)},
        ),
    )
    failed_run = _wait(
        api,
        api.post("/api/v1/datasets/tiny/runs", {"run": SimpleUploadedFile("big.run.gz", run)}),
    )

    limit = "unpacks to more than the upload's limit of 100,000 bytes"
    assert failed_qrels["error"] == f"import failed, nothing imported: big.tsv.gz: {limit}"
    assert failed_run["error"] == f"import failed, nothing imported: big.run.gz: {limit}"
    assert list(QrelSet.objects.values_list("name", flat=True)) == ["test"]
    assert list(Run.objects.values_list("name", flat=True)) == ["bm25"]
    assert list(limited.iterdir()) == []


def test_a_line_over_the_cap_is_named_by_file_and_line(api_as, limited, monkeypatch):
    monkeypatch.setattr("corpora.uploads.MAX_LINE_BYTES", 1000)
    corpus = _jsonl(TINY_CORPUS[:1] + [{"_id": "d2", "title": "", "text": "z" * 1000}])
    archive = _archive(
        {
            "b/corpus.jsonl": corpus.encode(),
            "b/queries.jsonl": _jsonl(TINY_QUERIES).encode(),
            "b/qrels/test.tsv": QRELS.encode(),
        }
    )
    api = api_as("admin")

    operation = _wait(api, api.post("/api/v1/datasets", {"name": "Long", "archive": archive}))

    assert operation["error"] == (
        "import failed, nothing imported: b/corpus.jsonl:2: a line longer than 1,000 bytes"
    )
    assert not Dataset.objects.exists()


def test_a_command_imports_the_operators_own_gz_past_the_limit(limited, tmp_path, monkeypatch):
    monkeypatch.setattr("corpora.uploads.MAX_LINE_BYTES", 1000)
    folder = tmp_path / "own"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl.gz").write_bytes(gzip.compress(BIG.encode()))
    (folder / "queries.jsonl").write_text(QUERIES)
    (folder / "qrels" / "test.tsv").write_text(QRELS)

    call_command("import_beir", str(folder), "--name", "Own", stdout=io.StringIO())

    assert len(Document.objects.get().text) == 2_000_000  # "x " * 10**6, kept as it was
