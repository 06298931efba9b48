"""``POST /api/v1/datasets/<slug>/pools`` under the name of an existing pool with other runs
does what ``build_pool`` does with the same input (adds the runs to that pool, pairs never
removed) and says so in the operation's ``result``: ``existed``, the runs, the pairs and
provenance rows this build created and ``built`` in words; the same runs again say that
nothing was built."""

import pytest
from django.core.management import call_command

from tests.fixtures.api import wait_for

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q1 Q0 d4 3 1 A", "q2 Q0 d1 1 .9 A"]
RUN_B = ["q1 Q0 d2 1 3 B", "q1 Q0 d3 2 2 B", "q2 Q0 d2 1 .9 B"]

pytestmark = pytest.mark.django_db(transaction=True)


def _build(api, runs):
    answer = api.post(
        "/api/v1/datasets/energy/pools",
        {"runs": runs, "depth": 3, "name": "mine"},
        content_type="application/json",
    )
    assert answer.status_code == 202, answer.content
    url = answer.json()["url"]
    done = wait_for(lambda: api.get(url).json(), lambda o: o["status"] in ("done", "failed"))
    assert done["status"] == "done", done["error"]
    return done["result"]


def test_a_second_build_under_the_name_says_it_added_its_runs(api_as, energy, import_run):
    import_run(energy, "a", RUN_A)
    import_run(energy, "b", RUN_B)
    api = api_as("admin")

    first = _build(api, ["a"])
    second = _build(api, ["b"])
    again = _build(api, ["b"])

    assert (first["existed"], first["built"]) == (False, "pool 'mine' built: 3 pairs")
    assert {k: second[k] for k in ("existed", "runs", "pairs", "created_pairs")} == {
        "existed": True,
        "runs": ["a", "b"],
        "pairs": 4,
        "created_pairs": 1,
    }
    assert second["built"] == (
        "pool 'mine' existed already with runs a; this build added runs b to it (1 new pairs "
        'and 2 provenance rows; now 4 pairs); send another "name" for a pool of its own'
    )
    assert again["created_pairs"] == 0
    assert again["built"] == (
        "pool 'mine' existed already with runs a, b: nothing was built (the same runs "
        'again); send another "name" for a new pool'
    )


def test_the_command_adds_the_runs_alike(energy, import_run, capsys):
    import_run(energy, "a", RUN_A)
    import_run(energy, "b", RUN_B)
    call_command("build_pool", "energy", "--runs", "a", "--depth", "3", "--name", "mine")
    call_command("build_pool", "energy", "--runs", "b", "--depth", "3", "--name", "mine")
    assert "pool mine (runs a, b; depth 3" in capsys.readouterr().out
