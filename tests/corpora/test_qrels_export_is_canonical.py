"""Exports are sorted by query id then doc id in code-point order, single-spaced, no BOM."""

import io

import pytest
from django.core.management import call_command

from corpora.services import dataset_import_beir, qrel_set_get, qrels_export

CORPUS = [{"_id": i, "text": "x"} for i in ["b", "B", "a10", "a9", "é"]]
QUERIES = [{"_id": i, "text": "q"} for i in ["10", "9", "Z", "z"]]
QRELS = "z\ta9\t1\n9\tb\t2\n10\té\t0\n10\tB\t-1\nZ\ta10\t1\n10\ta9\t3\n"


@pytest.mark.django_db
def test_trec_export_orders_rows_by_code_point(tiny_beir):
    dataset = dataset_import_beir(
        path=tiny_beir(corpus=CORPUS, queries=QUERIES, qrels={"test": QRELS}), name="order"
    )
    buffer = io.StringIO()
    count = qrels_export(
        qrel_set=qrel_set_get(dataset=dataset, name="test"), out=buffer, fmt="trec"
    )
    assert count == 6
    assert buffer.getvalue() == ("10 0 B -1\n10 0 a9 3\n10 0 é 0\n9 0 b 2\nZ 0 a10 1\nz 0 a9 1\n")


@pytest.mark.django_db
def test_the_export_command_writes_utf8_without_bom_and_beir_with_header(tiny_beir, tmp_path):
    dataset_import_beir(
        path=tiny_beir(corpus=CORPUS, queries=QUERIES, qrels={"test": QRELS}), name="order"
    )
    out = tmp_path / "q.tsv"
    call_command("export_qrels", "order", "test", "--format", "beir", "--out", str(out))
    data = out.read_bytes()
    assert data.startswith(b"query-id\tcorpus-id\tscore\n10\tB\t-1\n")
    assert "10\té\t0\n".encode() in data
    assert data.count(b"\n") == 7
