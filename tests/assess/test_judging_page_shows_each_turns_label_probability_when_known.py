"""The judging page shows each turn's P(label) beside its label ("relevant (p = 0.87)"), and
nothing where the server sent no logprobs."""

import re

from debates.models import Turn


def test_a_turn_with_a_probability_shows_it_and_one_without_shows_none(client_as, make_review_job):
    built = make_review_job(escalated=1)
    debate = built.escalated[0]
    Turn.objects.filter(debate=debate, agent="A", round=2).update(label_probability=0.8726)

    page = client_as("annotator").get("/judge/").content.decode()

    labels = re.findall(r'<p class="turn-label">(.*?)</p>', page)
    shown = [re.sub(r"<[^>]+>", "", label).strip() for label in labels]
    # Round 1: A, B; round 2: A (with p), B.
    assert shown == [
        "Label: relevant",
        "Label: not relevant",
        "Label: relevant (p = 0.87)",
        "Label: not relevant",
    ]
