"""BEIR qrels may or may not start with a header; no data row is ever taken for one."""

import pytest

from corpora.formats import FormatError, parse_beir_qrels
from corpora.models import Qrel
from corpora.services import dataset_import_beir


def rows(path):
    return [(r.line, r.query_id, r.doc_id, r.relevance) for r in parse_beir_qrels(path)]


def test_a_header_line_is_skipped_and_every_data_row_is_kept(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t2\n")
    assert rows(path) == [(2, "q1", "d1", 1), (3, "q2", "d3", 2)]


def test_a_headerless_file_keeps_its_first_row(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("q1\td1\t1\nq2\td3\t2\n")
    assert rows(path) == [(1, "q1", "d1", 1), (2, "q2", "d3", 2)]


def test_a_header_after_the_first_line_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("q1\td1\t1\nquery-id\tcorpus-id\tscore\n")
    with pytest.raises(FormatError) as err:
        rows(path)
    assert str(err.value) == f"{path}:2: relevance 'score' is not a number"


def test_a_score_written_as_1_point_0_is_read_as_1(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("q1\td1\t1.0\n")
    assert rows(path) == [(1, "q1", "d1", 1)]


def test_a_fractional_score_is_rejected_with_file_and_line(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t0.5\n")
    with pytest.raises(FormatError) as err:
        rows(path)
    assert str(err.value) == f"{path}:3: relevance '0.5' is not a whole number"


@pytest.mark.django_db
def test_headerless_and_headed_imports_store_the_same_rows(tiny_beir, tmp_path):
    headed = tiny_beir(qrels={"test": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n"})
    dataset_import_beir(path=headed, name="headed")
    (headed / "qrels" / "test.tsv").write_text("q1\td1\t1\nq2\td3\t1\n")
    dataset_import_beir(path=headed, name="headerless")
    for slug in ("headed", "headerless"):
        got = sorted(
            Qrel.objects.filter(qrel_set__dataset__slug=slug).values_list(
                "query__query_id", "document__doc_id", "relevance"
            )
        )
        assert got == [("q1", "d1", 1), ("q2", "d3", 1)]


@pytest.mark.django_db
def test_a_fractional_score_changes_nothing_in_the_database(tiny_beir, table_counts):
    folder = tiny_beir(qrels={"test": "q1\td1\t1\nq2\td3\t0.5\n"})
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="bad")
    assert str(err.value) == f"{folder}/qrels/test.tsv:2: relevance '0.5' is not a whole number"
    assert table_counts() == before
