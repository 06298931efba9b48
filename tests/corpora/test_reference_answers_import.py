"""Reference answers come from a JSONL file of {"query_id", "answers"}."""

import pytest
from django.core.management import call_command

from corpora.formats import FormatError
from corpora.models import ImportRecord, Query
from corpora.services import answers_import, dataset_import_beir


@pytest.mark.django_db
def test_answers_are_stored_as_lists_on_their_queries(tiny_beir, tmp_path, capsys):
    dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "answers.jsonl"
    path.write_text('{"query_id": "q1", "answers": ["photovoltaics", "PV"]}\n')
    call_command("import_answers", "tiny", str(path))
    assert Query.objects.get(query_id="q1").answers == ["photovoltaics", "PV"]
    assert Query.objects.get(query_id="q2").answers == []
    assert "answers set for 1 queries; 1 of 2 queries in tiny have reference answers" in (
        capsys.readouterr().out
    )


@pytest.mark.django_db
def test_answers_for_an_unknown_query_change_nothing(tiny_beir, tmp_path, table_counts):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "answers.jsonl"
    path.write_text('{"query_id": "q1", "answers": ["a"]}\n{"query_id": "q7", "answers": ["b"]}\n')
    before = table_counts()
    with pytest.raises(FormatError) as err:
        answers_import(dataset=dataset, path=path)
    assert (
        str(err.value)
        == f"{path}:2: 1 unknown query id(s) in dataset 'tiny'\n  unknown query id 'q7'"
    )
    assert Query.objects.get(query_id="q1").answers == []
    assert table_counts() == before
    assert not ImportRecord.objects.filter(kind="answers").exists()
    assert list(Query.objects.order_by("query_id").values_list("query_id", "answers")) == [
        ("q1", []),
        ("q2", []),
    ]


@pytest.mark.django_db
def test_answers_that_are_not_a_list_of_strings_are_rejected(tiny_beir, tmp_path):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "answers.jsonl"
    path.write_text('{"query_id": "q1", "answers": "a"}\n')
    with pytest.raises(FormatError) as err:
        answers_import(dataset=dataset, path=path)
    assert str(err.value) == f"{path}:1: 'answers' must be a list of strings"
