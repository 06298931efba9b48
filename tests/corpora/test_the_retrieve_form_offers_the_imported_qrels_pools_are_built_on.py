"""The dataset page's "Run a built-in retriever" starts on the queries of the benchmark's own
imported qrel set, the one its pools are built on, never on a refined set (whose labels may
be simulated) that merely sorts first by name: the newest pool's imported set, else ``test``,
else the first imported set by name."""

import re

import pytest

from corpora.models import Pool, QrelSet
from corpora.selectors import qrel_set_original_default

pytestmark = pytest.mark.django_db


def offered(client, slug: str) -> list[tuple[str, bool]]:
    """The retrieve form's "Queries of" options as (value, selected)."""
    page = client.get(f"/datasets/{slug}/").content.decode()
    form = page[page.index('id="retrieve-form"') :]
    select = form[form.index('name="queries"') :]
    select = select[: select.index("</select>")]
    return [(v, bool(s)) for v, s in re.findall(r'<option value="([^"]*)"( selected)?', select)]


def test_a_refined_set_sorting_first_is_not_offered_first(client_as, tiny_dataset):
    QrelSet.objects.create(dataset=tiny_dataset, name="a-refined", origin="refined")
    assert offered(client_as("admin"), tiny_dataset.slug) == [
        ("a-refined", False),
        ("test", True),
        ("all", False),
    ]


def test_the_newest_pools_imported_set_comes_before_test(tiny_dataset):
    dev = QrelSet.objects.create(dataset=tiny_dataset, name="dev")
    refined = QrelSet.objects.create(dataset=tiny_dataset, name="a", origin="refined")
    assert qrel_set_original_default(dataset=tiny_dataset).name == "test"  # pool p is on test
    Pool.objects.create(dataset=tiny_dataset, qrel_set=dev, name="on-dev", depth=2)
    assert qrel_set_original_default(dataset=tiny_dataset) == dev
    # A newer pool on a refined set does not count: pools are meant on the original qrels.
    Pool.objects.create(dataset=tiny_dataset, qrel_set=refined, name="on-refined", depth=2)
    assert qrel_set_original_default(dataset=tiny_dataset) == dev


def test_without_pools_or_test_the_first_imported_set_by_name(tiny_dataset):
    Pool.objects.filter(dataset=tiny_dataset).delete()
    QrelSet.objects.filter(dataset=tiny_dataset, name="test").update(name="train")
    QrelSet.objects.create(dataset=tiny_dataset, name="dev")
    QrelSet.objects.create(dataset=tiny_dataset, name="a", origin="refined")
    assert qrel_set_original_default(dataset=tiny_dataset).name == "dev"
    QrelSet.objects.filter(dataset=tiny_dataset, origin="imported").update(origin="refined")
    assert qrel_set_original_default(dataset=tiny_dataset) is None
