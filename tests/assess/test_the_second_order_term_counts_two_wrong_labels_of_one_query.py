"""The intervals' second-order term (assess.evaluation.interval_interactions): the mixed
difference of two labels of one query, worked by hand and against brute force, and its
Horvitz-Thompson estimate's expectation over every Poisson sample (no database)."""

import itertools
import math
from collections import Counter

import pytest

from assess.evaluation.interval_expectations import SPEC, Expect, query_terms, rank_gains
from assess.evaluation.interval_interactions import (
    couple_weights,
    query_couples,
    query_interactions,
    sample_couples,
    second_order,
    slope_squares,
)
from assess.evaluation.intervals import query_measure


def interaction(measure, ranking, hard, soft, couple):
    k = SPEC[measure]
    terms = query_terms(ranking, k, rank_gains(measure, k), set(hard), soft, set(couple))
    found = query_couples(
        positions=[0],
        couples=[couple],
        points=soft,
        known=len(hard),
        groups=Counter(soft.values()),
        expect=Expect(measure),
    )
    (value,) = query_interactions(found, terms)
    return float(value)


def brute_force_expected(measure, ranking, hard, soft):
    """E[measure] over every labelling of the ``soft`` documents (independent, each
    relevant with its probability), the known relevant ones in ``hard``."""
    docs = sorted(soft)
    total = 0.0
    for labels in itertools.product((0, 1), repeat=len(docs)):
        chance = math.prod(soft[d] if y else 1 - soft[d] for d, y in zip(docs, labels, strict=True))
        judged = {d: 1 for d in hard} | {d: y for d, y in zip(docs, labels, strict=True)}
        total += chance * query_measure(measure, ranking, judged)
    return total


def test_two_ranked_pairs_with_no_other_relevant_interact_by_minus_one_on_r_at_100():
    # Recall is 1 when a or b or both are relevant and 0 when neither is (no relevant
    # document at all): 1 - 1 - 1 + 0.
    assert interaction("R@100", ["a", "b"], set(), {"a": 0.5, "b": 0.5}, ("a", "b")) == -1.0


def test_an_unranked_maybe_relevant_pair_shrinks_the_interaction_to_minus_two_thirds():
    # c is not ranked and relevant with 1/2: F(1, 1) = 1/2 * 1 + 1/2 * 2/3 = 5/6,
    # F(1, 0) = F(0, 1) = 1/2 * 1 + 1/2 * 1/2 = 3/4, F(0, 0) = 0.
    found = interaction("R@100", ["a", "b"], set(), {"a": 0.5, "b": 0.5, "c": 0.5}, ("a", "b"))
    assert found == pytest.approx(5 / 6 - 3 / 4 - 3 / 4, abs=1e-12)


def test_precision_has_no_interaction():
    soft = {"a": 0.3, "b": 0.6, "c": 0.2}
    assert interaction("P@10", ["a", "b", "c"], set(), soft, ("a", "b")) == pytest.approx(0)


@pytest.mark.parametrize("measure", ["nDCG@10", "R@100"])
@pytest.mark.parametrize(
    "soft",
    [
        {"a": 0.3, "b": 0.6, "c": 0.2, "d": 0.7, "e": 0.4},  # e is not ranked
        # Shared probabilities, as a model cell gives, and audited pairs at 0 and 1.
        {"a": 0.3, "b": 0.3, "c": 1.0, "d": 0.0, "e": 0.3},
    ],
)
def test_the_interaction_is_the_brute_force_mixed_difference(measure, soft):
    ranking = ["x", "a", "k", "b", "c", "d"]
    hard = {"k"}
    for couple in [("a", "b"), ("a", "e"), ("c", "d")]:
        expected = 0.0
        for ya, yb in itertools.product((0, 1), repeat=2):
            rest = {d: p for d, p in soft.items() if d not in couple}
            fixed = set(hard) | {d for d, y in zip(couple, (ya, yb), strict=True) if y}
            sign = 1 if ya == yb else -1
            expected += sign * brute_force_expected(measure, ranking, fixed, rest)
        found = interaction(measure, ranking, hard, soft, couple)
        assert found == pytest.approx(expected, abs=1e-12)
        assert found != pytest.approx(0, abs=1e-6)


def test_couples_pair_the_sampled_pairs_of_each_evaluated_query_once():
    sample = [("q1", "a"), ("q2", "x"), ("q1", "b"), ("q1", "c"), ("q3", "z"), ("q3", "w")]
    assert sample_couples(sample, ["q1", "q2"]) == [(0, 2), (0, 3), (2, 3)]


