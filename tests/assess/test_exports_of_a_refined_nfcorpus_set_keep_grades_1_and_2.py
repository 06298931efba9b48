"""Exports of a refined NFCorpus set (../shared/data/nfcorpus-test) keep every original row
byte-exact, 1s and 2s alike (11,758 rows of grade 1 and 576 of grade 2), and carry the new
rows' grades 0..2 in TREC, BEIR and the labels JSONL.

Three NFCorpus pairs debated by a graded job (G = 2) agree on 2, 1 and 0; refined with the
default relevant grade, the new rows are written as those grades.
"""

import json

import pytest

from assess.refined.exports import export_file_write
from assess.refined.refine import qrels_refine
from tests.fixtures.datasets import shared_dataset
from tests.fixtures.nfcorpus_graded import build_nfcorpus_graded


@pytest.fixture
def refined_nfcorpus(db):
    dataset, pool, job, debates = build_nfcorpus_graded(escalated=0, agreed=(2, 1, 0))
    refined = qrels_refine(pool=pool, name="test-graded").qrel_set
    new = {(d.pair.query.query_id, d.pair.document.doc_id): d.final_label for d in debates}
    return refined, new


def original_lines() -> list[str]:
    path = shared_dataset("nfcorpus-test") / "qrels" / "test.tsv"
    return path.read_text(encoding="utf-8").splitlines()[1:]


def test_beir_and_trec_exports_keep_the_original_rows_byte_exact(refined_nfcorpus, tmp_path):
    refined, new = refined_nfcorpus
    export_file_write(kind="beir", path=tmp_path / "q.tsv", qrel_set=refined)
    export_file_write(kind="trec", path=tmp_path / "q.trec", qrel_set=refined)
    beir = (tmp_path / "q.tsv").read_bytes().decode("utf-8").splitlines()
    trec = (tmp_path / "q.trec").read_bytes().decode("utf-8").splitlines()
    assert beir[0] == "query-id\tcorpus-id\tscore"
    original = original_lines()
    assert len(original) == 11758 + 576
    added = [f"{q}\t{d}\t{g}" for (q, d), g in sorted(new.items())]
    assert sorted(beir[1:]) == sorted(original + added)
    grades = [line.rsplit("\t", 1)[1] for line in original]
    assert (grades.count("1"), grades.count("2")) == (11758, 576)
    assert sorted(trec) == sorted(
        " ".join((q, "0", d, g)) for q, d, g in (line.split("\t") for line in original + added)
    )
    assert sorted(new.values()) == [0, 1, 2]
    assert refined.grade_counts == {0: 1, 1: 11759, 2: 577}


def test_the_labels_jsonl_carries_each_grade(refined_nfcorpus, tmp_path):
    refined, new = refined_nfcorpus
    export_file_write(kind="labels", path=tmp_path / "l.jsonl", qrel_set=refined)
    records = [json.loads(line) for line in (tmp_path / "l.jsonl").read_text().splitlines()]
    by_pair = {(r["query_id"], r["doc_id"]): r for r in records}
    for pair, grade in new.items():
        assert (by_pair[pair]["label"], by_pair[pair]["source"]) == (grade, "consensus")
    originals = [r for r in records if r["source"] == "original"]
    assert len(originals) == 11758 + 576
    assert {r["label"] for r in originals} == {1, 2}
    assert sum(r["label"] == 2 for r in originals) == 576
