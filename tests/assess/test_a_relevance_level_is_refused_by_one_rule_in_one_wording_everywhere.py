"""A relevance level (the lowest grade counted relevant) and the grade a binary "relevant"
label is written as follow one rule, a whole number from 1 to 127 (the highest grade a qrels
row holds), or to the qrels' own top grade where refining; the page, the commands and the
API word a refusal alike (corpora.formats.relevance_level_check)."""

import html

import pytest
from django.core.management import CommandError, call_command

from corpora.formats import relevance_level_check


def test_the_rule_and_its_words():
    assert relevance_level_check(127) == 127
    with pytest.raises(ValueError) as refused:
        relevance_level_check(0)
    assert str(refused.value) == "the relevance level must be a whole number from 1 to 127, got 0"
    with pytest.raises(ValueError, match=r"from 1 to 127, got True$"):
        relevance_level_check(True)
    with pytest.raises(ValueError) as refused:
        relevance_level_check(2, what="the relevant grade", top=1, source="the top grade of x")
    assert str(refused.value) == "the relevant grade must be 1 (the top grade of x), got 2"


@pytest.mark.django_db
def test_the_page_says_it_in_the_same_words(holes, client_as):
    page = client_as("researcher").get("/datasets/holes/rebenchmark/", {"rel": "0"})
    assert "The relevance level must be a whole number from 1 to 127, got 0." in page.text


@pytest.mark.django_db
@pytest.mark.parametrize("rel", ["²", "9" * 5000])
def test_the_page_refuses_odd_digits_in_the_same_words(holes, client_as, rel):
    # "²" is a digit to str.isdigit but not to int; 5,000 digits exceed int's own limit:
    # neither may surface Python's words.
    page = client_as("researcher").get("/datasets/holes/rebenchmark/", {"rel": rel})
    text = html.unescape(page.text)
    assert "The relevance level must be a whole number from 1 to 127, got '" in text
    assert "int()" not in text and "Exceeds the limit" not in text


@pytest.mark.django_db
def test_the_pool_study_command_says_it_in_the_same_words(holes):
    with pytest.raises(
        CommandError, match="--rel-level: the relevance level must be a whole number from 1 to 127"
    ):
        call_command("pool_study", "holes", "--runs", "alpha,beta", "--rel-level", "200")


@pytest.mark.django_db
def test_the_rebenchmark_command_says_it_in_the_same_words(holes):
    # The same words, after the flag that got them (as pool_study says them).
    with pytest.raises(
        CommandError,
        match="^--rel-level: the relevance level must be a whole number from 1 to 127, got 0",
    ):
        call_command("rebenchmark", "holes", "--refined", "test", "--rel-level", "0")


@pytest.mark.django_db
def test_the_api_refuses_a_grade_above_the_qrels_top_in_the_same_words(holes, api_as):
    # 5 was a 422 ("less than or equal to 4", the debate scale's top) before any qrels were
    # looked at; the rule is the qrels' own top grade, 1 here.
    answer = api_as("admin").post(
        "/api/v1/datasets/holes/refined",
        {"pool": holes.pool.pk, "name": "five", "relevant_grade": 5},
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        "the relevant grade must be 1 (the top grade of qrels 'test'), got 5"
    )
