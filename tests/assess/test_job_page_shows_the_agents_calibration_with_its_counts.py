"""The debate job page's calibration panel: per agent n, ECE, Brier and a reliability diagram
with each bin's count, or in words what is missing (no logprobs, no human labels)."""

import html
import re

import pytest

pytestmark = pytest.mark.django_db


def _panel(client, job) -> tuple[str, str]:
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    found = re.search(r'<section id="job-calibration".*?</section>', page, re.S).group(0)
    return found, html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found)))


def test_the_panel_gives_n_ece_brier_and_a_reliability_plot(calibrated_job, client_as):
    markup, text = _panel(client_as("researcher"), calibrated_job.job)

    # Agent A: 4 points, ECE 0.3, Brier 0.125 (hand-worked in the API's test).
    assert re.search(r"A SmolLM2\S* 4 of 4 0\.300 0\.125", text), text
    assert markup.count("<circle") == 4  # one dot per bin, each with its count
    assert re.findall(r'font-size="8">(\d+)</text>', markup) == ["1", "1", "1", "1"]
    assert "no P(label): the server sent no logprobs for the labels of the 4 human-labelled" in text


def test_without_human_labels_the_panel_says_so(make_review_job, client_as):
    job = make_review_job(escalated=0, agreed=2, audit_share=1.0).job

    _, text = _panel(client_as("researcher"), job)

    assert "No calibration yet: calibration needs gold or audited pairs with human labels" in text
