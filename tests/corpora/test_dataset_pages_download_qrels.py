"""Researchers and admins download a qrel set as TREC or BEIR, streamed, byte-identical to
``export_qrels``."""

import io

import pytest

from corpora.models import Qrel, QrelSet
from corpora.services import qrels_export


def _body(response) -> bytes:
    assert response.streaming
    return b"".join(response.streaming_content)


@pytest.mark.parametrize(
    ("fmt", "expected", "filename"),
    [
        ("trec", b"q1 0 d1 1\nq2 0 d3 1\n", "tiny-test.qrels"),
        ("beir", b"query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n", "tiny-test.tsv"),
    ],
)
def test_the_download_is_the_canonical_export(client_as, tiny_dataset, fmt, expected, filename):
    response = client_as("researcher").get(f"/datasets/tiny/qrels/test/{fmt}")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
    body = _body(response)
    assert body == expected
    out = io.StringIO()
    qrels_export(qrel_set=tiny_dataset.qrel_sets.get(name="test"), out=out, fmt=fmt)
    assert body == out.getvalue().encode("utf-8")


def test_a_qrel_set_whose_name_holds_a_slash_downloads_too(client_as, tiny_dataset):
    original = tiny_dataset.qrel_sets.get(name="test")
    refined = QrelSet.objects.create(dataset=tiny_dataset, name="v2/refined ü", origin="refined")
    for qrel in original.qrels.all():
        Qrel.objects.create(qrel_set=refined, query=qrel.query, document=qrel.document, relevance=2)
    client = client_as("admin")
    assert (
        "/datasets/tiny/qrels/v2/refined%20%C3%BC/trec"
        in client.get("/datasets/tiny/").content.decode()
    )
    response = client.get("/datasets/tiny/qrels/v2/refined%20%C3%BC/trec")
    assert _body(response) == b"q1 0 d1 2\nq2 0 d3 2\n"
    assert response["Content-Disposition"] == 'attachment; filename="tiny-v2refined-u.qrels"'


@pytest.mark.parametrize("url", ["/datasets/tiny/qrels/dev/trec", "/datasets/tiny/qrels/test/csv"])
def test_an_unknown_set_or_format_is_not_found(client_as, tiny_dataset, url):
    assert client_as("researcher").get(url).status_code == 404
