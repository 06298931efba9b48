"""A reply's answer is the content after the last </think>; the reasoning is what comes before
it and the server's reasoning field. No database."""

from debates.replies import reply_split

ANSWER = '{"label": 1}'


def test_think_tags_in_the_content_are_split_off():
    split = reply_split(f"<think>\nWeigh it.\n</think>\n\n{ANSWER}")
    assert (split.answer, split.reasoning, split.unclosed) == (ANSWER, "Weigh it.", False)


def test_a_reply_without_the_opening_tag_is_split_at_the_closing_one():
    split = reply_split(f"Weigh it.\n</think>{ANSWER}")
    assert (split.answer, split.reasoning) == (ANSWER, "Weigh it.")


def test_the_last_closing_tag_counts():
    split = reply_split(f"<think>a</think> b </think>{ANSWER}")
    assert (split.answer, split.reasoning) == (ANSWER, "a</think> b")


def test_a_reply_cut_inside_its_reasoning_has_no_answer():
    split = reply_split("<think>\nStep 1: weigh")
    assert (split.answer, split.reasoning, split.unclosed) == ("", "Step 1: weigh", True)


def test_the_reasoning_field_is_the_reasoning_and_the_content_the_answer():
    split = reply_split(ANSWER, "The chunk says so.")
    assert (split.answer, split.reasoning) == (ANSWER, "The chunk says so.")


def test_an_empty_content_with_a_reasoning_field_has_no_answer():
    split = reply_split("", f"Thinking... {ANSWER}")
    assert split.answer == ""
    assert split.reasoning == f"Thinking... {ANSWER}"


def test_a_plain_reply_is_its_own_answer_verbatim():
    assert reply_split(f"  {ANSWER}\n").answer == f"  {ANSWER}\n"
    assert reply_split(ANSWER).reasoning == ""
