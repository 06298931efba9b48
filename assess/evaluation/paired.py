"""A system's per-query scores before and after a refinement, tested as paired samples
(Wilcoxon signed-rank and the paired t-test). Pure, no database; re-exported by
:mod:`assess.evaluation.metrics`, which the re-benchmark reads it through."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from scipy import stats


@dataclass(frozen=True, slots=True)
class PairedTest:
    """Per-query nDCG@10 of one system, original vs refined qrels, over ``n`` queries.

    ``mean_delta`` = mean(refined - original). p-values are two-sided; None when the test
    is undefined (fewer than 2 queries for the t-test, or constant nonzero differences for
    the t-test); both are 1.0 when every difference is zero (``note`` says so).
    """

    n: int
    mean_before: float
    mean_after: float
    mean_delta: float
    wilcoxon_statistic: float | None
    wilcoxon_p: float | None
    t_statistic: float | None
    t_p: float | None
    note: str = ""


# Per-query scores are rounded to this many decimals before differencing: 0.1 + 0.2 and 0.3
# are the same nDCG, but their float difference (5.6e-17) is a "change" to scipy, which would
# then test noise (reported in public bug reports of IR evaluation tools).
SCORE_DECIMALS = 9


def paired_test(before: list[float], after: list[float]) -> PairedTest:
    """Paired significance of ``after`` vs ``before`` (per-query scores of one system).

    Every score, and every difference, is first rounded to :data:`SCORE_DECIMALS` (1e-9), so
    floating-point noise is no change: per-query 0.1 + 0.2 against 0.3 is "no query changed".
    Wilcoxon signed-rank (scipy.stats.wilcoxon on the nonzero differences, Wilcoxon's
    original method, so that p is exact when at most 50 queries changed: given the zeros too,
    scipy counts them towards its n <= 50 rule and approximates, one changed query of 300
    reading p = 0.32 for an exact 1): IR scores are bounded and far from normal, and most
    queries are unchanged by a refinement. The paired t-test
    (scipy.stats.ttest_rel, computed as ttest_1samp of the rounded differences) is reported
    too, since Smucker, Allan & Carterette (CIKM 2007) found it reliable for IR measures.
    When every difference is zero both tests are undefined (scipy's wilcoxon raises) and we
    report p = 1.0 with the note "no query changed"; when all differences are equal and
    nonzero the t statistic is infinite and reported as None; a t-test that still comes out
    NaN is reported as p = 1.0 and the note says so.
    Raises ValueError for lists of different lengths.
    """
    if len(before) != len(after):
        raise ValueError(f"paired_test needs equal lengths, got {len(before)} and {len(after)}")
    n = len(before)
    before = [round(float(b), SCORE_DECIMALS) for b in before]
    after = [round(float(a), SCORE_DECIMALS) for a in after]
    diffs = [round(a - b, SCORE_DECIMALS) for a, b in zip(after, before, strict=True)]
    mean_b, mean_a, mean_d = _mean(before), _mean(after), _mean(diffs)
    if n == 0 or all(d == 0 for d in diffs):
        return PairedTest(n, mean_b, mean_a, mean_d, None, 1.0, None, 1.0, "no query changed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        w = stats.wilcoxon([d for d in diffs if d != 0], zero_method="wilcox")
        w_stat, w_p = float(w.statistic), float(w.pvalue)
        if n < 2:
            t_stat = t_p = None
            note = "t-test needs 2 queries"
        elif len(set(diffs)) == 1:
            t_stat = t_p = None
            note = "every query changed by the same amount: t undefined"
        else:
            # ttest_rel is the one-sample t-test of the differences: run it on the rounded
            # differences, so it sees the same changes as the Wilcoxon test.
            t = stats.ttest_1samp(diffs, 0.0)
            t_stat, t_p = float(t.statistic), float(t.pvalue)
            note = ""
            if math.isnan(t_p):
                t_stat, t_p = None, 1.0
                note = "t-test undefined (NaN): reported as p = 1.0"
    return PairedTest(n, mean_b, mean_a, mean_d, w_stat, w_p, t_stat, t_p, note)


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0
