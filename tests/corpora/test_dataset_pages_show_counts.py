"""The dataset list and page show documents, queries, qrels rows per set, runs, pools and
pairs, counted with a fixed number of queries however many datasets there are."""

from corpora.models import Dataset, Document
from corpora.selectors import dataset_counts_list
from corpora.services import dataset_import_beir
from tests.fixtures.datasets import BUNDLED_SCIFACT
from tests.fixtures.ui import html_tables


def test_the_list_shows_each_datasets_counts(client_as, tiny_dataset):
    Dataset.objects.create(name="Empty", slug="empty")
    html = client_as("researcher").get("/datasets/").content.decode()
    (table,) = html_tables(html)
    assert table == [
        [
            "Dataset",
            "Documents",
            "Queries",
            "Qrel sets (rows)",
            "Runs",
            "Pools",
            "Pairs",
            "Imports",
        ],
        ["Empty empty", "0", "0", "none", "0", "0", "0", "0"],
        ["tiny tiny", "3", "2", "test (2)", "1", "1", "2", "1"],
    ]


def test_the_dataset_page_shows_qrel_sets_runs_and_pools(client_as, tiny_dataset):
    html = client_as("admin").get("/datasets/tiny/").content.decode()
    qrels, runs, pools, imports = html_tables(html)
    assert qrels[0][6:] == [
        "Grades (rows per grade)",
        "Duplicates",
        "Unknown ids dropped",
        "Download",
    ]
    assert qrels[1] == [
        "test",
        "imported",
        "2",
        "2",
        "2",
        "1.0",
        "1 (1: 2)",
        "rejected",
        "0",
        "TREC · BEIR",
    ]
    assert runs[1][:5] == ["bm25", "BM25 test", "built-in retriever", "done", "4"]
    assert pools[1] == [
        "p", "test", "2", "left out", "depth-k (rank by rank)", "bm25", "2", "Launch a debate job"
    ]  # fmt: skip
    assert [row[1] for row in imports[1:]] == ["BEIR folder"]
    assert "3</a></dd>" in html  # documents, linking to the document list
    assert "2 (0 with reference answers)" in html
    assert "1 (2 pairs)" in html


def test_counting_takes_the_same_queries_for_one_or_three_datasets(
    tiny_dataset, django_assert_num_queries
):
    with django_assert_num_queries(9):
        assert [c.documents for c in dataset_counts_list()] == [3]
    for slug in ("a", "b"):
        dataset = Dataset.objects.create(name=slug, slug=slug)
        Document.objects.create(dataset=dataset, doc_id="x")
    with django_assert_num_queries(9):
        rows = dataset_counts_list()
    assert [(r.dataset.slug, r.documents, r.queries, r.pairs) for r in rows] == [
        ("a", 1, 0, 0),
        ("b", 1, 0, 0),
        ("tiny", 3, 2, 2),
    ]


def test_the_bundled_scifact_shows_its_real_counts_with_thousands_separators(client_as):
    dataset_import_beir(path=BUNDLED_SCIFACT, name="SciFact")
    html = client_as("researcher").get("/datasets/").content.decode()
    assert html_tables(html)[0][1] == [
        "SciFact scifact",
        "5,183",
        "1,109",
        "test (339), train (919)",
        "0",
        "0",
        "0",
        "1",
    ]
    detail = client_as("admin").get("/datasets/scifact/").content.decode()
    assert [row[:6] for row in html_tables(detail)[0][1:]] == [
        ["test", "imported", "339", "300", "339", "1.13"],
        ["train", "imported", "919", "809", "919", "1.14"],
    ]
