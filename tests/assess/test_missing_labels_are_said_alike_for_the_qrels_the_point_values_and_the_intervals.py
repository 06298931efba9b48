"""Labels the intervals lack are said one way everywhere (assess.evaluation.interval_missing):
a pool pair with no final label is left out of the refined qrels, so the point values count
it as not relevant, while the intervals take an escalation as missing at random among the
escalated pairs; an agreed pair drawn for the audit and not judged yet keeps its debate label
and is missing at random in its stratum. A trial saw three contradicting sentences for one
waiting escalation, no word on 62 drawn audits not judged yet, and a human budget named for a
job that had none ("1 pooled pairs humans must decide ...")."""

from assess.evaluation.interval_missing import (
    MissingLabels,
    audits_note,
    audits_unseen,
    escalations_note,
    missing_notes,
    unresolved_note,
)
from assess.evaluation.intervals import PooledLabel

ONE_WAITING = MissingLabels(unresolved=1, escalations=1)


def test_one_waiting_escalation_is_left_out_of_the_qrels_and_missing_at_random_in_the_intervals():
    assert unresolved_note(ONE_WAITING) == (
        "1 pool pair has no final label: left out of the refined qrels, so the point values "
        "count it as not relevant; the intervals take it as missing at random among the "
        "escalated pairs (an escalation humans must decide)"
    )


def test_a_pair_no_human_decides_is_not_relevant_in_the_intervals_too():
    assert unresolved_note(MissingLabels(unresolved=2)) == (
        "2 pool pairs have no final label: left out of the refined qrels, so the point values "
        "count them as not relevant; the intervals count them as not relevant too (a debate "
        "pending or failed, or a pair never debated: no escalation), so no interval covers "
        "their labels"
    )


def test_escalations_and_other_pairs_without_a_label_are_told_apart():
    words = unresolved_note(MissingLabels(unresolved=3, escalations=1))
    assert words.endswith(
        "; the intervals take the 1 escalated one as missing at random among the escalated "
        "pairs, and count the other 2 (a debate pending or failed, or a pair never debated) "
        "as not relevant too, outside every interval"
    )


def test_without_intervals_the_note_says_only_what_the_qrels_and_point_values_do():
    assert missing_notes(ONE_WAITING, intervals=False) == [
        "1 pool pair has no final label: left out of the refined qrels, so the point values "
        "count it as not relevant"
    ]


def test_a_waiting_escalation_with_no_human_budget_names_no_budget_and_reads_in_the_singular():
    words = escalations_note(ONE_WAITING)
    assert words == (
        "1 escalated pair has no human label yet: predicted at the judged escalations' share "
        "of relevant, its uncertainty in the intervals (wider for it); that it is missing at "
        "random among the escalated pairs is an assumption, not a design: the review queue "
        "serves the pairs of highest impact first, so the judged ones may weigh more than the "
        "one waiting; judge it and refine again to drop it"
    )
    assert "budget" not in words


def test_escalations_beyond_a_human_budget_say_the_budget_serves_them_by_impact():
    words = escalations_note(MissingLabels(unresolved=5, escalations=4, over_budget=3))
    assert words.startswith("4 escalated pairs have no human label yet: ")
    assert (
        "3 of them wait beyond a job's human budget, which serves escalations by their "
        "impact, so the judged ones are those that weigh most; raise the budget, judge them "
        "and refine again to drop it"
    ) in words


def test_drawn_audit_pairs_not_judged_yet_get_their_own_note():
    assert audits_note(MissingLabels(audits=62)) == (
        "62 pairs drawn for the audit have no human label yet: their debate labels stand in "
        "the refined qrels and the point values; the intervals take their human labels as "
        "missing at random among the pairs of their stratum drawn at the same rate (under a "
        "Neyman audit, their audit unit), so the intervals are wider and rest on that "
        "assumption; judge them and refine again to drop it"
    )


