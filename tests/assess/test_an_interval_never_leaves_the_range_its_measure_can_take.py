"""A refined-metric interval stays within what its measure can take: [0, 1] for a mean
measure, [-1, 1] for a difference of two, and within what the pairs without a human label
can give. When a tiny human sample puts the estimate outside that range, the interval is the
whole range (the sample bounds nothing), never a clipped, zero-width interval that would
look certain."""

import io

import pytest
from django.core.management import call_command

from assess.evaluation.intervals import Interval, bounded


def test_an_estimate_inside_the_range_keeps_its_interval_with_the_ends_clipped():
    assert bounded(Interval(0.4, -0.1, 0.7, 12), 0.0, 1.0) == Interval(0.4, 0.0, 0.7, 12)


def test_an_estimate_outside_the_range_gets_the_whole_range():
    assert bounded(Interval(-13.2, -61.1, -1.3, 2), -1.0, 1.0) == Interval(-1.0, -1.0, 1.0, 2)
    assert bounded(Interval(1.7, 1.2, 2.5, 1), 0.0, 1.0) == Interval(1.0, 0.0, 1.0, 1)


@pytest.mark.django_db
def test_on_the_holes_world_one_audited_label_settles_no_system_pair(refined):
    # One audited and one escalated pair: an earlier estimator's sum over two labels with
    # large weights landed far outside [-1, 1] (it printed -13.2196 [-61.1372, -1.3129] and
    # called the order settled). One label bounds nothing: the interval is the whole range
    # the labels allow. The pairs without a human label are q1-d3 and q1-d5 (agreed, not
    # audited); over their four completions alpha's nDCG@10 runs from 0.38685 to 0.69343 and
    # beta's from 0.65329 to 0.84671 (tests/assess/test_an_interval_stays_within_what_the_
    # unjudged_pairs_can_give.py works them out), so alpha - beta lies in
    # [0.38685 - 0.84671, 0.69343 - 0.65329] = [-0.4599, 0.0401].
    out = io.StringIO()
    call_command(
        "rebenchmark", "holes", "--original", "test", "--refined", "test-dream", stdout=out
    )
    text = out.getvalue()
    row = next(line.split() for line in text.splitlines() if line.startswith("alpha  beta"))
    assert -1.0 <= float(row[2]) <= 1.0
    # Marked as the whole range (n_b = 1 < 5), the pair's n_b (the audited label moves alpha
    # and beta unalike), then "no".
    assert row[3:11] == ["[-0.4599,", "0.0401]", "(whole", "range;", "n_b", "=", "1)", "no"]
    assert " ".join(row[11:]) == "2 (1 audited, 1 escalated)"  # the pair's n
    assert "System pairs settled at 95% (each on its own, unadjusted): 0 of 1 (0%)" in text
