"""``GET /api/v1/jobs/{id}`` carries the budget planner of the job page (one service for
both): more human labels for +-0.01 on nDCG@10, the undecided system pairs, the human
sample's size, or the words of what is missing (the ``holes`` world of
tests/fixtures/refine.py)."""

import pytest

from assess.evaluation.interval_labels import pooled_labels
from assess.evaluation.interval_missing import MissingLabels, missing_notes
from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db

KEYS = {
    "more_human_labels",
    "target_half_width",
    "measure",
    "undecided_pairs",
    "n_human",
    "n_audited",
    "n_escalated",
    "simulated",
    "simulated_labels",
    "notes",
    "error",
    "refined",
    "unresolved",
    "beyond_budget",
    "escalated_waiting",
    "audit_waiting",
    "queries",
    "pooled_queries",
    "audit_share_needed",
    "few_audited",
}
PAIR_KEYS = {
    "a",
    "b",
    "difference",
    "low",
    "high",
    "settled",
    "n",
    "n_audited",
    "n_escalated",
    "n_bearing",
    "whole_range",
}


def test_the_job_detail_has_the_budget_of_the_newest_refined_set(refined, api_as):
    refined = refined_at_share(refined, 0.5)
    response = api_as("researcher").get(f"/api/v1/jobs/{refined.job.pk}")
    assert response.status_code == 200
    budget = response.json()["budget"]
    assert set(budget) == KEYS
    (pair,) = budget.pop("undecided_pairs")
    labels, counts = pooled_labels(refined=refined.refined)
    assert budget == {
        "more_human_labels": 2,
        "target_half_width": 0.01,
        "measure": "nDCG@10",
        # Every human label behind the intervals: 1 audited and 1 escalated.
        "n_human": 2,
        "n_audited": 1,
        "n_escalated": 1,
        "simulated": False,
        "simulated_labels": {"debate": 0, "human": 0, "stage0": 0},
        "notes": [
            # Agreed pairs the audit drew at 0.5 and nobody judged yet (which ones: a hash
            # of the job's id), first, said as the re-benchmark says them.
            *missing_notes(MissingLabels.of(counts, labels)),
            # That stratum's pairs move every value but alpha's P@10 (a P@10 reads its top
            # 10 only): each of those is its whole range, the stratum named.
            "stratum 'label 0, round 2' moves alpha nDCG@10, beta nDCG@10, beta P@10, alpha "
            "R@100, beta R@100: no human label checks that stratum's machine labels (none of "
            "its pairs, nor of any stratum with the same binary label, was audited), so each "
            "of these intervals is every value the pairs without a human label allow",
            # One audited label bears on alpha's P@10, fewer than 5: its whole range too.
            "alpha P@10: too few human labels (audited or escalated) bear on this run's value "
            "(n_b = 1; at least 5 "
            "needed): the interval is every value the pairs without a human label allow",
            # alpha's nDCG@10 rests on fewer than 5 labels too: the 2 more planned are the
            # first step that would give it 5, not labels for +-0.01.
            "for alpha, whose nDCG@10 rests on fewer than 5 labels' effective size (n_b), the "
            "more audited labels planned are only a first step, those that would give each 5 "
            "if n_b grows with the audit share (judged escalations bearing on it do not): its "
            "width is known once they are in, so plan again then",
        ],
        "error": "",
        "refined": "test-dream",
        "unresolved": 0,
        "beyond_budget": 0,
        "escalated_waiting": 0,
        "audit_waiting": counts["audit_waiting"],
        # Both evaluated queries hold pooled pairs.
        "queries": 2,
        "pooled_queries": 2,
        # (1 audited + 2 more) labels are more than the fixture's few agreed pairs: every
        # one of them audited, the share capped at 1.
        "audit_share_needed": 1.0,
        # One audited label: the figure is said to be a first guess.
        "few_audited": "only 1 audited label so far, fewer than 30: read the figure as a "
        "first guess (it scales the intervals' width as if it came from sampling alone, "
        "which so few labels cannot show); judge the drawn audits first",
    }
    # The same shape as the re-benchmark's pair comparisons.
    assert set(pair) == PAIR_KEYS
    assert (pair["a"], pair["b"], pair["settled"], pair["n"]) == ("alpha", "beta", False, 2)
    assert pair["low"] <= pair["difference"] <= pair["high"]


def test_without_a_refined_set_the_budget_says_so(holes, api_as):
    budget = api_as("researcher").get(f"/api/v1/jobs/{holes.job.pk}").json()["budget"]
    # Nothing is known yet: null, not a zero that reads as "no human label".
    assert budget["more_human_labels"] is None and budget["n_human"] is None
    assert (budget["n_audited"], budget["queries"], budget["unresolved"]) == (None, None, None)
    assert budget["undecided_pairs"] == []
    assert budget["error"].startswith("no refined set of this pool yet")
