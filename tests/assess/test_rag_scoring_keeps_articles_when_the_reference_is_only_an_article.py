"""A reference answer that SQuAD normalisation would empty ("A", "The": a multiple-choice
letter, a title) is compared with articles kept: "A" vs "A" is an exact match, F1 1 and
correct; "A" vs "C" is 0, 0 and not correct."""

import pytest

from assess.evaluation.rag import answer_correct, contains_answer, exact_match, token_f1


@pytest.mark.parametrize("reference", ["A", "a", "The", "(A)"])
def test_the_same_article_answer_is_an_exact_match_and_correct(reference):
    answer = reference
    assert exact_match(answer, [reference]) is True
    assert token_f1(answer, [reference]) == 1.0
    assert answer_correct(answer, [reference]) is True


def test_another_letter_is_no_match_and_not_correct():
    assert exact_match("C", ["A"]) is False
    assert token_f1("C", ["A"]) == 0.0
    assert answer_correct("C", ["A"]) is False


def test_the_letter_inside_a_sentence_is_contained():
    assert contains_answer("The answer is A.", "A") is True
    # "a" as the article of another word still counts as the token a: whole-token match
    assert contains_answer("Choose option b", "A") is False


def test_a_reference_with_words_still_drops_its_articles():
    assert exact_match("Eiffel Tower", ["The Eiffel Tower"]) is True
    assert token_f1("a tower", ["the tower"]) == 1.0
