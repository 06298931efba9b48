"""Duplicate ids and duplicate (query, doc) qrels are rejected, every offending line listed,
unless --on-duplicate keep-max|keep-last is given; the policy is recorded on the QrelSet."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.formats import FormatError
from corpora.models import Document, Qrel, QrelSet, Query
from corpora.services import dataset_import_beir

DUP_QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td3\t1\nq1\td1\t1\nq1\td1\t0\n"


@pytest.mark.django_db
def test_duplicate_document_ids_are_rejected_listing_every_line(tiny_beir, table_counts):
    folder = tiny_beir(
        corpus=[
            {"_id": "d1", "text": "a"},
            {"_id": "d3", "text": "b"},
            {"_id": "d1", "text": "c"},
            {"_id": "d3", "text": "d"},
            {"_id": "d1", "text": "e"},
        ]
    )
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="dups")
    assert str(err.value) == (
        f"{folder}/corpus.jsonl: 2 duplicate document _id(s); pass --on-duplicate keep-last "
        "to keep the last record of each\n"
        "  id 'd1' on lines 1, 3, 5\n"
        "  id 'd3' on lines 2, 4"
    )
    assert table_counts() == before


@pytest.mark.django_db
def test_duplicate_query_ids_are_rejected_listing_every_line(tiny_beir, table_counts):
    folder = tiny_beir(
        queries=[{"_id": "q1", "text": "a"}, {"_id": "q2", "text": "b"}, {"_id": "q1", "text": "c"}]
    )
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="dups")
    assert str(err.value).endswith(
        "query _id(s); pass --on-duplicate keep-last to keep the "
        "last record of each\n  id 'q1' on lines 1, 3"
    )
    assert table_counts() == before


@pytest.mark.django_db
def test_keep_last_keeps_the_last_document_and_query_record(tiny_beir):
    folder = tiny_beir(
        corpus=[
            {"_id": "d1", "text": "first"},
            {"_id": "d3", "text": "x"},
            {"_id": "d1", "text": "last"},
        ],
        queries=[
            {"_id": "q1", "text": "old"},
            {"_id": "q2", "text": "b"},
            {"_id": "q1", "text": "new"},
        ],
    )
    dataset_import_beir(path=folder, name="dups", on_duplicate="keep-last")
    assert Document.objects.get(doc_id="d1").text == "last"
    assert Document.objects.count() == 2
    assert Query.objects.get(query_id="q1").text == "new"


@pytest.mark.django_db
def test_duplicate_qrels_are_rejected_listing_every_line(tiny_beir, table_counts):
    folder = tiny_beir(qrels={"test": DUP_QRELS})
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="dups")
    assert str(err.value) == (
        f"{folder}/qrels/test.tsv:4: 1 duplicate (query, document) pair(s); pass --on-duplicate "
        "keep-max or keep-last to resolve them\n"
        "  query 'q1' document 'd1' on lines 2, 4, 5"
    )
    assert table_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize(("policy", "grade"), [("keep-max", 2), ("keep-last", 0)])
def test_a_duplicate_policy_resolves_qrels_and_is_recorded(tiny_beir, policy, grade):
    folder = tiny_beir(qrels={"test": DUP_QRELS})
    dataset_import_beir(path=folder, name="dups", on_duplicate=policy)
    qrel_set = QrelSet.objects.get(name="test")
    assert qrel_set.duplicate_policy == policy
    assert qrel_set.duplicates_resolved == 2
    assert Qrel.objects.get(query__query_id="q1", document__doc_id="d1").relevance == grade
    assert Qrel.objects.count() == 2


@pytest.mark.django_db
def test_the_import_command_reports_duplicates_and_says_nothing_was_imported(tiny_beir):
    folder = tiny_beir(qrels={"test": DUP_QRELS})
    with pytest.raises(CommandError) as err:
        call_command("import_beir", str(folder), "--name", "dups", "--no-progress")
    assert str(err.value).startswith("import failed, nothing imported: ")
    assert "query 'q1' document 'd1' on lines 2, 4, 5" in str(err.value)
