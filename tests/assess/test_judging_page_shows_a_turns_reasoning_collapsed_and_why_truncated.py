"""A reasoning model's reasoning is shown under its turn, collapsed and escaped; a pair
escalated because a reply stayed cut at its budget says so."""

import re

from debates.models import Debate, Turn

HOSTILE = "<script>alert(1)</script> weigh the chunk"


def test_the_reasoning_is_collapsed_under_its_turn_and_escaped(client_as, make_review_job):
    review = make_review_job(escalated=1)
    debate = review.escalated[0]
    Turn.objects.filter(debate=debate, agent="A", round=1).update(
        reasoning=HOSTILE, reasoning_tokens=412
    )
    Turn.objects.filter(debate=debate, agent="B", round=1).update(reasoning_tokens=192)

    html = client_as("annotator").get("/judge/").content.decode()

    summaries = re.findall(r'<summary class="muted small">(.*?)</summary>', html)
    assert summaries == ["Reasoning (412 tokens)", "Reasoning (192 tokens)"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; weigh the chunk" in html
    assert "<script>alert(1)" not in html
    # Hidden reasoning (OpenAI): only its tokens are known.
    assert "Hidden by the server; only its tokens were counted." in html
    assert '<details class="reasoning" open' not in html


def test_a_pair_escalated_as_truncated_says_why(client_as, make_review_job):
    review = make_review_job(escalated=1)
    Debate.objects.filter(pk=review.escalated[0].pk).update(escalation_reason="truncated")

    html = client_as("annotator").get("/judge/").content.decode()

    assert (
        "A reply was cut at its token budget, even when asked again with twice the budget, so "
        "the debate stopped."
    ) in html
