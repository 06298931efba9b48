"""TREC qrels: any whitespace between fields, '#' inside ids, negative grades kept."""

import pytest

from corpora.formats import FormatError, parse_trec_qrels
from corpora.models import Qrel
from corpora.services import dataset_import_beir, qrels_import


def test_tabs_multiple_spaces_and_trailing_whitespace_separate_fields(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("q1\t0\td1\t1\nq1   0  d2 2   \nq2 \t Q0\t d3\t0\t\r\n")
    assert [(r.query_id, r.doc_id, r.relevance) for r in parse_trec_qrels(path)] == [
        ("q1", "d1", 1),
        ("q1", "d2", 2),
        ("q2", "d3", 0),
    ]


def test_a_hash_inside_an_id_is_part_of_the_id(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("1185869 0 D59219#0 1\n#q 0 d#1 2\n")
    assert [(r.query_id, r.doc_id) for r in parse_trec_qrels(path)] == [
        ("1185869", "D59219#0"),
        ("#q", "d#1"),
    ]


def test_a_line_with_three_fields_is_rejected_with_its_number(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("q1 0 d1 1\nq1 d2 1\n")
    with pytest.raises(FormatError) as err:
        list(parse_trec_qrels(path))
    assert str(err.value) == f"{path}:2: expected 4 fields (qid iter docid rel), got 3"


@pytest.mark.django_db
def test_negative_grades_and_hash_ids_are_stored_unchanged(tiny_beir, tmp_path):
    folder = tiny_beir(
        corpus=[
            {"_id": "D59219#0", "text": "a"},
            {"_id": "d1", "text": "b"},
            {"_id": "d3", "text": "c"},
        ],
    )
    dataset = dataset_import_beir(path=folder, name="neg")
    path = tmp_path / "graded.qrels"
    path.write_text("q1 0 D59219#0 -2\nq1\t0\td1\t-1\nq2  0 d3 3 \n")
    qrel_set = qrels_import(dataset=dataset, path=path, name="graded")
    assert sorted(
        Qrel.objects.filter(qrel_set=qrel_set).values_list(
            "query__query_id", "document__doc_id", "relevance"
        )
    ) == [("q1", "D59219#0", -2), ("q1", "d1", -1), ("q2", "d3", 3)]
