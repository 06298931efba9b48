"""With --unknown-ids drop, qrels and run rows naming ids absent from the dataset are skipped,
counted (on the qrel set, in the run's parameters) and listed as file:line and id in the
import report; ArguAna's distributed qrels lose exactly its 5 dangling rows."""

from io import StringIO

import pytest
from django.core.management import call_command

from corpora.models import ImportRecord, QrelSet
from corpora.services import dataset_import_beir, qrels_import, qrels_rows, run_import
from tests.fixtures.datasets import shared_dataset

ARGUANA_DANGLING = [
    (180, "test-free-speech-debate-yfsdfkhbwu-con03b"),
    (833, "test-education-ufsdfkhbwu-con03b"),
    (1026, "test-politics-dhwem-pro06b"),
    (1345, "test-science-sghwbdgmo-con03b"),
    (1384, "test-society-asfhwapg-con04b"),
]


@pytest.mark.slow
@pytest.mark.django_db
def test_arguana_imports_with_its_five_dangling_rows_dropped_and_listed():
    folder = shared_dataset("arguana")
    out = StringIO()
    call_command(
        "import_beir", str(folder), name="arguana", unknown_ids="drop", no_progress=True, stdout=out
    )
    original = QrelSet.objects.get(dataset__slug="arguana", name="test.original")
    assert original.unknown_ids_dropped == 5
    assert original.qrels.count() == 1401
    assert QrelSet.objects.get(dataset__slug="arguana", name="test").unknown_ids_dropped == 0
    listed = [
        f"{folder}/qrels/test.original.tsv:{line}: unknown document id {doc!r}"
        for line, doc in ARGUANA_DANGLING
    ]
    summary = ImportRecord.objects.get(dataset__slug="arguana").summary
    assert summary["unknown_ids_dropped"] == {"test.original": listed}
    printed = out.getvalue()
    assert (
        "  qrels test.original (imported): 1,401 rows, 1,401 judged queries, 1,401 relevant, "
        "1.0 relevant per judged query; 5 rows with unknown ids dropped" in printed
    )
    assert "dropped 5 row(s) naming unknown ids:\n" + "".join(f"  {x}\n" for x in listed) in printed
    # After the drop, the distributed file holds exactly the rows of the pre-filtered copy.
    test = QrelSet.objects.get(dataset__slug="arguana", name="test")
    assert list(qrels_rows(qrel_set=original)) == list(qrels_rows(qrel_set=test))


@pytest.mark.django_db
def test_trec_qrels_and_a_run_drop_their_unknown_rows(tiny_beir, tmp_path):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    qrels = tmp_path / "extra.qrels"
    qrels.write_text("q1 0 d2 1\nq2 0 nope 1\nq9 0 d1 0\n")
    qrel_set = qrels_import(dataset=dataset, path=qrels, name="extra", unknown_ids="drop")
    assert qrel_set.unknown_ids_dropped == 2
    assert list(qrels_rows(qrel_set=qrel_set)) == [("q1", "d2", 1)]
    record = dataset.imports.get(kind="qrels")
    assert record.summary["unknown_ids_dropped"] == 2
    assert record.summary["unknown_ids_dropped_rows"] == [
        f"{qrels}:2: unknown document id 'nope'",
        f"{qrels}:3: unknown query id 'q9'",
    ]

    run_file = tmp_path / "r.run"
    run_file.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 zz 2 1.0 r\nq2 Q0 d3 1 1.0 r\n")
    run = run_import(dataset=dataset, path=run_file, unknown_ids="drop")
    assert run.parameters["unknown_ids_dropped"] == 1
    assert list(run.entries.order_by("pk").values_list("document__doc_id", flat=True)) == [
        "d1",
        "d3",
    ]
    assert dataset.imports.get(kind="run").summary["unknown_ids_dropped_rows"] == [
        f"{run_file}:2: unknown document id 'zz'"
    ]


@pytest.mark.django_db
def test_the_dataset_page_shows_the_dropped_count(tiny_beir, tmp_path, client_as):
    dataset = dataset_import_beir(path=tiny_beir(), name="tiny")
    qrels = tmp_path / "extra.qrels"
    qrels.write_text("q1 0 d2 1\nq2 0 nope 1\n")
    qrels_import(dataset=dataset, path=qrels, name="extra", unknown_ids="drop")
    page = client_as("researcher").get(f"/datasets/{dataset.slug}/").content.decode()
    assert '<td class="num">1</td>\n      <td>\n        <a href="/datasets/tiny/qrels/extra' in page
