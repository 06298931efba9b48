"""The dataset's admin page shows the identical-id counts measured at import (read only) and
lets an admin switch "exclude identical ids"; later retrievals follow the setting."""

import pytest

from corpora.models import Dataset
from corpora.services import dataset_import_beir, run_create


@pytest.mark.django_db
def test_the_admin_turns_the_exclusion_off(selfish_folder, admin_client):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish")
    url = f"/admin/corpora/dataset/{dataset.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert (
        '<input type="checkbox" name="exclude_identical_ids" '
        'aria-describedby="id_exclude_identical_ids_helptext" id="id_exclude_identical_ids" '
        "checked>" in page
    )
    assert 'name="identical_ids"' not in page  # counted at import, not editable
    response = admin_client.post(
        url,
        {
            "name": dataset.name,
            "slug": dataset.slug,
            "source": dataset.source,
            "licence": "",
        },
    )
    assert response.status_code == 302
    dataset = Dataset.objects.get(pk=dataset.pk)
    assert (dataset.exclude_identical_ids, dataset.identical_ids) == (False, 2)
    run = run_create(dataset=dataset, retriever="bm25", k=1, queries="test")
    assert "exclude_identical_ids" not in run.parameters
