"""The admin lists runs, pools (with their runs and pair counts) and pairs with their
provenance (run: rank, score)."""

import pytest

from corpora.models import Pair
from corpora.services import pool_build, qrel_set_get

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 .9 A", "q2 Q0 d1 2 .8 A"]
RUN_B = ["q1 Q0 d2 1 .9 B", "q1 Q0 d4 2 .5 B"]


@pytest.mark.django_db
def test_pool_and_pair_pages_show_runs_counts_and_provenance(energy, import_run, admin_client):
    runs = [import_run(energy, "alpha", RUN_A), import_run(energy, "beta", RUN_B)]
    pool_build(
        dataset=energy, qrel_set=qrel_set_get(dataset=energy, name="test"), runs=runs, depth=2
    )

    pools = admin_client.get("/admin/corpora/pool/").content.decode()
    assert "test-depth2" in pools
    assert "alpha, beta" in pools
    assert '<td class="field-pairs">3</td>' in pools

    pairs = admin_client.get("/admin/corpora/pair/").content.decode()
    assert "alpha: #2 (2), beta: #1 (0.9)" in pairs
    assert "beta: #2 (0.5)" in pairs

    pair = Pair.objects.get(query__query_id="q1", document__doc_id="d2")
    detail = admin_client.get(f"/admin/corpora/pair/{pair.pk}/change/")
    assert detail.status_code == 200
    assert admin_client.get("/admin/corpora/run/").status_code == 200
    assert admin_client.get("/admin/corpora/runentry/").status_code == 200
