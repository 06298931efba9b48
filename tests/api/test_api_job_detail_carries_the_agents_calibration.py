"""``GET /api/v1/jobs/{id}`` carries the agents' calibration (assess.review.calibration): per
agent n, ECE (equal-mass bins), Brier score and the reliability bins of its final-round
P(relevant) against the human labels of the audited pairs, hand-worked; the words of what
is missing for an agent without label probabilities; escalated pairs never count."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_job_detail_has_each_agents_hand_worked_calibration(calibrated_job, api_as):
    # Agent A's P(relevant) (0.9, 0.8, 0.6, 0.3) against the humans' (1, 1, 0, 0).
    job = calibrated_job.job

    calibration = api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()["calibration"]

    assert calibration["missing"] == ""
    agent_a, agent_b = calibration["agents"]
    # Four points, one per bin: ECE = mean |y - p| = (0.1 + 0.2 + 0.6 + 0.3) / 4;
    # Brier = (0.01 + 0.04 + 0.36 + 0.09) / 4.
    assert (agent_a["agent"], agent_a["n"], agent_a["labelled"]) == ("A", 4, 4)
    assert agent_a["ece"] == pytest.approx(0.3)
    assert agent_a["brier"] == pytest.approx(0.125)
    assert [(b["count"], b["observed"]) for b in agent_a["bins"]] == [
        (1, 0),
        (1, 0),
        (1, 1),
        (1, 1),
    ]
    assert [b["mean_p"] for b in agent_a["bins"]] == pytest.approx([0.3, 0.6, 0.8, 0.9])
    assert (agent_b["n"], agent_b["ece"], agent_b["brier"], agent_b["bins"]) == (0, None, None, [])
    assert agent_b["missing"] == (
        "no P(label): the server sent no logprobs for the labels of the 4 human-labelled pairs"
    )


def test_without_human_labels_the_calibration_says_what_is_missing(make_review_job, api_as):
    job = make_review_job(escalated=0, agreed=2, audit_share=1.0).job

    calibration = api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()["calibration"]

    assert calibration["agents"] == []
    assert calibration["missing"].startswith("calibration needs gold or audited pairs")
