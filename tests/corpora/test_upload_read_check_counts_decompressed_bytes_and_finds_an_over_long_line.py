"""corpora.uploads.upload_read_check, pure: an upload's files are counted as the bytes an import
reads (a .gz decompressed), in all at most the limit, and the first line longer than the cap is
named by file and line, whichever way the line falls across the pieces the check reads."""

import gzip
import random

import pytest

from corpora.formats import beir_file_find, beir_qrels_files
from corpora.uploads import UploadError, beir_files_read, upload_read_check


def _write(path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def test_a_gz_counts_as_the_bytes_it_decompresses_to(tmp_path):
    gz = _write(tmp_path / "corpus.jsonl.gz", b"x\n" * 1000)  # 2,000 bytes decompressed
    assert gz.stat().st_size < 100

    assert upload_read_check(paths=[gz], max_bytes=2000) == 2000
    with pytest.raises(UploadError) as refused:
        upload_read_check(paths=[gz], max_bytes=1999)
    assert str(refused.value) == f"{gz}: unpacks to more than the upload's limit of 1,999 bytes"


def test_the_limit_is_for_the_files_in_all_and_names_the_one_that_passes_it(tmp_path):
    first = _write(tmp_path / "a.tsv", b"q1\td1\t1\n" * 60)  # 480 bytes
    second = _write(tmp_path / "b.tsv.gz", b"q1\td1\t1\n" * 70)  # 560 decompressed

    assert upload_read_check(paths=[first, second], max_bytes=1040) == 1040
    with pytest.raises(UploadError) as refused:
        upload_read_check(paths=[first, second], max_bytes=1000)
    assert str(refused.value).startswith(f"{second}: unpacks to more than")


@pytest.mark.parametrize(
    ("data", "max_line", "line"),
    [
        (b"ab\ncdef\ng", 4, None),  # "cdef" is 4 bytes: at the cap, not over
        (b"ab\ncdef\ng", 3, 2),  # "cdef" is over 3
        (b"abcd", 3, 1),  # a file of one line, no newline
        (b"abc\nabc\nabc\nabcd\n", 3, 4),  # the newline is not counted
        (b"\n\n\nabcdefgh", 2, 4),
        (b"a\r\nb", 1, 1),  # "a\r": the carriage return is part of the line, as read
    ],
)
def test_the_first_line_over_the_cap_is_named(tmp_path, data, max_line, line):
    path = _write(tmp_path / "queries.jsonl", data)
    if line is None:
        assert upload_read_check(paths=[path], max_bytes=100, max_line=max_line) == len(data)
        return
    with pytest.raises(UploadError) as refused:
        upload_read_check(paths=[path], max_bytes=100, max_line=max_line)
    assert str(refused.value) == f"{path}:{line}: a line longer than {max_line:,} bytes"


def test_the_line_found_is_the_one_splitting_the_text_finds(tmp_path):
    generator = random.Random(7)
    for case in range(300):
        data = bytes(generator.choice(b"ab\n\n") for _ in range(generator.randint(0, 60)))
        max_line = generator.randint(1, 12)
        lengths = [len(part) for part in data.split(b"\n")]
        expected = next((i + 1 for i, n in enumerate(lengths) if n > max_line), None)
        path = _write(tmp_path / f"{case}.tsv.gz", data)
        try:
            upload_read_check(paths=[path], max_bytes=100, max_line=max_line)
            found = None
        except UploadError as exc:
            found = int(str(exc).split(":")[1])
        assert found == expected, (data, max_line)


def test_a_damaged_gz_is_left_to_the_import_to_name(tmp_path):
    path = tmp_path / "corpus.jsonl.gz"
    path.write_bytes(gzip.compress(b"x\n" * 10)[:-8])  # cut: no trailer
    assert upload_read_check(paths=[path], max_bytes=100) == 20


def test_the_files_an_import_reads_are_corpus_queries_and_the_qrels_splits(tmp_path):
    for name in ("corpus.jsonl.gz", "queries.jsonl", "qrels/test.tsv", "qrels/dev.tsv.gz"):
        _write(tmp_path / name, b"")
    _write(tmp_path / "README.md", b"")
    _write(tmp_path / "qrels" / "notes.txt", b"")

    assert [p.relative_to(tmp_path).as_posix() for p in beir_files_read(tmp_path)] == [
        "corpus.jsonl.gz",
        "queries.jsonl",
        "qrels/dev.tsv.gz",
        "qrels/test.tsv",
    ]


def test_a_folder_with_both_a_plain_and_a_gz_file_counts_only_the_one_the_import_reads(
    tmp_path,
):
    # The import reads corpus.jsonl before corpus.jsonl.gz (queries likewise) and a split's
    # SPLIT.tsv.gz before its SPLIT.tsv: the other file is never read, so never counted.
    _write(tmp_path / "corpus.jsonl", b"c" * 100)
    _write(tmp_path / "corpus.jsonl.gz", b"C" * 5000)
    _write(tmp_path / "queries.jsonl.gz", b"q" * 10)
    _write(tmp_path / "qrels" / "test.tsv", b"t" * 7000)
    _write(tmp_path / "qrels" / "test.tsv.gz", b"T" * 30)

    read = beir_files_read(tmp_path)

    assert [p.relative_to(tmp_path).as_posix() for p in read] == [
        "corpus.jsonl",
        "queries.jsonl.gz",
        "qrels/test.tsv.gz",
    ]
    assert upload_read_check(paths=read, max_bytes=140) == 140  # 100 + 10 + 30
    # The same files the import takes (corpora.services.datasets asks these two).
    assert beir_file_find(tmp_path, "corpus") == read[0]
    assert beir_file_find(tmp_path, "queries") == read[1]
    assert beir_qrels_files(tmp_path) == {"test": read[2]}
