"""The judging page shows a suspect original label (a check of the judged pairs whose agents
agreed against the qrels) as it shows an audit: the pair alone, without the debate, the
reason it escalated or the original label, so the answer owes nothing to them. Once the
answer is saved, the page says what the qrels said: "original label: 0 (qrels)". A pair of
any other job never shows an original label."""

import re
import uuid

import pytest

from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.check_judged import truth_agent
from tests.fixtures.jobs import AGENT_A, AGENT_B

HX = {"HX-Request": "true"}


def _item_id(html: str) -> str:
    return re.search(r'id="judge-item"[^>]*data-item="([^"]*)"', html).group(1)


@pytest.fixture
def suspects(flipped_scifact, fake_llms):
    agent = truth_agent(flipped_scifact.pool, flipped_scifact.truth)
    fake_llms(a=agent, b=agent)
    job = debate_job_launch(
        spec=JobSpec(
            pool=flipped_scifact.pool,
            agent_a=AGENT_A,
            agent_b=AGENT_B,
            check_judged=True,
            gold_share=0.0,
        )
    )
    debate_job_wait(job=job)
    return job


@pytest.mark.django_db
def test_the_original_label_is_hidden_before_the_answer_and_shown_after(
    suspects, client, annotators
):
    (alice,) = annotators(1)
    client.force_login(alice)
    page = client.get("/judge/").content.decode()
    first = _item_id(page)
    assert first
    for hidden in ("original label", "judge-original", "qrels", "I know the truth"):
        assert hidden not in page, hidden  # no original, no debate (the agents' arguments)
    assert "against the benchmark" not in page  # nor the reason it escalated

    body = {"client_id": str(uuid.uuid4()), "label": "1", "note": "", "seconds": "5"}
    answer = client.post(f"/judge/{first}/submit/", body, headers=HX).content.decode()
    shown = re.search(r'<span id="judge-original">([^<]*)</span>', answer).group(1)
    assert shown == "· original label: 0 (qrels)"
    second = _item_id(answer)
    assert second and second != first
    assert "original label" not in answer.replace(shown, "")  # the next pair's is hidden

    # Without the script: the message after the redirect says it.
    body = {"client_id": str(uuid.uuid4()), "label": "1", "note": "", "seconds": "5"}
    page = client.post(f"/judge/{second}/submit/", body, follow=True).content.decode()
    assert "Original label: 0 (qrels)." in page


@pytest.mark.django_db
def test_a_pair_of_another_job_shows_no_original_label(make_review_job, client, annotators):
    make_review_job(escalated=2)
    (alice,) = annotators(1)
    client.force_login(alice)
    first = _item_id(client.get("/judge/").content.decode())
    body = {"client_id": str(uuid.uuid4()), "label": "0", "note": "", "seconds": "5"}
    answer = client.post(f"/judge/{first}/submit/", body, headers=HX).content.decode()
    assert "saved " in answer and "judge-original" not in answer
