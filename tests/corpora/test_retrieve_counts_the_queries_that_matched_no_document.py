"""`retrieve` counts the queries it was asked, not only those with entries: a query BM25
shares no term with gets no entry, and the command says how many matched no document,
naming the first few, instead of printing a smaller count of queries as if that were all."""

import io

import pytest
from django.core.management import call_command

from corpora.runs import queries_answered_words
from corpora.services import dataset_import_beir
from tests.fixtures.datasets import write_beir


def test_every_query_answered_is_counted_alone():
    assert queries_answered_words(["q1", "q2"], ["q2", "q1"]) == ("2 queries", "")
    assert queries_answered_words(["q1"], ["q1"]) == ("1 query", "")


def test_the_queries_without_results_are_counted_and_the_first_three_named():
    asked = [f"PLAIN-{n}" for n in range(1000, 1323)]  # 323 asked
    empty = {"PLAIN-1008", "PLAIN-1014", "PLAIN-1016", *(f"PLAIN-{n}" for n in range(1300, 1322))}
    answered = [q for q in asked if q not in empty]
    assert len(empty) == 25 and len(answered) == 298
    assert queries_answered_words(asked, answered) == (
        "298 queries with results",
        "25 of the 323 queries matched no document (e.g. PLAIN-1008, PLAIN-1014, PLAIN-1016, ...)",
    )
    assert queries_answered_words(["a", "b"], ["b"]) == (
        "1 query with results",
        "1 of the 2 queries matched no document (e.g. a)",
    )


@pytest.mark.django_db
def test_the_command_says_which_query_matched_no_document(tmp_path):
    folder = write_beir(
        tmp_path / "terms",
        corpus=[
            {"_id": "d1", "title": "", "text": "solar panel efficiency"},
            {"_id": "d2", "title": "", "text": "wind turbine noise"},
        ],
        queries=[
            {"_id": "q1", "text": "solar"},
            {"_id": "q2", "text": "geothermal"},  # in no document
            {"_id": "q3", "text": "wind"},
        ],
        qrels={"test": "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t0\nq3\td2\t1\n"},
    )
    dataset_import_beir(path=folder, name="terms")
    out = io.StringIO()
    call_command("retrieve", "terms", "--retriever", "bm25", "--no-progress", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(
        "run bm25: BM25 (Lucene IDF, k1=0.9, b=0.4) via bm25s; 2 queries with results, "
        "2 entries in "
    )
    assert lines[1] == "  1 of the 3 queries matched no document (e.g. q2)"
