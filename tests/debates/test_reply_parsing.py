"""Agent replies: strict JSON with known label spellings is read; anything else is refused."""

import pytest

from debates.parsing import ParsedReply, ReplyParseError, parse_reply

VALID = [
    ('{"label": 1, "argument": "yes", "evidence": ["s1", "s2"]}', 1, "yes", ("s1", "s2")),
    ('{"label": 0, "argument": "no", "evidence": []}', 0, "no", ()),
    ('{"label": "1", "argument": "a", "evidence": []}', 1, "a", ()),
    ('{"label": "0", "argument": "a", "evidence": []}', 0, "a", ()),
    ('{"label": true, "argument": "a"}', 1, "a", ()),
    ('{"label": false, "argument": "a"}', 0, "a", ()),
    ('{"label": 1.0, "argument": "a"}', 1, "a", ()),
    ('{"label": "relevant", "argument": "a"}', 1, "a", ()),
    ('{"label": "Irrelevant", "argument": "a"}', 0, "a", ()),
    ('{"label": "  NOT relevant ", "argument": "a"}', 0, "a", ()),
    ('{"label": "not  relevant", "argument": "a"}', 0, "a", ()),
    ('{"label": "non-relevant", "argument": "a"}', 0, "a", ()),
    ('{"label": "Yes", "argument": "a"}', 1, "a", ()),
    ('{"label": "no", "argument": "a"}', 0, "a", ()),
    ('{"label": "TRUE", "argument": "a"}', 1, "a", ()),
    ('{"Label": 1, "argument": "a"}', 1, "a", ()),
    ('{"relevance": 0, "argument": "a"}', 0, "a", ()),
    ('  \n{"label": 1, "argument": "a"}\n\n', 1, "a", ()),
    ('```json\n{"label": 1, "argument": "a", "evidence": ["x"]}\n```', 1, "a", ("x",)),
    ('```\n{"label": 0, "argument": "a"}\n```', 0, "a", ()),
    ('```JSON {"label": 0, "argument": "a"} ```', 0, "a", ()),
    ('{"label": 1}', 1, "", ()),
    ('{"label": 1, "argument": "a", "confidence": 0.9}', 1, "a", ()),
    (
        '{"label": 1, "argument": "quote \\"x\\" <<<CHUNK", "evidence": [""]}',
        1,
        'quote "x" <<<CHUNK',
        ("",),
    ),
]


@pytest.mark.parametrize(("text", "label", "argument", "evidence"), VALID)
def test_valid_replies_are_read(text, label, argument, evidence):
    assert parse_reply(text) == ParsedReply(label=label, argument=argument, evidence=evidence)


INVALID = [
    ("", "empty reply"),
    ("   \n ", "empty reply"),
    ("I'm sorry, but I can't help with that.", "not a JSON object"),
    ("Relevant", "not a JSON object"),
    ("1", "not a JSON object"),
    ('Here is my answer: {"label": 1, "argument": "a"}', "not a JSON object"),
    ('{"label": 1, "argument": "a"} I hope this helps.', "text after the JSON object"),
    ('{"label": 1, "argument": "a"}\n{"label": 0}', "text after the JSON object"),
    ('Sure!\n```json\n{"label": 1}\n```', "not a JSON object"),
    ('```json\n{"label": 1}\n```\nDone.', "not a JSON object"),
    ('{"label": 1, "argument": "the chunk sa', "invalid or truncated JSON"),
    ('{"label": 1, "argument": "a", "evidence": ["x"', "invalid or truncated JSON"),
    ("{'label': 1}", "invalid or truncated JSON"),
    ("[1]", "not a JSON object"),
    ('{"argument": "a", "evidence": []}', "missing label"),
    ('{"label": 2, "argument": "a"}', "label out of range: 2"),
    ('{"label": -1, "argument": "a"}', "label out of range: -1"),
    ('{"label": 0.5, "argument": "a"}', "label out of range: 0.5"),
    ('{"label": "2", "argument": "a"}', "label not understood: '2'"),
    ('{"label": "partially relevant", "argument": "a"}', "label not understood"),
    ('{"label": "maybe", "argument": "a"}', "label not understood"),
    ('{"label": "relevant/irrelevant", "argument": "a"}', "label not understood"),
    ('{"label": "", "argument": "a"}', "label not understood"),
    ('{"label": null, "argument": "a"}', "label has the wrong type: NoneType"),
    ('{"label": [1], "argument": "a"}', "label has the wrong type: list"),
    ('{"label": 1, "relevance": 0, "argument": "a"}', "ambiguous: several label keys"),
    ('{"label": 1, "Label": 1, "argument": "a"}', "ambiguous: several label keys"),
    ('{"label": 1, "label": 0, "argument": "a"}', "duplicate key 'label'"),
    ('{"label": 1, "argument": 5}', "argument must be a string"),
    ('{"label": 1, "argument": "a", "evidence": "one sentence"}', "evidence must be a list"),
    ('{"label": 1, "argument": "a", "evidence": [1, 2]}', "evidence must be a list of strings"),
    ('{"label": 1, "argument": "a", "evidence": null}', "evidence must be a list"),
]


@pytest.mark.parametrize(("text", "reason"), INVALID)
def test_unreadable_replies_are_refused_with_a_reason(text, reason):
    with pytest.raises(ReplyParseError) as err:
        parse_reply(text)
    assert reason in err.value.reason


def test_a_reply_cut_off_at_the_token_limit_is_refused_even_if_it_parses():
    text = '{"label": 1, "argument": "a", "evidence": []}'

    assert parse_reply(text, finish_reason="stop").label == 1
    with pytest.raises(ReplyParseError, match="finish_reason=length"):
        parse_reply(text, finish_reason="length")
