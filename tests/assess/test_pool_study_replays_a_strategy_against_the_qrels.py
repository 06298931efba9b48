"""``pool_study`` replays a strategy against a collection's qrels: how many of the depth
pool's relevant pairs the budget finds and how far its leaderboard agrees with the whole
pool's (tau_AP), as one JSON object with the study's keys."""

import json

import pytest
from django.core.management import CommandError, call_command

from assess.evaluation.pool_study import pool_replay

RANKINGS = {"A": {"q1": ["d1", "d2", "d3"]}, "B": {"q1": ["d2", "d4", "d5"]}}
QRELS = {"q1": {"d1": 1, "d4": 1, "d9": 1}}  # d9 is relevant but no run finds it


def test_a_depth_replay_at_two_pairs_finds_one_of_the_pools_two_relevant_pairs():
    replay = pool_replay("depth", RANKINGS, QRELS, depth=3, budget=2)
    # Depth order: rank 1 of both runs first (d1, d2): one relevant (d1) of the pool's
    # d1, d4 (d9 is outside the pool).
    assert (replay.judged, replay.relevant_found) == (2, 1)
    assert (replay.depth_pool_judged, replay.relevant_in_depth_pool) == (5, 2)
    # Whole pool: A has d1 at 1 -> 1 / (1 + 1/log2 3) = 0.6131; B has d4 at 2 -> 0.3869.
    assert replay.scores_pool == pytest.approx({"A": 0.613147, "B": 0.386853}, abs=1e-6)
    # Judged d1, d2 only: A = 1, B = 0. Same order: tau_AP = 1.
    assert replay.scores_budget == pytest.approx({"A": 1.0, "B": 0.0})
    assert replay.tau_ap == 1.0
    assert replay.curve == [1, 1]


def test_a_replay_of_the_whole_pool_finds_every_relevant_pair_with_the_same_leaderboard():
    for strategy in ("depth", "rbp", "rrf", "bandit", "mtc"):
        replay = pool_replay(strategy, RANKINGS, QRELS, depth=3, budget=None)
        assert replay.judged == replay.depth_pool_judged == 5
        assert replay.relevant_found == replay.relevant_in_depth_pool == 2
        assert replay.scores_budget == replay.scores_pool


def test_a_budget_share_counts_in_pairs_of_the_depth_pool():
    assert pool_replay("bandit", RANKINGS, QRELS, depth=3, budget=0.6).judged == 3


def test_no_run_ranking_a_judged_query_is_refused():
    with pytest.raises(ValueError, match="no run ranks a query the qrels judge"):
        pool_replay("bandit", {"A": {"q7": ["d1"]}}, QRELS, depth=3, budget=None)


@pytest.mark.django_db
def test_the_command_prints_one_json_object_with_the_studys_keys(energy, import_run, capsys):
    import_run(energy, "a", ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 1 A"])
    import_run(energy, "b", ["q1 Q0 d2 1 3 B", "q2 Q0 d4 1 2 B", "q2 Q0 d3 2 1 B"])
    call_command(
        "pool_study", "energy", "--qrels", "test", "--runs", "a,b", "--strategy", "mtc",
        "--budget", "1", "--depth", "10", "--json",
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert list(out)[:6] == [
        "strategy", "judged", "relevant_found", "depth_pool_judged",
        "relevant_in_depth_pool", "tau_ap",
    ]  # fmt: skip
    # Pool: q1 d1 (rel), d2; q2 d3 (rel, grade 2), d4 (-1): 4 pairs, 2 relevant.
    assert (out["strategy"], out["judged"], out["depth_pool_judged"]) == ("mtc", 1, 4)
    assert out["relevant_in_depth_pool"] == 2


@pytest.mark.django_db
def test_a_dataset_without_runs_is_refused_saying_how_to_make_them(energy):
    with pytest.raises(CommandError, match="has no finished run.*`retrieve`, `study_systems`"):
        call_command("pool_study", "energy", "--strategy", "bandit", "--json")


@pytest.mark.django_db
@pytest.mark.parametrize("budget", ["0", "-3", "2.5", "lots", "inf", "nan"])
def test_a_bad_budget_is_refused(energy, budget):
    with pytest.raises(CommandError, match="--budget"):
        call_command("pool_study", "energy", "--budget", budget)


def test_a_run_ranking_none_of_the_judged_queries_is_refused_by_name():
    rankings = {**RANKINGS, "C": {"q7": ["d1", "d2"]}}
    with pytest.raises(ValueError, match=r"run\(s\) C rank none of the queries the qrels judge"):
        pool_replay("bandit", rankings, QRELS, depth=3, budget=None)


@pytest.mark.django_db
def test_a_missing_bm25_run_is_made_first_and_said_on_stderr(energy, capsys):
    from corpora.models import Run

    call_command("pool_study", "energy", "--runs", "bm25", "--strategy", "depth", "--json")
    captured = capsys.readouterr()
    assert "making run bm25 with the built-in retriever" in captured.err
    out = json.loads(captured.out)  # stdout stays one JSON object
    assert out["strategy"] == "depth" and out["judged"] == out["depth_pool_judged"] > 0
    assert Run.objects.get(dataset=energy, name="bm25").status == Run.Status.DONE
