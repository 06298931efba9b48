"""The agreement measures between two leaderboards: None with fewer than 2 systems or a
constant side (nothing to order), ValueError for different system sets or a score that is
not a finite number; ranking_agreement gathers them all."""

import math

import pytest

from assess.evaluation.ranking import (
    RankingAgreement,
    kendall_at_k,
    kendall_tau_b,
    ranking_agreement,
    rbo,
    tau_ap,
)

MEASURES = [
    lambda a, b: kendall_tau_b(a, b)[0],
    tau_ap,
    lambda a, b: tau_ap(a, b, variant="a"),
    kendall_at_k,
    rbo,
]


@pytest.mark.parametrize("measure", MEASURES)
def test_fewer_than_two_systems_give_none(measure):
    assert measure({}, {}) is None
    assert measure({"A": 0.5}, {"A": 0.7}) is None


@pytest.mark.parametrize("measure", MEASURES[:4])
def test_a_constant_side_gives_none_for_the_correlations(measure):
    assert measure({"A": 0.3, "B": 0.2}, {"A": 0.5, "B": 0.5}) is None


@pytest.mark.parametrize("measure", MEASURES)
def test_different_systems_or_a_bad_score_are_refused(measure):
    with pytest.raises(ValueError, match=r"only in the reference: \['C'\]"):
        measure({"A": 1.0, "B": 0.5, "C": 0.2}, {"A": 1.0, "B": 0.5, "D": 0.2})
    with pytest.raises(ValueError, match="not a finite number"):
        measure({"A": 1.0, "B": math.nan}, {"A": 1.0, "B": 0.5})


def test_an_unknown_variant_is_refused():
    with pytest.raises(ValueError, match="variant must be"):
        tau_ap({"A": 1.0, "B": 0.5}, {"A": 1.0, "B": 0.5}, variant="c")  # type: ignore[arg-type]


def test_ranking_agreement_gathers_the_measures():
    """[A, B, C, D] vs [B, A, C, D]: tau-b 2/3, tau_AP,b 1/3 (the swap is at the top),
    top-10 tau = tau-b (4 systems), RBO: A_1 = 0, A_2 = A_3 = A_4 = 1,
    (1/9) * (0.81 + 0.729 + 0.6561) + 0.6561 = 0.9."""
    found = ranking_agreement(
        {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}, {"B": 4.0, "A": 3.0, "C": 2.0, "D": 1.0}
    )
    assert isinstance(found, RankingAgreement)
    assert (found.n, found.k, found.k_n, found.rbo_p) == (4, 10, 4, 0.9)
    assert found.kendall_tau_b == pytest.approx(2 / 3)
    assert found.tauap_b == pytest.approx(1 / 3)
    assert found.kendall_at_k == pytest.approx(2 / 3)
    assert found.rbo == pytest.approx(0.9)
    assert 0 < found.kendall_p <= 1
