"""P(label) from a reply's token logprobs (debates.label_probability), hand-worked."""

from __future__ import annotations

import math

import pytest

from debates.label_probability import label_probability
from debates.llm.base import TokenLogprob

ln = math.log
REPLY = '{"label": 1, "argument": "x", "evidence": []}'


def _tokens(value: str, value_logprob: float, top=()) -> list[TokenLogprob]:
    """The reply's tokens: '{"', 'label', '":', value, ', "argument": "x", "evidence": []}'."""
    return [
        TokenLogprob('{"', ln(0.9)),
        TokenLogprob("label", ln(0.99)),
        TokenLogprob('":', ln(0.99)),
        TokenLogprob(value, value_logprob, tuple(top)),
        TokenLogprob(', "argument": "x", "evidence": []}', ln(0.5)),
    ]


def test_the_label_is_normalised_over_the_listed_values_of_the_scale():
    # P(" 1") = 0.6, P(" 0") = 0.2, P("1") = 0.1 (the same value): (0.6 + 0.1) / 0.9.
    top = [(" 1", ln(0.6)), (" 0", ln(0.2)), ("1", ln(0.1)), (" maybe", ln(0.05))]
    tokens = _tokens(" 1", ln(0.6), top)
    assert label_probability(text=REPLY, label=1, logprobs=tokens) == pytest.approx(0.7 / 0.9)


def test_without_alternatives_the_chosen_tokens_own_probability_counts():
    tokens = _tokens(" 1", ln(0.8))
    assert label_probability(text=REPLY, label=1, logprobs=tokens) == pytest.approx(0.8)


def test_a_value_absent_from_the_alternatives_counts_zero():
    top = [(" 1", ln(0.7)), (" 2", ln(0.2))]  # "2" is not a binary value
    tokens = _tokens(" 1", ln(0.7), top)
    assert label_probability(text=REPLY, label=1, logprobs=tokens) == pytest.approx(1.0)


def test_the_label_zero_gets_its_own_probability():
    text = REPLY.replace("1", "0")
    top = [(" 0", ln(0.75)), (" 1", ln(0.25))]
    tokens = _tokens(" 0", ln(0.75), top)
    assert label_probability(text=text, label=0, logprobs=tokens) == pytest.approx(0.75)


def test_a_graded_label_is_normalised_over_the_grades_zero_to_g():
    text = REPLY.replace("1", "2")
    top = [(" 2", ln(0.5)), (" 1", ln(0.3)), (" 3", ln(0.1)), (" 4", ln(0.1))]
    tokens = _tokens(" 2", ln(0.5), top)
    # G = 3: P(2) = 0.5 / (0.5 + 0.3 + 0.1); " 4" is no grade.
    got = label_probability(text=text, label=2, logprobs=tokens, values=(0, 1, 2, 3))
    assert got == pytest.approx(0.5 / 0.9)


def test_the_reasoning_before_the_answer_is_skipped():
    thought = '<think>Maybe {"label": 0}? No.</think>'
    tokens = [
        TokenLogprob("<think>Maybe {", ln(0.5)),
        TokenLogprob('"label": 0', ln(0.3)),
        TokenLogprob("}? No.</think>", ln(0.5)),
        *_tokens(" 1", ln(0.9)),
    ]
    got = label_probability(text=thought + REPLY, label=1, logprobs=tokens)
    assert got == pytest.approx(0.9)


def test_a_string_label_word_counts_for_a_binary_scale():
    text = '{"label": "relevant", "argument": "x"}'
    tokens = [
        TokenLogprob('{"label": "', ln(0.9)),
        TokenLogprob("relevant", ln(0.6), (("relevant", ln(0.6)), ("irrelevant", ln(0.3)))),
        TokenLogprob('", "argument": "x"}', ln(0.9)),
    ]
    assert label_probability(text=text, label=1, logprobs=tokens) == pytest.approx(0.6 / 0.9)


@pytest.mark.parametrize(
    "tokens",
    [
        None,
        [],
        # logprobs of other tokens only: the reasoning, no label key
        [TokenLogprob("Thinking about it", ln(0.5))],
        # the value token spells another label than the parsed one
        _tokens(" 0", ln(0.9)),
        # a word split across tokens: "ir" spells no label
        [
            TokenLogprob('{"label": "', 0.0),
            TokenLogprob("ir", ln(0.5)),
            TokenLogprob('relevant"}', 0.0),
        ],
    ],
    ids=["none", "empty", "other-tokens-only", "another-label", "split-word"],
)
def test_no_probability_when_the_labels_token_is_not_among_the_logprobs(tokens):
    text = REPLY if tokens is None or len(tokens) != 3 else '{"label": "irrelevant"}'
    label = 1 if text == REPLY else 0
    assert label_probability(text=text, label=label, logprobs=tokens) is None
