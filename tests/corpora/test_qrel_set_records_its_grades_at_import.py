"""Importing a qrel set records its scale: rows per grade, lowest and highest grade, shown on
the dataset page. NFCorpus test (../shared/data/nfcorpus-test, qrels/test.tsv) has 11,758
rows of grade 1 and 576 of grade 2 (counted with awk over the file's score column); a tiny
set with a 0 row records 0 too; the migration computes the same for sets imported before."""

from importlib import import_module

import pytest
from django.apps import apps as django_apps

from corpora.models import QrelSet
from corpora.services import dataset_import_beir, qrels_import
from tests.fixtures.datasets import TINY_CORPUS, TINY_QUERIES, shared_dataset, write_beir
from tests.fixtures.ui import html_tables


@pytest.mark.django_db
def test_nfcorpus_test_records_11758_rows_of_grade_1_and_576_of_grade_2(client_as):
    dataset = dataset_import_beir(path=shared_dataset("nfcorpus-test"), name="nfcorpus")
    qrel_set = QrelSet.objects.get(dataset=dataset, name="test")
    assert qrel_set.grades == {"1": 11758, "2": 576}
    assert qrel_set.grade_counts == {1: 11758, 2: 576}
    assert (qrel_set.grade_min, qrel_set.grade_max) == (1, 2)
    html = client_as("researcher").get("/datasets/nfcorpus/").content.decode()
    qrels = html_tables(html)[0]
    assert qrels[0][6] == "Grades (rows per grade)"
    assert qrels[1][6] == "1–2 (1: 11,758 · 2: 576)"


@pytest.mark.django_db
def test_a_trec_qrels_file_with_zeros_records_grade_0(tmp_path):
    folder = write_beir(tmp_path / "tiny", corpus=TINY_CORPUS, queries=TINY_QUERIES)
    dataset = dataset_import_beir(path=folder, name="tiny")
    path = tmp_path / "graded.trec"
    path.write_text("q1 0 d1 3\nq1 0 d2 0\nq2 0 d3 0\nq2 0 d1 1\n", encoding="utf-8")
    qrel_set = qrels_import(dataset=dataset, path=path, name="graded", fmt="trec")
    qrel_set.refresh_from_db()
    assert qrel_set.grade_counts == {0: 2, 1: 1, 3: 1}
    assert (qrel_set.grade_min, qrel_set.grade_max) == (0, 3)
    assert qrel_set.grades_text == "0–3 (0: 2 · 1: 1 · 3: 1)"


@pytest.mark.django_db
def test_the_migration_backfills_sets_imported_before_it(tmp_path):
    folder = write_beir(
        tmp_path / "tiny",
        corpus=TINY_CORPUS,
        queries=TINY_QUERIES,
        qrels={"test": "query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td3\t1\nq2\td2\t2\n"},
    )
    dataset = dataset_import_beir(path=folder, name="tiny")
    empty = QrelSet.objects.create(dataset=dataset, name="empty")
    QrelSet.objects.update(grades={}, grade_min=None, grade_max=None)
    migration = import_module("corpora.migrations.0006_i14_qrel_set_grades")
    migration.backfill(django_apps, None)
    test = QrelSet.objects.get(dataset=dataset, name="test")
    assert (test.grades, test.grade_min, test.grade_max) == ({"1": 1, "2": 2}, 1, 2)
    empty.refresh_from_db()
    assert (empty.grades, empty.grade_min, empty.grade_max) == ({}, None, None)
    assert empty.grades_text == "none"
