"""The re-benchmark JSON's tables hold display strings ("0.6618"); ``leaderboards`` holds
the same two leaderboards as numbers, every system and every measure of the tables (the
refined one with Hole@10), unrounded, in leaderboard order."""

import pytest

pytestmark = pytest.mark.django_db


def test_every_system_and_measure_of_both_leaderboards_is_a_number(refined, api_as):
    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark")
    body = body.json()
    for side, table in (("original", body["tables"][0]), ("refined", body["tables"][1])):
        rows = body["leaderboards"][side]
        assert [r["system"] for r in rows] == [row[1] for row in table["rows"]]
        assert [r["rank"] for r in rows] == [int(row[0]) for row in table["rows"]]
        measures = table["header"][2:]
        for row, shown in zip(rows, table["rows"], strict=True):
            assert list(row["scores"]) == measures
            for value, text in zip(row["scores"].values(), shown[2:], strict=True):
                assert isinstance(value, float)
                assert f"{value:.4f}" == text
    refined = {r["system"]: r["scores"] for r in body["leaderboards"]["refined"]}
    assert sorted(refined) == ["alpha", "beta"]
    assert (
        "Hole@10" in refined["alpha"]
        and "Hole@10" not in body["leaderboards"]["original"][0]["scores"]
    )