def test_every_note_comes_from_the_counts_and_nothing_is_said_of_what_is_not_missing():
    counts = {"unresolved": 1, "escalated_waiting": 1, "over_budget": 0, "audit_waiting": 62}
    notes = missing_notes(MissingLabels.of(counts))
    assert notes == [
        unresolved_note(ONE_WAITING),
        escalations_note(ONE_WAITING),
        audits_note(MissingLabels(audits=62)),
    ]
    assert missing_notes(MissingLabels.of({"agreed": 10, "audited": 3})) == []


def test_drawn_audit_pairs_of_a_stratum_with_no_human_label_keep_their_debate_labels():
    # Nothing stands for them in the intervals: they are not said to be missing at random.
    assert audits_note(MissingLabels(audits=1, audits_unseen=1)) == (
        "1 pair drawn for the audit has no human label yet: its debate label stands in the "
        "refined qrels and the point values, and in the intervals too, its stratum having no "
        "human label at all; judge it and refine again for the intervals to see its errors"
    )
    words = audits_note(MissingLabels(audits=5, audits_unseen=2))
    assert "the intervals take the human labels of 3 of them as missing at random" in words
    assert "the other 2, in strata with no human label at all, keep their debate labels" in words


def test_one_drawn_audit_pair_of_an_unseen_stratum_reads_in_the_singular():
    words = audits_note(MissingLabels(audits=3, audits_unseen=1))
    assert "the intervals take the human labels of 2 of them as missing at random" in words
    assert (
        "; the other one, in a stratum with no human label at all, keeps its debate label "
        "there too; judge them and refine again to drop it"
    ) in words
    assert "the other 1" not in words and "strata" not in words
    words = audits_note(MissingLabels(audits=2, audits_unseen=1))
    assert (
        "the intervals take the human label of 1 of them as missing at random among the pairs "
        "of its stratum drawn at the same rate (under a Neyman audit, its audit unit)"
    ) in words


def test_drawn_audit_pairs_beyond_a_human_budget_say_to_raise_it():
    # An audit item ranked beyond its job's human budget is never given to an annotator:
    # judging it needs the budget raised first.
    assert audits_note(MissingLabels(audits=3, audits_over_budget=1)).endswith(
        "; 1 of them waits beyond a job's human budget, so no annotator is given it: raise "
        "the budget, judge them and refine again to drop it"
    )
    assert audits_note(MissingLabels(audits=1, audits_unseen=1, audits_over_budget=1)).endswith(
        "; it waits beyond a job's human budget, so no annotator is given it: raise the "
        "budget, judge it and refine again for the intervals to see its errors"
    )
    assert "budget" not in audits_note(MissingLabels(audits=3))
    assert MissingLabels.of({"audit_waiting": 3, "audit_over_budget": 2}).audits_over_budget == 2


def test_one_escalation_of_several_beyond_the_budget_reads_in_the_singular():
    words = escalations_note(MissingLabels(unresolved=3, escalations=3, over_budget=1))
    assert ": 1 of them waits beyond a job's human budget" in words


def test_only_a_stratum_that_no_human_label_reaches_after_collapsing_is_unseen():
    def agreed(doc, machine, human, stratum, drawn=True):
        return PooledLabel("q", doc, machine, human, stratum, drawn, 0.5)

    pool = [
        agreed("a", 1, 1, "label 1, round 1"),
        agreed("b", 1, None, "label 1, round 1"),  # answered stratum: missing at random
        agreed("c", 1, None, "label 1, round 2"),  # collapsed into label 1, round 1
        agreed("d", 0, None, "label 0, round 2"),  # no label-0 sibling answered: unseen
        agreed("e", 0, None, "label 0, round 2", drawn=False),  # not drawn: not waiting
        PooledLabel("q", "f", None, None, "escalated", True, 1.0),  # an escalation
    ]
    assert audits_unseen(pool) == 1
