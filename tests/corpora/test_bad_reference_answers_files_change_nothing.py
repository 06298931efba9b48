"""A bad reference-answers file (empty, invalid JSON, a truncated last line) is named with its
line and reason and changes nothing: no row, no answer, no import record. A byte-order mark
at the start is dropped and the first record kept."""

import pytest

from corpora.formats import FormatError
from corpora.models import ImportRecord, Query
from corpora.services import answers_import, dataset_import_beir


@pytest.fixture
def tiny_with_answers(tiny_beir, tmp_path):
    """The tiny dataset with q2's answers already set by an earlier import."""
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    earlier = tmp_path / "earlier.jsonl"
    earlier.write_text('{"query_id": "q2", "answers": ["wind"]}\n')
    answers_import(dataset=dataset, path=earlier)
    return dataset


def answers() -> list[tuple[str, list[str]]]:
    return list(Query.objects.order_by("query_id").values_list("query_id", "answers"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "where", "reason"),
    [
        ("", "", "file is empty (no records)"),
        ("\n  \n", "", "file is empty (no records)"),
        (
            '{"query_id": "q1", "answers": ["a"]}\nnot json\n',
            ":2",
            "invalid JSON (Expecting value at column 1)",
        ),
        (
            '{"query_id": "q1", "answers": ["a"]}\n{"query_id": "q2", "ans',
            ":2",
            "invalid JSON (Unterminated string starting at at column 20)",
        ),
        (
            '{"query_id": "q1", "answers": [NaN]}\n',
            ":1",
            "invalid JSON (NaN is not a JSON value)",
        ),
    ],
)
def test_a_bad_answers_file_is_named_and_changes_nothing(
    tiny_with_answers, tmp_path, table_counts, content, where, reason
):
    path = tmp_path / "answers.jsonl"
    path.write_text(content)
    before = table_counts()
    with pytest.raises(FormatError) as err:
        answers_import(dataset=tiny_with_answers, path=path)
    assert str(err.value) == f"{path}{where}: {reason}"
    assert table_counts() == before
    assert ImportRecord.objects.filter(kind="answers").count() == 1
    assert answers() == [("q1", []), ("q2", ["wind"])]


@pytest.mark.django_db
def test_a_byte_order_mark_keeps_the_first_answer_record(tiny_with_answers, tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('\ufeff{"query_id": "q1", "answers": ["PV", "photovoltaics"]}\n')
    assert answers_import(dataset=tiny_with_answers, path=path) == 1
    assert answers() == [("q1", ["PV", "photovoltaics"]), ("q2", ["wind"])]
    assert ImportRecord.objects.filter(kind="answers").count() == 2
