"""Under a Neyman audit the error rate weighs each audited pair by 1 / its inclusion, and the
Wilson interval is taken at an effective sample size (here Kish's, (sum w)^2 / sum w^2, the
smaller of it and the design-based one: agreement.audit_effective_size), not at the number
of audited pairs. The pages, the printout and the API gave the raw count "16 of 123"
beside an interval computed at another n, which a reader checking the interval cannot
reproduce. The weighted proportion carries its effective n, and the words give it.

By hand: inclusions 0.5, 0.5, 0.25, 0.25 give weights 2, 2, 4, 4: sum 12, sum of squares
40, Kish's effective n 144 / 40 = 3.6 (the design-based one, with the one error at weight 2,
is 9.47)."""

import pytest

from assess.review.agreement import audit_error_rate, weighting_note


def test_the_weighted_rate_carries_and_says_its_effective_n():
    p = audit_error_rate([(1, 1), (0, 1), (1, 1), (0, 0)], inclusion=[0.5, 0.5, 0.25, 0.25])
    assert (p.successes, p.n, p.weighted) == (1, 4, True)
    assert p.estimate == pytest.approx(2 / 12)
    assert p.n_effective == pytest.approx(3.6)
    assert weighting_note(p) == ", weighted by 1 / inclusion; interval at effective n 3.6"


def test_an_unweighted_rate_has_no_effective_n():
    p = audit_error_rate([(1, 1), (0, 1)], inclusion=[0.5, 0.5])
    assert (p.weighted, p.n_effective, weighting_note(p)) == (False, None, "")
