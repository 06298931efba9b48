"""Text a database or UTF-8 cannot hold (NUL, lone surrogates) is replaced with U+FFFD, a valid
surrogate pair stays intact, and the exact text can be kept escaped beside it. No database."""

import json

from core.text import text_capped, text_escaped, text_storable


def test_a_lone_surrogate_and_a_nul_become_the_replacement_character():
    text = json.loads('"a \\ud83d b \\u0000 c"')

    assert text_storable(text) == "a \ufffd b \ufffd c"
    assert text_storable(text).encode("utf-8")  # encodes now


def test_a_valid_pair_stays_one_character_whether_joined_or_held_as_two_code_points():
    assert text_storable(json.loads('"\\ud83d\\ude00"')) == "😀"
    assert text_storable("\ud83d\ude00") == "😀"  # two code points, as surrogatepass gives
    assert text_storable("x\udfff\ud83d") == "x\ufffd\ufffd"  # low then high: both lone


def test_text_with_nothing_to_replace_is_returned_as_it_is():
    text = "plain ünïcödé 😀"
    assert text_storable(text) is text
    assert text_escaped(text) is None


def test_the_escaped_form_is_ascii_and_gives_the_exact_text_back():
    text = "cut \ud83d here\x00"

    escaped = text_escaped(text)

    assert escaped == '"cut \\ud83d here\\u0000"'
    assert escaped.isascii()
    assert json.loads(escaped) == text


def test_a_long_text_is_capped_with_the_cut_marked():
    assert text_capped("abcdef", 6) == "abcdef"
    assert text_capped("a" * 12_345 + "bcd", 3) == "aaa… [12,345 more characters cut]"
