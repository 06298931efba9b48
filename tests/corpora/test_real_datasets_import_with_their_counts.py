"""Every real dataset in ../shared/data imports into PostgreSQL with its README's counts."""

import pytest

from corpora.formats import FormatError
from corpora.models import Dataset
from corpora.services import dataset_import_beir, dataset_summary
from tests.fixtures.datasets import shared_dataset

# (folder, splits to import, documents, queries, {split: (qrels rows, judged queries, relevant
# per judged query)}) from each README (../shared/data/README.md and the folder's README.md).
# Scifact's train figure is 919 rows / 809 judged queries; cranfield's raw codes keep the 225
# "-1" rows as -1, so both of its sets have 1,612 relevant rows over 225 queries.
EXPECTED = [
    ("scifact", None, 5183, 1109, {"test": (339, 300, 1.13), "train": (919, 809, 1.14)}),
    ("nfcorpus-test", None, 3162, 325, {"test": (12334, 323, 38.19)}),
    ("arguana", ["test"], 8674, 1406, {"test": (1401, 1401, 1.0)}),
    ("vaswani", None, 11429, 93, {"test": (2083, 93, 22.4)}),
    (
        "cranfield",
        None,
        1400,
        225,
        {"test": (1837, 225, 7.16), "test.raw-codes": (1837, 225, 7.16)},
    ),
    ("cisi", None, 1460, 112, {"test": (3114, 76, 40.97)}),
    ("cacm", None, 3204, 64, {"test": (796, 52, 15.31)}),
    ("med", None, 1033, 30, {"test": (696, 30, 23.2)}),
    ("adi", None, 82, 35, {"test": (170, 35, 4.86)}),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("folder", "splits", "docs", "queries", "qrels"), EXPECTED)
def test_the_dataset_imports_with_the_counts_its_readme_gives(folder, splits, docs, queries, qrels):
    dataset = dataset_import_beir(path=shared_dataset(folder), name=folder, splits=splits)
    summary = dataset_summary(dataset=dataset)
    assert summary["documents"] == docs
    assert summary["queries"] == queries
    assert {
        name: (s["rows"], s["queries"], s["relevant_per_query"])
        for name, s in summary["qrels"].items()
    } == qrels


@pytest.mark.django_db
def test_scifact_test_qrels_have_300_judged_queries_and_1_13_relevant_each():
    dataset = dataset_import_beir(path=shared_dataset("scifact"), name="scifact")
    test = dataset_summary(dataset=dataset)["qrels"]["test"]
    assert (test["queries"], test["relevant"], test["relevant_per_query"]) == (300, 339, 1.13)


@pytest.mark.django_db
def test_arguana_original_qrels_are_rejected_for_their_five_dangling_documents():
    folder = shared_dataset("arguana")
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="arguana")
    message = str(err.value)
    assert message.startswith(f"{folder}/qrels/test.original.tsv:")
    assert "0 unknown query id(s) and 5 unknown document id(s)" in message
    assert "unknown document id 'test-politics-dhwem-pro06b'" in message
    assert not Dataset.objects.exists()
