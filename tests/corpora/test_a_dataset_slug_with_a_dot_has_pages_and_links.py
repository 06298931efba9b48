"""A dataset slug may hold a "." (core.names allows it: ``trec.covid``), so every page of
the dataset has an address and every list linking it renders."""

import pytest
from django.urls import NoReverseMatch, reverse

from corpora.models import Dataset


@pytest.fixture
def dotted(db):
    return Dataset.objects.create(name="TREC-COVID", slug="trec.covid")


def test_the_dataset_list_links_a_dotted_slug_and_its_page_opens(dotted, client_as):
    client = client_as("researcher")
    listing = client.get("/datasets/")
    assert listing.status_code == 200
    assert 'href="/datasets/trec.covid/"' in listing.content.decode()
    page = client.get("/datasets/trec.covid/")
    assert page.status_code == 200 and "TREC-COVID" in page.content.decode()


@pytest.mark.parametrize(
    "name",
    [
        "corpora:dataset_detail",
        "corpora:document_list",
        "refined:refined_list",
        "refined:rebenchmark",
        "refined:rag",
        "assess:dataset_guidelines",
    ],
)
def test_every_dataset_page_reverses_with_a_dotted_slug(name):
    assert reverse(name, kwargs={"slug": "trec.covid"}).startswith("/datasets/trec.covid/")


def test_a_django_slug_keeps_its_address_and_a_segment_with_a_slash_has_none():
    assert reverse("corpora:dataset_detail", kwargs={"slug": "_scratch"}) == "/datasets/_scratch/"
    with pytest.raises(NoReverseMatch):
        reverse("corpora:dataset_detail", kwargs={"slug": "a/b"})
