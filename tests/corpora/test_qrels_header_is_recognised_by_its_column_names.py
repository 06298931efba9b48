"""A BEIR qrels header is a first line of known column names; any other first line is data,
so a first row with a bad grade is an error naming file and line 1, never a skipped header."""

import pytest

from corpora.formats import FormatError, parse_beir_qrels
from corpora.models import Qrel
from corpora.services import dataset_import_beir


def rows(path):
    return [(r.line, r.query_id, r.doc_id, r.relevance) for r in parse_beir_qrels(path)]


@pytest.mark.django_db
def test_a_first_row_with_a_word_for_a_score_is_an_error_and_imports_nothing(
    tiny_beir, table_counts
):
    folder = tiny_beir(qrels={"test": "q1\td1\tx\nq2\td3\t1\n"})
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="bad")
    assert str(err.value) == f"{folder}/qrels/test.tsv:1: relevance 'x' is not a number"
    assert table_counts() == before


def test_a_single_row_with_a_word_for_a_score_is_a_bad_grade_not_an_empty_file(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("q1 d1 high\n")
    with pytest.raises(FormatError) as err:
        rows(path)
    assert str(err.value) == f"{path}:1: relevance 'high' is not a number"


def test_a_header_with_only_its_score_column_named_is_a_data_row(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("q1\td1\tscore\nq2\td3\t1\n")
    with pytest.raises(FormatError) as err:
        rows(path)
    assert str(err.value) == f"{path}:1: relevance 'score' is not a number"


@pytest.mark.parametrize(
    "header",
    [
        "query-id\tcorpus-id\tscore",
        "query_id\tcorpus_id\tscore",
        "Query-ID\tCorpus-ID\tScore",
        "qid\tdocid\trelevance",
        "qid doc-id label",
        "QUERY_ID  DOC_ID  RELEVANCE",
        "topic\tdoc\tgrade",
    ],
)
def test_a_header_of_known_column_names_is_skipped_and_every_row_kept(tmp_path, header):
    path = tmp_path / "test.tsv"
    path.write_text(f"{header}\nq1\td1\t1\nq2\td3\t2\n")
    assert rows(path) == [(2, "q1", "d1", 1), (3, "q2", "d3", 2)]


@pytest.mark.django_db
def test_a_renamed_header_imports_the_same_rows_as_the_beir_header(tiny_beir):
    folder = tiny_beir(qrels={"test": "qid\tdocid\trelevance\nq1\td1\t1\nq2\td3\t1\n"})
    dataset_import_beir(path=folder, name="renamed")
    assert sorted(Qrel.objects.values_list("query__query_id", "document__doc_id", "relevance")) == [
        ("q1", "d1", 1),
        ("q2", "d3", 1),
    ]
