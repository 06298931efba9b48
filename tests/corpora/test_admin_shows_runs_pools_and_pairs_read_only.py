"""Runs, run entries, pools and pairs are built by their commands only: the admin shows them
but a change form POST changes nothing (403), nothing can be added there, and deleting a pool
still works."""

import pytest

from corpora.models import Pair, PairSource, Pool, Run, RunEntry
from corpora.services import pool_build, qrel_set_get

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 .9 A", "q2 Q0 d1 2 .8 A"]


@pytest.fixture
def pool(energy, import_run):
    run = import_run(energy, "alpha", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")
    return pool_build(dataset=energy, qrel_set=test, runs=[run], depth=2).pool


def snapshot() -> dict:
    return {
        "pools": list(Pool.objects.values_list("pk", "name", "depth", "include_judged")),
        "pool_runs": list(Pool.runs.through.objects.values_list("pool_id", "run_id")),
        "pairs": list(
            Pair.objects.order_by("pk").values_list(
                "pk", "pool_id", "query_id", "document_id", "original_relevance"
            )
        ),
        "sources": list(PairSource.objects.order_by("pk").values_list("pair_id", "run_id", "rank")),
        "runs": list(Run.objects.values_list("pk", "name", "status", "system", "parameters")),
        "entries": list(RunEntry.objects.order_by("pk").values_list("pk", "rank", "score")),
    }


@pytest.mark.django_db
def test_a_change_form_post_changes_no_pool_pair_run_or_entry(pool, energy, admin_client):
    before = snapshot()
    assert [p[2] for p in before["pools"]] == [2]
    pair = Pair.objects.get(query__query_id="q1", document__doc_id="d2")
    run = Run.objects.get(name="alpha")
    entry = RunEntry.objects.filter(run=run).order_by("pk").first()
    other_query = energy.queries.get(query_id="q3")
    posts = {
        f"/admin/corpora/pool/{pool.pk}/change/": {
            "dataset": energy.pk,
            "qrel_set": pool.qrel_set_id,
            "name": pool.name,
            "depth": 1,
            "include_judged": "on",
            "runs": [],
            "query_ids": "[]",
        },
        f"/admin/corpora/pair/{pair.pk}/change/": {
            "pool": pool.pk,
            "query": other_query.pk,
            "document": pair.document_id,
            "original_relevance": 2,
        },
        f"/admin/corpora/run/{run.pk}/change/": {
            "dataset": energy.pk,
            "name": "renamed",
            "system": "edited",
            "parameters": "{}",
            "source": "builtin",
            "status": "pending",
            "seconds": 0,
        },
        f"/admin/corpora/runentry/{entry.pk}/change/": {
            "run": run.pk,
            "query": entry.query_id,
            "document": entry.document_id,
            "rank": 9,
            "score": 0,
        },
    }
    for url, data in posts.items():
        assert admin_client.post(url, data).status_code == 403, url
        shown = admin_client.get(url)
        assert shown.status_code == 200, url
        assert b'name="_save"' not in shown.content, url
    assert snapshot() == before


@pytest.mark.django_db
def test_nothing_is_added_in_the_admin_but_a_pool_can_be_deleted(pool, energy, admin_client):
    for model in ("pool", "pair", "run", "runentry"):
        assert admin_client.get(f"/admin/corpora/{model}/add/").status_code == 403, model
    assert (
        admin_client.post(
            "/admin/corpora/pool/add/",
            {
                "dataset": energy.pk,
                "qrel_set": pool.qrel_set_id,
                "name": "made-by-hand",
                "depth": 5,
            },
        ).status_code
        == 403
    )
    assert list(Pool.objects.values_list("name", flat=True)) == ["test-depth2"]

    response = admin_client.post(f"/admin/corpora/pool/{pool.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert (Pool.objects.count(), Pair.objects.count(), PairSource.objects.count()) == (0, 0, 0)
    assert Run.objects.filter(name="alpha").exists()
