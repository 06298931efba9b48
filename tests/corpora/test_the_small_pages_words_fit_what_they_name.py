"""Small words of the dataset pages that named the wrong thing: a BEIR TSV qrels import is
listed as "BEIR qrels (TSV)" in the import history (never "TREC qrels"), a budget of one
pair says "1 pair" (on the dataset page and in the job form's pool choices)."""

import pytest

from corpora.models import ImportRecord, Pool
from corpora.services import qrels_import
from debates.forms import PoolChoiceField

pytestmark = pytest.mark.django_db


def test_a_beir_qrels_import_is_listed_as_beir(tiny_dataset, client_as, tmp_path):
    tsv = tmp_path / "extra.tsv"
    tsv.write_text("query-id\tcorpus-id\tscore\nq1\td2\t1\n", encoding="utf-8")
    trec = tmp_path / "more.qrels"
    trec.write_text("q2 0 d1 0\n", encoding="utf-8")
    qrels_import(dataset=tiny_dataset, path=tsv, name="extra", fmt="beir")
    qrels_import(dataset=tiny_dataset, path=trec, name="more", fmt="trec")
    shown = {r.path: r.kind_shown for r in ImportRecord.objects.filter(kind="qrels")}
    assert shown == {str(tsv): "BEIR qrels (TSV)", str(trec): "TREC qrels"}
    page = client_as("researcher").get("/datasets/tiny/").content.decode()
    assert "<td>BEIR qrels (TSV)</td>" in page and "<td>TREC qrels</td>" in page


def test_a_budget_of_one_pair_says_pair(tiny_dataset, client_as):
    Pool.objects.filter(dataset=tiny_dataset).update(budget=1)
    page = client_as("researcher").get("/datasets/tiny/").content.decode()
    assert "; budget 1 pair</td>" in page
    pool = Pool.objects.get(dataset=tiny_dataset)
    assert (
        PoolChoiceField(Pool.objects.all()).label_from_instance(pool).endswith(", budget 1 pair)")
    )
