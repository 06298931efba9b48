"""A BEIR qrels TSV (first line ``query-id<TAB>corpus-id<TAB>score``) uploaded to ``POST
/api/v1/datasets/<slug>/qrels`` without ``fmt`` fails naming the file, the line and the
header, with the fix as the API's field (``"fmt": "beir"``), not every line's field count;
``import_qrels`` names its own flag; sent with ``fmt: beir`` the same file is imported."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from corpora.models import QrelSet
from tests.fixtures.api import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

BEIR = "query-id\tcorpus-id\tscore\nq1\td2\t1\nq2\td2\t0\n"
REASON = (
    "b.tsv:1: a BEIR qrels header (query-id corpus-id score), not TREC qrels (qid iter "
    "docid rel): the file is BEIR TSV"
)


def _upload(api, **form):
    answer = api.post(
        "/api/v1/datasets/tiny/qrels",
        {"name": "mine", "qrels": SimpleUploadedFile("b.tsv", BEIR.encode()), **form},
    )
    assert answer.status_code == 202, answer.content
    url = answer.json()["url"]
    return wait_for(lambda: api.get(url).json(), lambda o: o["status"] in ("done", "failed"))


def test_a_beir_file_sent_as_trec_names_the_header_and_fmt_beir(api_as, tiny_dataset):
    operation = _upload(api_as("admin"))

    assert operation["status"] == "failed"
    assert operation["error"] == (
        f"import failed, nothing imported: {REASON}\n"
        'To get past this: send "fmt": "beir" to read it as BEIR TSV'
    )
    assert operation["result"]["fix"] == {
        "key": "fmt",
        "value": "beir",
        "purpose": "to read it as BEIR TSV",
        "flag": "--format",
    }
    assert not QrelSet.objects.filter(name="mine").exists()


def test_the_command_names_its_format_flag(tiny_dataset, tmp_path):
    path = tmp_path / "b.tsv"
    path.write_text(BEIR, encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_qrels", "tiny", str(path), "--name", "mine")
    assert str(refused.value).endswith(
        f"{REASON.removeprefix('b.tsv')}; pass --format beir to read it as BEIR TSV"
    )


def test_sent_with_fmt_beir_it_is_imported(api_as, tiny_dataset):
    operation = _upload(api_as("admin"), fmt="beir")
    assert operation["status"] == "done", operation["error"]
    assert QrelSet.objects.get(name="mine").qrels.count() == 2
