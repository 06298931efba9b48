"""The import commands print documents, queries, qrels per split and relevant per query."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.models import Dataset, ImportRecord
from corpora.services import answers_summary
from tests.fixtures.datasets import BUNDLED_SCIFACT


@pytest.mark.django_db
def test_import_beir_of_the_bundled_scifact_prints_its_summary(capsys):
    call_command("import_beir", str(BUNDLED_SCIFACT), "--name", "SciFact", "--no-progress")
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "dataset scifact: 5,183 documents, 1,109 queries",
        "  qrels test (imported): 339 rows, 300 judged queries, 339 relevant, "
        "1.13 relevant per judged query",
        "  qrels train (imported): 919 rows, 809 judged queries, 919 relevant, "
        "1.14 relevant per judged query",
        "identical ids: 0 of 1,109 query ids are also document ids (0 with the same text); "
        "0 documents have a query's text; a query's own document is kept (--identical-ids, or "
        "the dataset's admin page)",
    ]
    record = ImportRecord.objects.get()
    assert (record.kind, record.summary["documents"]) == ("beir", 5183)


@pytest.mark.django_db
def test_import_qrels_adds_a_named_set_and_prints_it(tiny_beir, tmp_path, capsys):
    call_command("import_beir", str(tiny_beir()), "--name", "tiny", "--no-progress")
    path = tmp_path / "more.qrels"
    path.write_text("q1 0 d2 1\nq1 0 d3 0\n")
    call_command("import_qrels", "tiny", str(path), "--name", "more")
    out = capsys.readouterr().out
    assert (
        "  qrels more (imported): 2 rows, 1 judged queries, 1 relevant, 1.0 relevant per "
        "judged query" in out
    )


@pytest.mark.django_db
def test_import_answers_prints_queries_with_and_without_answers_and_the_total(
    tiny_beir, tmp_path, capsys
):
    call_command("import_beir", str(tiny_beir()), "--name", "tiny", "--no-progress")
    capsys.readouterr()
    first = tmp_path / "first.jsonl"
    first.write_text('{"query_id": "q1", "answers": ["PV", "photovoltaics"]}\n')
    call_command("import_answers", "tiny", str(first))
    assert capsys.readouterr().out.splitlines() == [
        "answers set for 1 queries; 1 of 2 queries in tiny have reference answers",
        "  2 answers in all, 2.0 per query with answers; 1 queries without answers",
    ]
    # The totals come from the database, so a second file adds to what the first one set.
    second = tmp_path / "second.jsonl"
    second.write_text('{"query_id": "q2", "answers": ["wind"]}\n')
    call_command("import_answers", "tiny", str(second))
    assert capsys.readouterr().out.splitlines() == [
        "answers set for 1 queries; 2 of 2 queries in tiny have reference answers",
        "  3 answers in all, 1.5 per query with answers; 0 queries without answers",
    ]
    assert answers_summary(dataset=Dataset.objects.get(slug="tiny")) == {
        "dataset": "tiny",
        "queries": 2,
        "with_answers": 2,
        "without_answers": 0,
        "answers": 3,
        "answers_per_query": 1.5,
    }


def test_an_unknown_dataset_is_named_with_the_known_ones(db):
    with pytest.raises(CommandError) as err:
        call_command("import_answers", "nope", "x.jsonl")
    assert str(err.value) == "no dataset 'nope' (known: none)"
