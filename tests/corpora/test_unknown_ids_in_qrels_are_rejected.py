"""Qrels naming a query or document that does not exist are rejected, listing the ids and
naming the --unknown-ids flag that would drop them."""

import pytest

from corpora.formats import FormatError
from corpora.services import dataset_import_beir, qrels_import


@pytest.mark.django_db
def test_beir_qrels_with_unknown_ids_are_rejected_listing_them(tiny_beir, table_counts):
    folder = tiny_beir(qrels={"test": "q1\td1\t1\nq9\td1\t1\nq1\tdX\t1\nq8\tdY\t0\n"})
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="unknown")
    assert str(err.value) == (
        f"{folder}/qrels/test.tsv:2: qrels name 2 unknown query id(s) and 2 unknown document "
        "id(s) in dataset 'unknown'; pass --unknown-ids drop to skip those rows (counted and "
        "listed)\n"
        "  unknown query id 'q8' (line 4)\n"
        "  unknown query id 'q9' (line 2)\n"
        "  unknown document id 'dX' (line 3)\n"
        "  unknown document id 'dY' (line 4)"
    )
    assert table_counts() == before


@pytest.mark.django_db
def test_trec_qrels_with_an_unknown_document_change_nothing(tiny_beir, tmp_path, table_counts):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "extra.qrels"
    path.write_text("q1 0 d2 1\nq2 0 nope 1\n")
    before = table_counts()
    with pytest.raises(FormatError) as err:
        qrels_import(dataset=dataset, path=path, name="extra")
    assert str(err.value) == (
        f"{path}:2: qrels name 0 unknown query id(s) and 1 unknown document id(s) in dataset "
        "'tiny'; pass --unknown-ids drop to skip those rows (counted and listed)\n"
        "  unknown document id 'nope' (line 2)"
    )
    assert table_counts() == before


@pytest.mark.django_db
def test_an_unknown_id_on_many_lines_is_listed_at_its_first_line_with_the_count(
    tiny_beir, tmp_path
):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "many.qrels"
    path.write_text("q1 0 d1 1\nQX 0 d1 1\nQX 0 d2 0\n")
    with pytest.raises(FormatError) as err:
        qrels_import(dataset=dataset, path=path, name="many")
    assert str(err.value).endswith("  unknown query id 'QX' (line 2 and 1 more line)")
