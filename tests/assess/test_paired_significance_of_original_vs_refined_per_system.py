"""Per system, a paired Wilcoxon signed-rank test and t-test on per-query nDCG@10."""

from __future__ import annotations

import math

import pytest

from assess.evaluation.metrics import paired_test, rebenchmark
from tests.fixtures.metrics import ORIGINAL, REFINED, RUNS


def test_three_positive_differences_give_the_hand_worked_p_values():
    """Differences 0.1, 0.2, 0.3 (all positive).

    Wilcoxon exact: W- = 0 and of the 2^3 = 8 equally likely sign patterns only "all +"
    and "all -" are as extreme, so p = 2 / 8 = 0.25.
    t-test: mean 0.2, sd 0.1, t = 0.2 / (0.1 / sqrt 3) = 3.464102 with 2 df; for 2 df the
    two-sided p = 1 - t / sqrt(t^2 + 2) = 1 - 3.464102 / sqrt 14 = 0.074180.
    """
    result = paired_test([0.0, 0.1, 0.2], [0.1, 0.3, 0.5])

    assert result.n == 3
    assert result.mean_delta == pytest.approx(0.2)
    assert result.wilcoxon_statistic == 0.0
    assert result.wilcoxon_p == pytest.approx(0.25)
    assert result.t_statistic == pytest.approx(2 * math.sqrt(3))
    assert result.t_p == pytest.approx(1 - 2 * math.sqrt(3) / math.sqrt(14))
    assert result.t_p == pytest.approx(0.074180, abs=1e-6)


def test_no_changed_query_reports_p_one_without_running_the_tests():
    result = paired_test([0.2, 0.5, 0.0], [0.2, 0.5, 0.0])

    assert (result.wilcoxon_p, result.t_p) == (1.0, 1.0)
    assert result.mean_delta == 0.0
    assert result.note == "no query changed"


def test_equal_nonzero_differences_leave_the_t_test_undefined():
    """Every query +0.5: Wilcoxon exact p = 2 / 2^4 = 0.125; t = mean / 0 is undefined."""
    result = paired_test([0.0, 0.0, 0.25, 0.5], [0.5, 0.5, 0.75, 1.0])

    assert result.wilcoxon_p == pytest.approx(0.125)
    assert (result.t_statistic, result.t_p) == (None, None)


def test_rebenchmark_tests_each_toy_system_on_its_per_query_ndcg():
    """beta's differences are all positive (+0.281097, +0.765361, +0.369070): Wilcoxon
    p = 0.25. gamma's are -0.076595, -0.530721 and 0 (q3 unchanged, dropped): exact p over
    2^2 patterns = 2 / 4 = 0.5."""
    result = rebenchmark(ORIGINAL, REFINED, RUNS)

    assert result.significance["beta"].wilcoxon_p == pytest.approx(0.25)
    assert result.significance["beta"].mean_delta == pytest.approx(0.471843, abs=1e-6)
    assert result.significance["gamma"].wilcoxon_p == pytest.approx(0.5)
    assert result.significance["gamma"].n == 3


def test_one_changed_query_among_many_gets_the_exact_wilcoxon_p():
    # One nonzero difference: the exact two-sided p of the signed-rank test is 1 (both
    # signs equally likely). Given the 299 zeros too, scipy would count n = 300 and use its
    # normal approximation, p = 0.3173.
    found = paired_test([0.5] * 300, [0.5] * 299 + [0.55])
    assert found.wilcoxon_p == 1.0


def test_three_changed_queries_get_the_exact_p_whatever_the_unchanged_ones():
    # Differences +0.05, +0.1, -0.02: ranks 2, 3 and 1; W = 1 (the negative rank sum). Of the
    # 8 equally likely sign patterns, 4 give a statistic of 1 or less on either side, so the
    # exact two-sided p is 4 / 8 = 0.5, with or without 100 unchanged queries.
    alone = paired_test([0.5, 0.5, 0.5], [0.55, 0.6, 0.48])
    among = paired_test([0.5] * 103, [0.55, 0.6, 0.48] + [0.5] * 100)
    assert alone.wilcoxon_p == among.wilcoxon_p == pytest.approx(0.5)
