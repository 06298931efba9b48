"""The document list pages through documents by id, 50 a page, filtered by an id prefix;
the document page finds any id, whatever characters it holds."""

from urllib.parse import quote

from corpora.models import Dataset, Document
from tests.fixtures.ui import html_tables


def _dataset() -> Dataset:
    dataset = Dataset.objects.create(name="many", slug="many")
    Document.objects.bulk_create(
        [Document(dataset=dataset, doc_id=f"a{i:03d}", title=f"A {i}") for i in range(120)]
        + [Document(dataset=dataset, doc_id=f"b{i}", title="B") for i in range(3)]
        + [Document(dataset=dataset, doc_id="odd/id #1?x=..", text="odd text")]
    )
    return dataset


def test_pages_hold_fifty_documents_in_id_order(client_as):
    _dataset()
    client = client_as("researcher")
    first = client.get("/datasets/many/documents/").content.decode()
    assert "124 documents." in first
    rows = html_tables(first)[0][1:]
    assert [r[0] for r in rows[:2]] == ["a000", "a001"] and len(rows) == 50
    assert "Page 1 of 3" in first
    last = client.get("/datasets/many/documents/?page=3").content.decode()
    assert [r[0] for r in html_tables(last)[0][1:]] == [
        *(f"a{i:03d}" for i in range(100, 120)),
        "b0",
        "b1",
        "b2",
        "odd/id #1?x=..",
    ]


def test_a_prefix_keeps_only_matching_ids(client_as):
    _dataset()
    html = client_as("researcher").get("/datasets/many/documents/?prefix=b").content.decode()
    assert "3 documents with an id starting with" in html
    assert [r[0] for r in html_tables(html)[0][1:]] == ["b0", "b1", "b2"]


def test_an_id_with_slashes_hashes_and_question_marks_opens_its_page(client_as):
    _dataset()
    client = client_as("researcher")
    listing = client.get("/datasets/many/documents/?prefix=odd").content.decode()
    link = "/datasets/many/document/?id=" + quote("odd/id #1?x=..", safe="")
    assert f'href="{link}"' in listing
    page = client.get(link)
    assert page.status_code == 200
    assert "odd text" in page.content.decode()
