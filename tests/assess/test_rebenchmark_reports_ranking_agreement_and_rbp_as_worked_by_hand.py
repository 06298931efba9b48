"""Every re-benchmark compares the two nDCG@10 leaderboards with tau-b, tau_AP,b, top-10 tau
and RBO (p = 0.9), and gives each system's RBP (p = 0.8) with its residual on both qrel sets;
on the toy benchmark of tests/fixtures/metrics.py every number is worked out by hand.

Leaderboards (test_rank_correlation_of_leaderboards_before_and_after.py): original
[alpha, gamma, beta], refined [beta, alpha, gamma].
"""

import pytest

from assess.evaluation.metrics import rebenchmark
from assess.evaluation.tables import ranking_json, ranking_table
from tests.fixtures.metrics import ORIGINAL, REFINED, RUNS


def test_the_agreement_of_the_toy_leaderboards():
    """tau-b = -1/3 (the existing test). tau_AP,b: down the refined [beta, alpha, gamma],
    alpha has beta above, which the original puts below: 0/1; gamma has beta, alpha above,
    only alpha agrees: 1/2 → 2/2 * 0.5 - 1 = -1/2. Down the original [alpha, gamma, beta]:
    gamma has alpha above, agreed 1/1; beta has alpha, gamma above, neither agrees 0/2 →
    1 - 1 = 0. tau_AP,b = (-1/2 + 0) / 2 = -1/4. Top 10 = all three: -1/3.
    RBO: A_1 = 0 (alpha vs beta), A_2 = |{alpha, gamma} ∩ {beta, alpha}| / 2 = 1/2,
    A_3 = 1: (1/9) * (0.5 * 0.81 + 0.729) + 0.729 = 0.855."""
    agreement = rebenchmark(ORIGINAL, REFINED, RUNS).agreement
    assert agreement.n == 3 and agreement.k_n == 3
    assert agreement.kendall_tau_b == pytest.approx(-1 / 3)
    assert agreement.tauap_b == pytest.approx(-0.25)
    assert agreement.kendall_at_k == pytest.approx(-1 / 3)
    assert agreement.rbo == pytest.approx(0.855)


def test_alphas_rbp_and_its_residual_shrinks_with_the_refinement():
    """p = 0.8, weights 0.2, 0.16, 0.128 at ranks 1-3; tail 0.8^depth.
    Original: q1 a(2) d(unjudged) b(0): base 0.2, residual 0.16 + 0.512 = 0.672; q2 e(1)
    f(unjudged): base 0.2, residual 0.16 + 0.64 = 0.8; q3 i(0) j(unjudged): base 0,
    residual 0.8. Mean base 0.4/3 = 0.133333, residual 2.272/3 = 0.757333.
    Refined (d, f, j relevant now): q1 base 0.36, residual 0.512; q2 base 0.36, residual
    0.64; q3 base 0.16, residual 0.64. Mean base 0.88/3 = 0.293333, residual 0.597333."""
    result = rebenchmark(ORIGINAL, REFINED, RUNS)
    before, after = result.rbp_before["alpha"], result.rbp_after["alpha"]
    assert (before.p, after.p) == (0.8, 0.8)
    assert (before.base, before.residual) == pytest.approx((0.4 / 3, 2.272 / 3))
    assert (after.base, after.residual) == pytest.approx((0.88 / 3, 1.792 / 3))
    assert sorted(result.rbp_after) == ["alpha", "beta", "gamma"]


def test_the_table_and_the_json_name_each_measure_with_its_n():
    result = rebenchmark(ORIGINAL, REFINED, RUNS)
    table = ranking_table(result)
    assert table.header == ("measure", "name", "value", "n")
    assert table.rows == [
        ("Kendall's tau-b", "kendall_tau_b", "-0.3333", "3"),
        ("AP correlation tau_AP,b", "tauap_b", "-0.2500", "3"),
        ("Kendall's tau-b of the original top 10", "kendall@10", "-0.3333", "3"),
        ("RBO (p = 0.9), extrapolated", "rbo", "0.8550", "3"),
    ]
    assert "tau-b p = 1.0000" in table.note and "Urbano and Marrero" in table.note
    body = ranking_json(result)
    assert body["kendall_tau_b"]["value"] == pytest.approx(-1 / 3)
    assert body["kendall_tau_b"]["n"] == 3
    assert body["tauap_b"] == {"value": pytest.approx(-0.25), "n": 3}
    assert body["kendall@10"] == {"value": pytest.approx(-1 / 3), "k": 10, "n": 3}
    assert body["rbo"] == {"value": pytest.approx(0.855), "p": 0.9, "n": 3}
    assert body["rbp"]["alpha"] == {
        "p": 0.8,
        "base": pytest.approx(0.88 / 3),
        "residual": pytest.approx(1.792 / 3),
    }
    assert body["rbp_original"]["alpha"]["residual"] == pytest.approx(2.272 / 3)


def test_a_single_system_has_no_agreement_but_its_rbp():
    result = rebenchmark(ORIGINAL, REFINED, {"alpha": RUNS["alpha"]})
    assert result.agreement.n == 1
    assert result.agreement.tauap_b is None and result.agreement.rbo is None
    assert [row[2] for row in ranking_table(result).rows] == ["n/a"] * 4
    assert result.rbp_after["alpha"].base == pytest.approx(0.88 / 3)
