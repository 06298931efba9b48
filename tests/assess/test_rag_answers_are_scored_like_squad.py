"""Answer scoring: SQuAD v1.1 normalisation, exact match, token F1 and containment."""

from __future__ import annotations

import pytest

from assess.evaluation.rag import (
    answer_correct,
    contains_answer,
    exact_match,
    normalize_answer,
    token_f1,
)


def test_normalisation_lowercases_drops_punctuation_articles_and_extra_spaces():
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert normalize_answer("  An apple, a DAY. ") == "apple day"
    # Articles only as whole words: "theory" and "and" keep their letters.
    assert normalize_answer("Theory and the practice") == "theory and practice"


def test_exact_match_compares_normalised_text_against_any_reference():
    assert exact_match("The Eiffel Tower.", "eiffel tower")
    assert exact_match("Paris", ["London", "paris!"])
    assert not exact_match("Paris, France", "Paris")
    assert not exact_match("Paris", [])


def test_token_f1_is_the_harmonic_mean_of_token_precision_and_recall():
    """Prediction "the tower in paris" → tokens [tower, in, paris]; reference
    "Eiffel Tower, Paris" → [eiffel, tower, paris]. Common: tower, paris = 2.
    P = 2/3, R = 2/3, F1 = 0.666667. Against ["x", reference] the max is taken."""
    assert token_f1("the tower in paris", "Eiffel Tower, Paris") == pytest.approx(2 / 3)
    assert token_f1("the tower in paris", ["x", "Eiffel Tower, Paris"]) == pytest.approx(2 / 3)
    assert token_f1("paris paris", "paris") == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert token_f1("the", "paris") == 0.0


def test_containment_matches_whole_tokens_of_the_normalised_reference():
    assert contains_answer("It was built in 1889 by Gustave Eiffel.", "1889")
    assert contains_answer("The answer is: the EIFFEL tower", "Eiffel Tower")
    assert not contains_answer("It cost 10 francs", "1")
    assert not contains_answer("anything", "The")


def test_an_answer_is_correct_if_it_contains_any_reference():
    assert answer_correct("Vitamin D cut hip fractures by 30 percent.", ["no", "30 percent"])
    assert not answer_correct("unknown", ["30 percent"])
    assert not answer_correct("30 percent", [])
