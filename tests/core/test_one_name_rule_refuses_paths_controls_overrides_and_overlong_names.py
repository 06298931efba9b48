"""The one name rule (core.names) for everything a user names: 1-100 ASCII letters, digits,
'.', '_' or '-', starting with a letter or digit, no '..'; a refusal names the field and why,
never repeating the value. A title may hold spaces but no control or invisible character;
free text is made storable (NUL, lone surrogates -> U+FFFD) and must fit its field."""

import pytest

from core.names import NameRefused, name_check, name_problem, text_clean, title_check

RULE = "a name is 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"
HOSTILE = [
    ("../../x", "it holds a path separator"),
    ("a\x01b", "it holds a control or invisible character (U+0001 CONTROL)"),
    ("x" * 5000, "it has 5,000 characters, at most 100 are allowed"),
    ("abc\u202edef", "it holds a control or invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)"),
    ("a..b", "it holds '..'"),
    ("..\\x", "it holds a path separator"),
    ("-x", "it must start with a letter or digit"),
    (".hidden", "it must start with a letter or digit"),
    ("caf\u00e9", "it holds U+00E9 LATIN SMALL LETTER E WITH ACUTE"),
    ("name\n", "it holds a control or invisible character (U+000A CONTROL)"),
    ("", "it is empty"),
]


@pytest.mark.parametrize(("value", "reason"), HOSTILE)
def test_a_name_breaking_the_rule_is_refused_naming_the_field(value, reason):
    assert name_problem(value, field="qrel set name") == f"qrel set name: {reason}; {RULE}"
    with pytest.raises(NameRefused, match=r"^slug: "):
        name_check(value, field="slug")


@pytest.mark.parametrize("value", ["test", "bm25", "v1.2_final-3", "a" * 100, "9lives"])
def test_a_name_keeping_the_rule_is_taken_as_it_is(value):
    assert name_problem(value) is None
    assert name_check(value, field="name") == value


def test_a_title_may_hold_spaces_but_no_control_or_override():
    assert title_check("  Tiny BEIR (2024)  ") == "Tiny BEIR (2024)"
    with pytest.raises(NameRefused) as refused:
        title_check("evil\u202etxt.exe", field="name")
    assert str(refused.value) == (
        "name: it holds a control or invisible character (U+202E RIGHT-TO-LEFT OVERRIDE)"
    )
    with pytest.raises(NameRefused, match=r"^name: it has 201 characters, at most 200"):
        title_check("x" * 201)
    with pytest.raises(NameRefused, match=r"^name: it is empty$"):
        title_check("   ")


def test_free_text_is_made_storable_and_must_fit():
    assert text_clean("a\x00b\ud800c", field="note", max_length=200) == "a\ufffdb\ufffdc"
    assert text_clean("plain", field="note", max_length=200) == "plain"
    with pytest.raises(NameRefused) as refused:
        text_clean("x" * 5000, field="note", max_length=200)
    assert str(refused.value) == "note: it has 5,000 characters, at most 200 are allowed"
