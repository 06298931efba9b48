"""Text from documents, queries and datasets is escaped: a chunk holding ``<script>`` and
``<img onerror>`` renders as visible text, never as markup."""

import pytest

from corpora.models import Dataset, Document, Qrel, QrelSet, Query
from tests.fixtures.ui import html_elements

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
SCRIPT_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
IMG_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"


@pytest.fixture
def hostile(db):
    dataset = Dataset.objects.create(name=f"evil {SCRIPT}", slug="evil", licence=IMG)
    document = Document.objects.create(
        dataset=dataset, doc_id="d<1>", title=f"title {SCRIPT}", text=f"before {IMG} after {SCRIPT}"
    )
    query = Query.objects.create(dataset=dataset, query_id="q1", text=f"query {IMG}")
    qrel_set = QrelSet.objects.create(dataset=dataset, name="test")
    Qrel.objects.create(qrel_set=qrel_set, query=query, document=document, relevance=1)
    return dataset


@pytest.mark.parametrize(
    "url",
    [
        "/datasets/",
        "/datasets/evil/",
        "/datasets/evil/documents/",
        "/datasets/evil/document/?id=d%3C1%3E",
    ],
)
def test_hostile_text_is_shown_escaped_and_runs_nothing(client_as, hostile, url):
    response = client_as("researcher").get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert SCRIPT not in html
    assert IMG not in html
    assert SCRIPT_ESCAPED in html
    elements, inline_scripts = html_elements(html)
    assert inline_scripts == []
    assert [tag for tag, _ in elements if tag == "img"] == []
    assert all(
        attrs.get("src", "").startswith("/static/") for tag, attrs in elements if tag == "script"
    )


def test_the_document_page_shows_document_and_query_text_escaped(client_as, hostile):
    html = client_as("researcher").get("/datasets/evil/document/?id=d%3C1%3E").content.decode()
    assert f"before {IMG_ESCAPED} after {SCRIPT_ESCAPED}" in html
    assert f"title {SCRIPT_ESCAPED}" in html
    assert f"query {IMG_ESCAPED}" in html
    assert "d&lt;1&gt;" in html
