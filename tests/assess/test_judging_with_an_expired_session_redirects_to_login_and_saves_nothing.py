"""A submission arriving after the session ended is not saved: the script is told to go to
the login page (``HX-Redirect``) and to come back to the judging page afterwards, where the
kept submission is sent again."""

import uuid

from assess.models import Judgment
from assess.review.services import review_item_claim


def test_an_htmx_submit_without_a_session_is_sent_to_login_and_back_to_judging(
    client, make_review_job, annotators
):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    item = review_item_claim(annotator=alice)
    answer = client.post(
        f"/judge/{item.public_id}/submit/",
        {"client_id": str(uuid.uuid4()), "label": "1"},
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/judge/"},
    )
    assert answer.status_code == 200
    assert answer["HX-Redirect"] == "/login/?next=/judge/"
    assert Judgment.objects.count() == 0


def test_after_logging_in_the_same_pair_is_shown_again(client, make_review_job, annotators):
    make_review_job(escalated=2)
    (alice,) = annotators(1)
    item = review_item_claim(annotator=alice)
    client.force_login(alice)
    html = client.get("/judge/").content.decode()
    assert f'data-item="{item.public_id}"' in html
