"""A UTF-8 byte-order mark at the start of any file is dropped, and the first record kept."""

import gzip
import json

import pytest

from corpora.formats import parse_beir_qrels, parse_corpus, parse_queries, parse_trec_qrels
from corpora.models import Document, Qrel, Query
from corpora.services import dataset_import_beir

BOM = "\ufeff"


def test_corpus_with_a_bom_keeps_its_first_document(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(BOM + json.dumps({"_id": "d1", "title": "T", "text": "x"}) + "\n")
    assert [r.doc_id for r in parse_corpus(path)] == ["d1"]


def test_gzipped_queries_with_a_bom_keep_their_first_query(tmp_path):
    path = tmp_path / "queries.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(BOM + json.dumps({"_id": "q1", "text": "a"}) + "\n")
    assert [r.query_id for r in parse_queries(path)] == ["q1"]


def test_headerless_beir_qrels_with_a_bom_keep_their_first_row(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(BOM + "q1\td1\t1\n")
    assert [(r.query_id, r.doc_id) for r in parse_beir_qrels(path)] == [("q1", "d1")]


def test_beir_qrels_header_with_a_bom_is_still_a_header(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(BOM + "query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    assert [(r.line, r.query_id) for r in parse_beir_qrels(path)] == [(2, "q1")]


def test_trec_qrels_with_a_bom_keep_their_first_row(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(BOM + "q1 0 d1 1\n")
    assert [r.query_id for r in parse_trec_qrels(path)] == ["q1"]


@pytest.mark.django_db
def test_a_beir_folder_whose_files_all_start_with_a_bom_imports_every_record(tiny_beir):
    folder = tiny_beir(
        corpus=BOM + "".join(json.dumps(d) + "\n" for d in [{"_id": "d1", "text": "a"}]),
        queries=BOM + json.dumps({"_id": "q1", "text": "b"}) + "\n",
        qrels={"test": BOM + "q1\td1\t1\n"},
    )
    dataset_import_beir(path=folder, name="bom")
    assert list(Document.objects.values_list("doc_id", flat=True)) == ["d1"]
    assert list(Query.objects.values_list("query_id", flat=True)) == ["q1"]
    assert Qrel.objects.count() == 1