def test_the_estimate_is_unbiased_for_the_unaudited_couples_term_over_every_poisson_sample():
    # Five pairs of one query, fixed residuals e_i and interactions F_ij, unequal audit
    # probabilities: averaged over all 32 samples with their probabilities, the estimate
    # equals the sum over couples of e_i e_j F_ij (1 - pi_i)(1 - pi_j), the expected value
    # of the same sum over the couples left unaudited.
    e = [0.7, -0.2, -0.4, 0.9, -0.1]
    pi = [0.1, 0.25, 0.5, 0.2, 0.8]
    f = {(i, j): (i + 1) * 0.1 - (j + 1) * 0.07 for i in range(5) for j in range(i + 1, 5)}
    population = sum(e[i] * e[j] * v * (1 - pi[i]) * (1 - pi[j]) for (i, j), v in f.items())
    average = 0.0
    for drawn in itertools.product((0, 1), repeat=5):
        chance = math.prod(p if d else 1 - p for p, d in zip(pi, drawn, strict=True))
        members = [i for i in range(5) if drawn[i]]
        couples = [(a, b) for a, b in itertools.combinations(range(len(members)), 2)]
        cross = [f[(members[a], members[b])] for a, b in couples]
        weights = couple_weights(
            couples,
            [e[i] for i in members],
            [1 / pi[i] for i in members],
            [1 - pi[i] for i in members],
        )
        estimate, _ = second_order(cross, weights)
        average += chance * estimate
    assert average == pytest.approx(population, abs=1e-12)
    assert population != pytest.approx(0, abs=1e-3)


def test_a_couple_adds_its_horvitz_thompson_variance():
    # One couple: term = e_i e_j F (1 - pi_i)/pi_i (1 - pi_j)/pi_j = 0.5 * -0.5 * 0.2 * 9 * 9
    # = -4.05; variance (e_i e_j F)^2 (1 - pi_i)(1 - pi_j) / (pi_i pi_j)^2 = 0.0025 * 0.81 * 1e4.
    weights = couple_weights([(0, 1)], [0.5, -0.5], [10.0, 10.0], [0.9, 0.9])
    estimate, variance = second_order([0.2], weights)
    assert estimate == pytest.approx(-4.05)
    assert variance == pytest.approx(0.0025 * 0.81 * 1e4)


def test_a_couple_moves_each_members_slope_by_the_others_expected_effect():
    # Pair 0: slope 0.1 + F e_1 (1 - pi_1)/pi_1 = 0.1 + 0.2 * -0.5 * 3 = -0.2, squared 0.04,
    # less (F e_1)^2 (1 - pi_1)/pi_1^2 = 0.01 * 12 = 0.12. Pair 1: 0.3 + 0.2 * 0.5 * 9 = 1.2,
    # squared 1.44, less 0.01 * 90 = 0.9.
    weights = couple_weights([(0, 1)], [0.5, -0.5], [10.0, 4.0], [0.9, 0.75])
    found = slope_squares([0.1, 0.3], [0.2], weights)
    assert list(found) == pytest.approx([0.04 - 0.12, 1.44 - 0.9])


def test_the_variance_is_exact_for_a_polynomial_in_the_audit_indicators():
    # Three pairs of one query, fixed residuals, slopes and interactions (the model held
    # fixed): the variance the estimator states from its residuals, averaged over every
    # Poisson sample, equals the exact variance of its estimate over those samples.
    e, pi = [0.6, -0.3, 0.8], [0.3, 0.5, 0.4]
    slope = [0.05, -0.02, 0.04]  # at the prediction: what the estimator's slopes would be
    f = {(0, 1): 0.07, (0, 2): -0.05, (1, 2): 0.03}
    estimates, stated = [], []
    for drawn in itertools.product((0, 1), repeat=3):
        chance = math.prod(p if d else 1 - p for p, d in zip(pi, drawn, strict=True))
        members = [i for i in range(3) if drawn[i]]
        couples = list(itertools.combinations(range(len(members)), 2))
        cross = [f[(members[a], members[b])] for a, b in couples]
        res = [e[i] for i in members]
        inv = [1 / pi[i] for i in members]
        om = [1 - pi[i] for i in members]
        # The slopes the estimator sees: at the model with the other audited pairs at their
        # human labels, so each includes its audited partners' interactions at weight 1.
        seen = [
            slope[i] + sum(f[tuple(sorted((i, j)))] * e[j] for j in members if j != i)
            for i in members
        ]
        first = sum(s * r * (v - 1) + s * r for s, r, v in zip(seen, res, inv, strict=True))
        weights = couple_weights(couples, res, inv, om)
        second, quadratic = second_order(cross, weights)
        own = sum(
            f[tuple(sorted(c))] * e[c[0]] * e[c[1]] for c in itertools.combinations(members, 2)
        )
        estimates.append((chance, first + second - own))
        squares = slope_squares(seen, cross, weights)
        linear = sum(
            o * v * v * sq * r * r for sq, r, v, o in zip(squares, res, inv, om, strict=True)
        )
        stated.append((chance, linear + quadratic))
    mean = sum(c * x for c, x in estimates)
    variance = sum(c * (x - mean) ** 2 for c, x in estimates)
    assert sum(c * v for c, v in stated) == pytest.approx(variance, rel=1e-9)


def test_every_couple_of_a_query_computed_together_matches_each_alone():
    ranking = ["x", "a", "k", "b", "c", "d"]
    soft = {"a": 0.3, "b": 0.3, "c": 1.0, "d": 0.0, "e": 0.3}
    couples = list(itertools.combinations(sorted(soft), 2))
    terms = query_terms(ranking, 100, rank_gains("R@100", 100), {"k"}, soft, set(soft))
    found = query_couples(
        positions=list(range(len(couples))),
        couples=couples,
        points=soft,
        known=1,
        groups=Counter(soft.values()),
        expect=Expect("R@100"),
    )
    together = query_interactions(found, terms)
    alone = [interaction("R@100", ranking, {"k"}, soft, couple) for couple in couples]
    assert list(together) == pytest.approx(alone, abs=1e-12)
