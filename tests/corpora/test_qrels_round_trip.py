"""Imported qrels come back out unchanged: same rows as BEIR, same bytes as canonical TREC."""

import io

import pytest

from corpora.formats import parse_beir_qrels, parse_trec_qrels
from corpora.services import dataset_import_beir, qrel_set_get, qrels_export, qrels_import
from tests.corpora.test_real_datasets_import_with_their_counts import EXPECTED
from tests.fixtures.datasets import shared_dataset


@pytest.mark.django_db
@pytest.mark.parametrize(("folder", "splits"), [(e[0], e[1]) for e in EXPECTED])
def test_beir_test_qrels_export_as_the_same_set_of_rows(folder, splits, tmp_path):
    source = shared_dataset(folder)
    dataset = dataset_import_beir(path=source, name=folder, splits=splits)
    out = tmp_path / "test.tsv"
    with out.open("w", encoding="utf-8", newline="\n") as handle:
        written = qrels_export(
            qrel_set=qrel_set_get(dataset=dataset, name="test"), out=handle, fmt="beir"
        )
    original = [
        (r.query_id, r.doc_id, r.relevance) for r in parse_beir_qrels(source / "qrels" / "test.tsv")
    ]
    exported = [(r.query_id, r.doc_id, r.relevance) for r in parse_beir_qrels(out)]
    assert written == len(original)
    assert sorted(exported) == sorted(original)
    assert out.read_text().startswith("query-id\tcorpus-id\tscore\n")


@pytest.mark.django_db
def test_canonical_trec_qrels_survive_import_and_export_byte_for_byte(tmp_path):
    dataset = dataset_import_beir(path=shared_dataset("cranfield"), name="cranfield")
    rows = [
        (r.query_id, r.doc_id, r.relevance)
        for r in parse_beir_qrels(shared_dataset("cranfield") / "qrels" / "test.tsv")
    ]
    canonical = "".join(f"{q} 0 {d} {g}\n" for q, d, g in sorted(rows))
    source = tmp_path / "canonical.qrels"
    source.write_bytes(canonical.encode("utf-8"))
    qrel_set = qrels_import(dataset=dataset, path=source, name="trec-copy")
    buffer = io.StringIO()
    qrels_export(qrel_set=qrel_set, out=buffer, fmt="trec")
    assert buffer.getvalue().encode("utf-8") == source.read_bytes()
    assert len(list(parse_trec_qrels(source))) == 1837
