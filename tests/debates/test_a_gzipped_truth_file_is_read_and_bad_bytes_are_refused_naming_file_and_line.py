"""A truth qrels file is read the way ``import_qrels`` reads qrels: gzipped or not (BEIR
folders ship ``qrels/test.tsv.gz``, as the bundled SciFact does), and bytes that are not
UTF-8 are refused naming the file and the line, never with Python's bare codec message
("truth 'utf-8' codec can't decode byte 0x8b in position 1", which named neither)."""

import gzip

import pytest

from debates.llm.base import PermanentLLMError
from debates.simulated_client import truth_file_read

BEIR = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t0\n"


def test_a_gzipped_beir_truth_file_is_read_as_the_plain_one(tmp_path):
    plain = tmp_path / "test.tsv"
    plain.write_text(BEIR, encoding="utf-8")
    packed = tmp_path / "test.tsv.gz"
    packed.write_bytes(gzip.compress(BEIR.encode()))
    assert truth_file_read(packed) == truth_file_read(plain) == {"q1": {"d1": 1}, "q2": {"d2": 0}}


def test_a_gzipped_trec_truth_file_is_read(tmp_path):
    packed = tmp_path / "truth.qrels.gz"
    packed.write_bytes(gzip.compress(b"q1 0 d1 1\nq1 0 d2 0\n"))
    assert truth_file_read(packed) == {"q1": {"d1": 1, "d2": 0}}


def test_bytes_that_are_not_utf8_are_refused_naming_file_and_line(tmp_path):
    bad = tmp_path / "truth.tsv"
    bad.write_bytes(b"q1 0 d1 1\nq1 0 d\xb62 1\n")
    with pytest.raises(PermanentLLMError) as caught:
        truth_file_read(bad)
    assert str(caught.value) == f"truth {bad}:2: not valid UTF-8 (invalid start byte)"


def test_a_missing_file_keeps_its_words(tmp_path):
    missing = tmp_path / "nope.tsv"
    with pytest.raises(PermanentLLMError) as caught:
        truth_file_read(missing)
    assert str(caught.value) == f"truth {missing}: cannot read the file (No such file or directory)"
