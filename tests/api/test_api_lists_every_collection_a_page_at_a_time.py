"""Every list of the API pages the same way: ``?page=N`` (1..100,000), answering
``{"items": [...], "count": N}``; ``/datasets`` too (no limit/offset)."""

import pytest

LISTS = [
    "/api/v1/datasets",
    "/api/v1/jobs",
    "/api/v1/datasets/tiny/qrels",
    "/api/v1/datasets/tiny/runs",
    "/api/v1/datasets/tiny/pools",
    "/api/v1/datasets/tiny/refined",
]


@pytest.mark.parametrize("path", LISTS)
def test_a_list_answers_items_and_count_and_bounds_its_page(api_as, tiny_dataset, path):
    api = api_as("researcher")
    first = api.get(path)
    assert first.status_code == 200
    assert set(first.json()) == {"items", "count"}
    assert len(first.json()["items"]) == first.json()["count"]
    far = api.get(f"{path}?page=100000").json()
    assert far == {"items": [], "count": first.json()["count"]}
    assert api.get(f"{path}?page=0").status_code == 422
    assert api.get(f"{path}?page=100001").status_code == 422


def test_datasets_come_a_page_at_a_time_by_slug(api_as, tiny_dataset, settings):
    from corpora.models import Dataset

    settings.NINJA_PAGINATION_PER_PAGE = 1
    Dataset.objects.create(name="Another", slug="another")
    api = api_as("researcher")
    first, second = api.get("/api/v1/datasets").json(), api.get("/api/v1/datasets?page=2").json()
    assert (first["count"], second["count"]) == (2, 2)
    assert [d["slug"] for d in first["items"] + second["items"]] == ["another", "tiny"]
    assert first["items"][0]["documents"] == 0
    assert second["items"][0]["documents"] == 3
    refused = api.get("/api/v1/datasets?limit=1&offset=1")
    assert refused.status_code == 422  # no such parameters: one paging scheme
    assert refused.json()["detail"] == (
        "limit: Unknown query parameter; offset: Unknown query parameter"
    )


def test_the_pools_list_shows_the_pool(api_as, tiny_dataset):
    pools = api_as("researcher").get("/api/v1/datasets/tiny/pools").json()
    assert pools["count"] == 1
    assert [(p["name"], p["pairs"], p["runs"]) for p in pools["items"]] == [("p", 2, ["bm25"])]
