"""JSON that decodes but cannot be stored (a lone surrogate escape such as \\ud800, a NUL
character, NaN) is a FormatError naming file, line and reason, and nothing is imported; it
never surfaces as a UnicodeEncodeError or a PostgreSQL DataError."""

import pytest

from corpora.formats import FormatError
from corpora.models import Query
from corpora.services import answers_import, dataset_import_beir

GOOD_DOC = '{"_id": "d1", "title": "Solar", "text": "solar panel"}\n'
GOOD_QUERY = '{"_id": "q1", "text": "solar power"}\n'


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("part", "bad_line", "expected"),
    [
        (
            "corpus",
            r'{"_id": "d2", "text": "a\ud800b"}',
            "corpus.jsonl:2: 'text' contains a lone surrogate U+D800 (not valid Unicode)",
        ),
        (
            "corpus",
            r'{"_id": "d\udc00", "text": "ab"}',
            "corpus.jsonl:2: '_id' contains a lone surrogate U+DC00 (not valid Unicode)",
        ),
        (
            "corpus",
            r'{"_id": "d2", "title": "x\u0000", "text": "ab"}',
            "corpus.jsonl:2: 'title' contains a NUL character",
        ),
        (
            "queries",
            r'{"_id": "q2", "text": "a\ud800b"}',
            "queries.jsonl:2: 'text' contains a lone surrogate U+D800 (not valid Unicode)",
        ),
        (
            "queries",
            r'{"_id": "q\u0000", "text": "ab"}',
            "queries.jsonl:2: '_id' contains a NUL character",
        ),
        (
            "queries",
            r'{"_id": "q2", "text": "ab", "metadata": {"author": ["x\u0000y"]}}',
            "queries.jsonl:2: 'metadata.author[0]' contains a NUL character",
        ),
        (
            "queries",
            r'{"_id": "q2", "text": "ab", "metadata": {"\udfff": 1}}',
            "queries.jsonl:2: 'metadata' contains a lone surrogate U+DFFF (not valid Unicode)",
        ),
        (
            "queries",
            '{"_id": "q2", "text": "ab", "metadata": {"score": NaN}}',
            "queries.jsonl:2: invalid JSON (NaN is not a JSON value)",
        ),
    ],
)
def test_unstorable_corpus_or_query_text_is_named_and_nothing_is_imported(
    tiny_beir, table_counts, part, bad_line, expected
):
    good = GOOD_DOC if part == "corpus" else GOOD_QUERY
    folder = tiny_beir(qrels=None, **{part: good + bad_line + "\n"})
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="bad")
    assert str(err.value) == f"{folder}/{expected}"
    assert table_counts() == before


@pytest.mark.django_db
def test_a_nul_in_a_qrels_id_is_named_and_nothing_is_imported(tiny_beir, table_counts):
    folder = tiny_beir(qrels={"test": "q1\td1\x00\t1\n"})
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="bad")
    assert str(err.value) == f"{folder}/qrels/test.tsv:1: 'corpus-id' contains a NUL character"
    assert table_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        (
            r'{"query_id": "q2", "answers": ["ok", "a\ud800"]}',
            "'answers[1]' contains a lone surrogate U+D800 (not valid Unicode)",
        ),
        (r'{"query_id": "q2", "answers": ["a\u0000"]}', "'answers[0]' contains a NUL character"),
        (r'{"query_id": "q\u0000", "answers": ["a"]}', "'query_id' contains a NUL character"),
    ],
)
def test_unstorable_answers_are_named_and_no_answer_is_set(
    tiny_beir, tmp_path, table_counts, bad_line, reason
):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "answers.jsonl"
    path.write_text('{"query_id": "q1", "answers": ["PV"]}\n' + bad_line + "\n")
    before = table_counts()
    with pytest.raises(FormatError) as err:
        answers_import(dataset=dataset, path=path)
    assert str(err.value) == f"{path}:2: {reason}"
    assert table_counts() == before
    assert list(Query.objects.order_by("query_id").values_list("query_id", "answers")) == [
        ("q1", []),
        ("q2", []),
    ]


@pytest.mark.django_db
def test_a_surrogate_pair_is_one_valid_character_and_is_stored(tiny_beir):
    folder = tiny_beir(
        corpus=r'{"_id": "d1", "title": "\ud83d\ude00", "text": "smile"}' + "\n",
        queries=r'{"_id": "q1", "text": "a", "metadata": {"m": "\ud83d\ude00"}}' + "\n",
        qrels=None,
    )
    dataset = dataset_import_beir(path=folder, name="emoji")
    assert dataset.documents.get().title == "\U0001f600"
    assert dataset.queries.get().metadata == {"m": "\U0001f600"}
