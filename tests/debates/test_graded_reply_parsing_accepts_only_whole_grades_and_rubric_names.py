"""Graded reply parsing: a whole number 0..G or exactly a rubric grade name; everything else
(out of range, floats, fractions, booleans, other words) is a parse error."""

import json

import pytest

from debates.parsing import ReplyParseError, normalise_grade, parse_reply


@pytest.mark.parametrize(
    ("value", "grade"),
    [
        (0, 0),
        (2, 2),
        ("1", 1),
        (" 2 ", 2),
        ("not relevant", 0),
        ("Partially  Relevant", 1),
        ("HIGHLY RELEVANT", 2),
    ],
)
def test_whole_grades_and_rubric_names_are_read(value, grade):
    assert normalise_grade(value, 2) == grade


@pytest.mark.parametrize(
    "value",
    [3, -1, "3", "-1", 2.0, 1.5, "2.0", "1/2", "0.5", True, False, None, [1], {"grade": 1},
     "relevant", "irrelevant", "yes", "partially", "related", "two", ""],
)  # fmt: skip
def test_anything_else_is_refused_when_g_is_2(value):
    with pytest.raises(ReplyParseError):
        normalise_grade(value, 2)


def test_the_names_are_those_of_the_rubric_for_g():
    assert normalise_grade("related", 3) == 1
    assert normalise_grade("exact answer", 3) == 3
    assert normalise_grade("complete answer", 4) == 4
    assert normalise_grade("relevant", 1) == 1
    with pytest.raises(ReplyParseError):
        normalise_grade("highly relevant", 3)


def test_parse_reply_reads_a_grade_only_when_asked_for_one():
    text = json.dumps({"label": 2, "argument": "direct answer", "evidence": ["It works."]})

    graded = parse_reply(text, max_grade=2)
    assert (graded.label, graded.argument, graded.evidence) == (2, "direct answer", ("It works.",))
    with pytest.raises(ReplyParseError, match="label out of range: 2"):
        parse_reply(text)  # binary: 2 is not a label
    with pytest.raises(ReplyParseError, match=r"grade out of range 0\.\.1: 2"):
        parse_reply(text, max_grade=1)
