"""``pool_study`` says in words why a replay has no tau_AP (fewer than 2 systems, or every
system tied on a leaderboard), counts "1 system" in the singular, says "no relevant pair in
the depth pool" instead of a percentage of nothing, and refuses a run named twice in --runs
(it would silently become one system)."""

import json

import pytest
from django.core.management import CommandError, call_command

from assess.evaluation.pool_study import pool_replay

RANKINGS = {"A": {"q1": ["d1", "d2", "d3"]}, "B": {"q1": ["d2", "d4", "d5"]}}


def test_one_system_has_no_tau_ap_and_the_note_says_so():
    replay = pool_replay("mtc", {"A": RANKINGS["A"]}, {"q1": {"d1": 1}}, depth=3, budget=2)
    assert replay.tau_ap is None
    assert replay.note == "τ_AP needs at least 2 systems not all tied: only 1 system (A)"


def test_every_system_tied_at_zero_has_no_tau_ap_and_the_note_names_both_leaderboards():
    # d9 is the only relevant document and no run ranks it: both runs score 0 both ways.
    replay = pool_replay("depth", RANKINGS, {"q1": {"d9": 1}}, depth=3, budget=None)
    assert replay.tau_ap is None
    assert replay.as_json()["relevant_share"] is None
    assert replay.note == (
        "τ_AP needs at least 2 systems not all tied: every system ties at 0.000 on the whole "
        "depth pool's leaderboard and every system ties at 0.000 on the judged pairs' "
        "leaderboard"
    )


def test_a_budget_whose_leaderboard_ties_names_only_that_leaderboard():
    # d3 (rank 3 of A) is the only relevant pair: the whole pool scores A 1/log2(4) = 0.5,
    # B 0; a budget of one pair judges only a rank-1 pair, so both score 0 on it.
    replay = pool_replay("depth", RANKINGS, {"q1": {"d3": 1}}, depth=3, budget=1)
    assert replay.scores_pool == {"A": 0.5, "B": 0.0}
    assert replay.scores_budget == {"A": 0.0, "B": 0.0}
    assert replay.tau_ap is None
    assert replay.note == (
        "τ_AP needs at least 2 systems not all tied: every system ties at 0.000 on the judged "
        "pairs' leaderboard"
    )


def test_a_replay_with_a_tau_ap_has_no_tau_note():
    replay = pool_replay("depth", RANKINGS, {"q1": {"d1": 1, "d4": 1}}, depth=3, budget=2)
    assert replay.tau_ap == 1.0 and replay.note == ""


@pytest.mark.django_db
def test_the_text_counts_one_system_and_says_why_there_is_no_tau(energy, import_run, capsys):
    import_run(energy, "a", ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 1 A"])
    call_command("pool_study", "energy", "--runs", "a", "--strategy", "mtc", "--budget", "1")
    text = capsys.readouterr().out
    assert "energy (test), 1 system, 2 queries" in text
    assert "depth pool's: none (see the note)" in text
    assert "note: τ_AP needs at least 2 systems not all tied: only 1 system (a)" in text
    call_command("pool_study", "energy", "--runs", "a", "--budget", "1", "--json")
    out = json.loads(capsys.readouterr().out)
    assert out["tau_ap"] is None and out["note"].startswith("τ_AP needs at least 2 systems")


@pytest.mark.django_db
def test_a_depth_pool_without_a_relevant_pair_prints_no_percentage(energy, import_run, capsys):
    import_run(energy, "a", ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 1 A"])
    import_run(energy, "b", ["q1 Q0 d2 1 3 B", "q2 Q0 d4 1 2 B", "q2 Q0 d3 2 1 B"])
    call_command("pool_study", "energy", "--runs", "a,b", "--rel-level", "5")
    text = capsys.readouterr().out
    assert "2 systems" in text
    assert "(100.0%); no relevant pair in the depth pool" in text
    assert "of 0 (" not in text


@pytest.mark.django_db
def test_a_run_named_twice_is_refused_as_fuse_runs_refuses_it(energy, import_run):
    import_run(energy, "a", ["q1 Q0 d1 1 3 A", "q2 Q0 d3 1 1 A"])
    with pytest.raises(CommandError, match="run 'a' is named twice; name each run once"):
        call_command("pool_study", "energy", "--runs", "a,a", "--json")
