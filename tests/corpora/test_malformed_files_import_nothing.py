"""Empty files, truncated last lines and invalid JSON give a clear error and import nothing."""

import gzip
import json
import zlib

import pytest

from corpora.formats import FormatError
from corpora.services import dataset_import_beir, qrels_import


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("part", "content", "expected"),
    [
        ("corpus", "", "corpus.jsonl: file is empty (no records)"),
        ("queries", "\n\n", "queries.jsonl: file is empty (no records)"),
        (
            "corpus",
            '{"_id": "d1", "text": "a"}\n{"_id": "d3", "te',
            "corpus.jsonl:2: invalid JSON (Unterminated string starting at at column 15)",
        ),
        (
            "queries",
            '{"_id": "q1", "text": "a"}\nnot json\n',
            "queries.jsonl:2: invalid JSON (Expecting value at column 1)",
        ),
        ("corpus", '{"_id": "d1"}\n', "corpus.jsonl:1: missing 'text'"),
        ("corpus", '["d1", "a"]\n', "corpus.jsonl:1: expected a JSON object"),
        ("qrels", "", "qrels/test.tsv: file is empty (no qrels)"),
        (
            "qrels",
            "q1\td1\t1\nq2\td3",
            "qrels/test.tsv:2: expected 3 fields (query-id corpus-id score), got 2",
        ),
    ],
)
def test_a_bad_beir_file_is_named_with_its_line_and_nothing_is_imported(
    tiny_beir, table_counts, part, content, expected
):
    folder = tiny_beir(**({"qrels": {"test": content}} if part == "qrels" else {part: content}))
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="bad")
    assert str(err.value) == f"{folder}/{expected}"
    assert table_counts() == before


@pytest.mark.django_db
def test_a_truncated_trec_qrels_line_imports_nothing(tiny_beir, tmp_path, table_counts):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "cut.qrels"
    path.write_text("q1 0 d1 1\nq2 0 d3")
    before = table_counts()
    with pytest.raises(FormatError) as err:
        qrels_import(dataset=dataset, path=path, name="cut")
    assert str(err.value) == f"{path}:2: expected 4 fields (qid iter docid rel), got 3"
    assert table_counts() == before


@pytest.mark.django_db
def test_an_empty_trec_qrels_file_imports_nothing(tiny_beir, tmp_path, table_counts):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "empty.qrels"
    path.write_text("")
    before = table_counts()
    with pytest.raises(FormatError) as err:
        qrels_import(dataset=dataset, path=path, name="empty")
    assert str(err.value) == f"{path}: file is empty (no qrels)"
    assert table_counts() == before


@pytest.mark.django_db
def test_importing_the_same_dataset_twice_is_refused(tiny_beir, table_counts):
    folder = tiny_beir()
    dataset_import_beir(path=folder, name="tiny")
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="tiny")
    assert str(err.value) == f"{folder}: dataset 'tiny' already exists"
    assert table_counts() == before


@pytest.mark.django_db
def test_a_truncated_gzip_corpus_names_the_cut_line_and_imports_nothing(tiny_beir, table_counts):
    folder = tiny_beir()
    (folder / "corpus.jsonl").unlink()
    path = folder / "corpus.jsonl.gz"
    first_two = "".join(json.dumps({"_id": f"d{i}", "text": "solar " * 40}) + "\n" for i in (1, 2))
    with gzip.open(path, "wb") as gz:
        gz.write(first_two.encode())
        # A full flush ends the deflate block: lines 1-2 decode in full, the cut falls in line 3.
        gz.flush(zlib.Z_FULL_FLUSH)
        cut = path.stat().st_size + 5
        gz.write(json.dumps({"_id": "d3", "text": "wind " * 40}).encode() + b"\n")
    path.write_bytes(path.read_bytes()[:cut])
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="cut")
    assert str(err.value) == (
        f"{path}:3: cannot read file "
        "(Compressed file ended before the end-of-stream marker was reached)"
    )
    assert table_counts() == before


@pytest.mark.django_db
def test_an_import_racing_another_of_the_same_slug_is_refused_in_words(
    tiny_beir, table_counts, monkeypatch
):
    # Another import's row is invisible until it commits, so the early check passes and the
    # insert meets the unique index: seen here by hiding the committed row from the check.
    from django.db.models import QuerySet

    from corpora.models import Dataset

    folder = tiny_beir()
    dataset_import_beir(path=folder, name="tiny")
    before = table_counts()
    real_exists = QuerySet.exists

    def exists_but_not_the_slug_check(self):
        return False if self.model is Dataset else real_exists(self)

    monkeypatch.setattr(QuerySet, "exists", exists_but_not_the_slug_check)
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="tiny")
    assert str(err.value) == f"{folder}: dataset 'tiny' already exists"
    monkeypatch.undo()
    assert table_counts() == before
