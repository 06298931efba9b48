"""The single judge's n samples per pair become one label by majority vote: the split says
how the samples voted, a tie takes the lower label (as UMBRELA's ensemble judge) or
escalates, unread and failed samples do not vote, and n > 1 needs a temperature above 0.
Pure: no database."""

import pytest

from debates.votes import MAX_SAMPLES, SampledVerdict, majority_vote, sampling_check, split_counts


def test_the_majority_wins_and_the_split_counts_the_votes():
    vote = majority_vote([1, 0, 1])
    assert (vote.label, vote.split, vote.votes, vote.tie, vote.samples) == (
        1,
        "2-1",
        ((1, 2), (0, 1)),
        False,
        3,
    )
    assert majority_vote([0, 0, 0]).split == "3-0"
    # Graded: grade 2 twice, grades 0 and 3 once each (the lower first among equals).
    graded = majority_vote([2, 3, 2, 0])
    assert (graded.label, graded.split, graded.votes) == (2, "2-1-1", ((2, 2), (0, 1), (3, 1)))


def test_a_tie_takes_the_lower_label_or_escalates():
    lower = majority_vote([1, 0, None])
    assert (lower.label, lower.tie, lower.split, lower.unread) == (0, True, "1-1", 1)
    escalated = majority_vote([1, 0], ties="escalate")
    assert (escalated.label, escalated.tie) == (None, True)
    assert majority_vote([3, 1, 3, 1, 2]).label == 1  # graded tie 3 vs 1: the lower grade
    with pytest.raises(ValueError, match="ties must be one of lower, escalate, got 'coin'"):
        majority_vote([1], ties="coin")


def test_unread_and_failed_samples_do_not_vote():
    vote = majority_vote([None, 1], failed=1)
    assert (vote.label, vote.split, vote.unread, vote.failed, vote.samples) == (1, "1-0", 1, 1, 3)
    nothing = majority_vote([None, None], failed=1)
    assert (nothing.label, nothing.split, nothing.votes) == (None, "0-0", ())
    every = SampledVerdict(vote=majority_vote([], failed=3), attempts=0, errors=("x",) * 3)
    assert (every.all_failed, every.label) == (True, None)
    assert not SampledVerdict(vote=nothing, attempts=4).all_failed


def test_the_json_names_labels_as_keys():
    assert majority_vote([1, 0, 1]).as_json() == {
        "label": 1,
        "split": "2-1",
        "votes": {"1": 2, "0": 1},
        "unread": 0,
        "failed": 0,
        "tie": False,
    }


def test_splits_are_counted_the_winners_largest_share_first():
    votes = [majority_vote(v) for v in ([1, 1, 0], [1, 1, 1], [None, 1, 0], [0, 0, 1])]
    assert split_counts(votes) == {"3-0": 1, "2-1": 2, "1-1": 1}


def test_sampling_needs_a_temperature_above_zero_and_a_bounded_n():
    sampling_check(samples=1, temperature=0.0)  # one sample: any temperature
    sampling_check(samples=5, temperature=0.7)
    with pytest.raises(ValueError, match="at temperature 0 every sample is the same reply"):
        sampling_check(samples=3, temperature=0.0)
    with pytest.raises(ValueError, match=r"at most 2\), got 2.5"):
        sampling_check(samples=3, temperature=2.5)
    with pytest.raises(ValueError, match=f"samples must be in 1..{MAX_SAMPLES}, got 0"):
        sampling_check(samples=0, temperature=0.7)
    with pytest.raises(ValueError, match=f"got {MAX_SAMPLES + 1}"):
        sampling_check(samples=MAX_SAMPLES + 1, temperature=0.7)
