"""The upload form asks, as the name is typed, whether a dataset can take it: a cheap GET
that writes nothing answers with a note (the form is then not sent, static/app.js); a form
sent all the same is still refused, before its files are saved."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from corpora.models import Dataset, Operation
from tests.fixtures.ui import html_elements

URL = "/datasets/new/name-check/"
HX = {"HX-Request": "true"}


@pytest.mark.django_db
def test_a_taken_name_or_slug_is_named_and_nothing_is_written(tiny_dataset, client_as):
    client = client_as("admin")
    before = Dataset.objects.count()
    taken = client.get(URL, {"name": "Tiny", "slug": ""}, headers=HX).content.decode()
    assert (
        '<span class="field-error" data-taken="1" role="alert">name: a dataset with slug '
        "&#x27;tiny&#x27; exists already (&#x27;tiny&#x27;); choose another</span>"
    ) in taken
    by_slug = client.get(URL, {"name": "Other", "slug": "tiny"}, headers=HX).content.decode()
    assert "slug: a dataset with slug &#x27;tiny&#x27; exists already" in by_slug
    free = client.get(URL, {"name": "Tiny Two"}, headers=HX).content.decode()
    assert "data-taken" not in free
    assert 'Free: the dataset will be <span class="id">tiny-two</span>.' in free
    empty = client.get(URL, {"name": "!!!"}, headers=HX).content.decode()
    assert "name: &#x27;!!!&#x27; gives an empty slug" in empty
    assert Dataset.objects.count() == before
    assert client.post(URL, {"name": "x"}).status_code == 405


@pytest.mark.django_db
def test_the_form_asks_as_the_name_or_slug_is_typed(client_as):
    page = client_as("admin").get("/datasets/new/").content.decode()
    elements, _ = html_elements(page)
    (checker,) = [a for _t, a in elements if a.get("hx-get") == URL]
    assert "from:#id_name" in checker["hx-trigger"] and "from:#id_slug" in checker["hx-trigger"]
    assert (checker["hx-include"], checker["hx-target"]) == ("#id_name, #id_slug", "#name-check")
    assert any(a.get("id") == "name-check" for _t, a in elements)


@pytest.mark.django_db
def test_a_form_sent_with_a_taken_name_is_refused_before_its_files_are_kept(
    tiny_dataset, client_as, settings, tmp_path
):
    settings.VAR_DIR = tmp_path
    answer = client_as("admin").post(
        "/datasets/new/",
        {
            "name": "tiny",
            "split": "test",
            "unknown_ids": "reject",
            "archive": SimpleUploadedFile("b.zip", b"PK\x05\x06" + b"\x00" * 18),
        },
    )
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "a dataset with slug &#x27;tiny&#x27; exists already" in page
    assert not Operation.objects.exists()
    assert not (tmp_path / "uploads").exists()
