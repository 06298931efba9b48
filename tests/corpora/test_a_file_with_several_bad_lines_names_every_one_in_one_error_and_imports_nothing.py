"""A run, qrels or BEIR file with several bad lines is refused in one error naming the file and
every bad line with its reason (the first as before, then "(and N more bad lines)" and a
``line L: reason`` for each other), so one attempt shows them all; nothing is imported."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.formats import MAX_LISTED, FormatError, parse_beir_qrels
from corpora.services import dataset_import_beir, qrels_import, run_import
from tests.fixtures.pooling import run_file


def good(n: int) -> str:
    return f"q1 Q0 d{n} {n} {100 - n} sys"


def run_with_bad_lines_5_7_and_21() -> list[str]:
    lines = [good(n) for n in range(1, 22)]
    lines[4] = "q1 Q0 d5 5 95"  # line 5: a field short
    lines[6] = "q1 Q0 d7 seventh 93 sys"  # line 7: rank not an integer
    lines[20] = "q1 Q0 d21 21 high sys"  # line 21: score not a number
    return lines


BAD_5_7_21 = (
    ":5: expected 6 fields (qid Q0 docid rank score tag), got 5 (and 2 more bad lines)\n"
    "  line 7: rank 'seventh' is not an integer\n"
    "  line 21: score 'high' is not a number"
)


@pytest.mark.django_db
def test_import_run_names_the_bad_lines_5_7_and_21_at_once(sixty, run_tables, tmp_path):
    # Into a dataset that holds d1..d21: the bad lines are the file's only problems (the
    # 4-document "energy" would also refuse the 14 rows naming d5..d21 it lacks).
    path = tmp_path / "bad.run"
    path.write_text(run_file(run_with_bad_lines_5_7_and_21()), encoding="utf-8")
    before = run_tables()
    with pytest.raises(FormatError) as err:
        run_import(dataset=sixty, path=path, name="bad")
    assert str(err.value) == f"{path}{BAD_5_7_21}"
    with pytest.raises(CommandError) as caught:
        call_command("import_run", "sixty", str(path), "--name", "bad", stdout=io.StringIO())
    assert str(caught.value) == f"import failed, nothing imported: {path}{BAD_5_7_21}"
    assert run_tables() == before


@pytest.mark.django_db
def test_a_long_list_of_bad_lines_is_cut_with_and_n_more(energy, run_tables, tmp_path):
    path = tmp_path / "short.run"
    path.write_text(run_file([f"q1 Q0 d{n} {n} 1.0" for n in range(1, 61)]), encoding="utf-8")
    before = run_tables()
    with pytest.raises(FormatError) as err:
        run_import(dataset=energy, path=path, name="short")
    message = str(err.value).splitlines()
    assert message[0] == (
        f"{path}:1: expected 6 fields (qid Q0 docid rank score tag), got 5 (and 59 more bad lines)"
    )
    assert message[1] == "  line 2: expected 6 fields (qid Q0 docid rank score tag), got 5"
    assert len(message) == 1 + MAX_LISTED + 1
    assert message[-1] == f"  ... and {59 - MAX_LISTED} more"
    assert run_tables() == before


@pytest.mark.django_db
def test_a_trec_qrels_file_names_every_bad_line_bad_bytes_included(
    tiny_beir, tmp_path, table_counts
):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    path = tmp_path / "bad.qrels"
    path.write_bytes(b"q1 0 d1 1\nq2 0 d3\nq1 0 d\xb62 1\nq2 0 d2 half\n")
    before = table_counts()
    with pytest.raises(FormatError) as err:
        qrels_import(dataset=dataset, path=path, name="bad")
    assert str(err.value) == (
        f"{path}:2: expected 4 fields (qid iter docid rel), got 3 (and 2 more bad lines)\n"
        "  line 3: not valid UTF-8 (invalid start byte)\n"
        "  line 4: relevance 'half' is not a number"
    )
    assert table_counts() == before


@pytest.mark.django_db
def test_a_corpus_with_two_bad_records_names_both_and_imports_nothing(tiny_beir, table_counts):
    corpus = '{"_id": "d1", "text": "a"}\n{"_id": "d2"}\nnot json\n{"_id": "d4", "text": "b"}\n'
    folder = tiny_beir(corpus=corpus)
    before = table_counts()
    with pytest.raises(FormatError) as err:
        dataset_import_beir(path=folder, name="bad")
    assert str(err.value) == (
        f"{folder}/corpus.jsonl:2: missing 'text' (and 1 more bad line)\n"
        "  line 3: invalid JSON (Expecting value at column 1)"
    )
    assert table_counts() == before


def test_no_record_is_given_out_after_the_first_bad_line(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text("q1\td1\t1\nq1\td2\nq1\td3\t1\nq1\td4\tx\n", encoding="utf-8")
    read = []
    with pytest.raises(FormatError, match=r":2: .* \(and 1 more bad line\)\n  line 4: "):
        read.extend(r.doc_id for r in parse_beir_qrels(path))
    assert read == ["d1"]
