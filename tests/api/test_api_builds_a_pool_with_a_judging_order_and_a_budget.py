"""``POST /api/v1/datasets/<slug>/pools`` takes a strategy and a budget; the operation's result
and the pool listing give the budget in pairs; a fractional count is refused by name."""

import pytest

from tests.fixtures.api import wait_for

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q1 Q0 d4 3 1 A", "q2 Q0 d1 1 .9 A"]
RUN_B = ["q1 Q0 d2 1 3 B", "q1 Q0 d3 2 2 B", "q2 Q0 d2 1 .9 B"]


def _ok(answer, status=200):
    assert answer.status_code == status, answer.content.decode()[:2000]
    return answer.json()


@pytest.mark.django_db(transaction=True)
def test_a_bandit_pool_with_half_the_pairs_as_budget_is_built_and_listed(
    api_as, energy, import_run
):
    import_run(energy, "a", RUN_A)
    import_run(energy, "b", RUN_B)
    api = api_as("admin")
    op = _ok(
        api.post(
            "/api/v1/datasets/energy/pools",
            {"runs": ["a", "b"], "depth": 3, "strategy": "bandit", "budget": 0.5},
            content_type="application/json",
        ),
        202,
    )
    done = wait_for(lambda: _ok(api.get(op["url"])), lambda o: o["status"] in ("done", "failed"))
    assert done["status"] == "done", done["error"]
    assert (done["result"]["name"], done["result"]["pairs"], done["result"]["budget"]) == (
        "test-depth3-bandit",
        4,
        2,
    )
    listed = _ok(api.get("/api/v1/datasets/energy/pools"))["items"]
    assert [(p["strategy"], p["budget"]) for p in listed] == [("bandit", 2)]


@pytest.mark.django_db
def test_a_fractional_count_budget_is_refused_naming_the_field(api_as, energy):
    answer = api_as("admin").post(
        "/api/v1/datasets/energy/pools",
        {"runs": ["a"], "strategy": "rbp", "budget": 2.5},
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        "budget: 2.5: give a whole number of pairs (1, 2000) or a share below 1 (0.6); "
        "leave it out to judge the whole pool"
    )
