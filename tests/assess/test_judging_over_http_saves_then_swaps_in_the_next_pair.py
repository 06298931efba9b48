"""Over HTTP as the judging script sends it (``HX-Request``): a submission is saved with its
time on task and answered with the next pair's fragment, "saved hh:mm:ss", the count today
and the queue size; a re-send is harmless; bad input answers 400, a pair taken by someone
else 409 with the next pair; skip and undo answer with the pair to show."""

import re
import uuid

from django.utils import timezone

from assess.models import Judgment, ReviewItem
from assess.review.services import review_item_claim

HX = {"HX-Request": "true"}


def _item_id(html: str) -> str:
    """The public id of the pair the fragment shows ("" for none)."""
    return re.search(r'id="judge-item"[^>]*data-item="([^"]*)"', html).group(1)


def _undo_id(html: str) -> str:
    return re.search(r'name="undo" value="([^"]*)"', html).group(1)


def _status(html: str) -> tuple[str, str, str]:
    saved = re.search(r'<span id="judge-saved"[^>]*>([^<]*)</span>', html).group(1)
    today = re.search(r'<span id="judge-today">([^<]*)</span>', html).group(1)
    queue = re.search(r'<span id="judge-queue">([^<]*)</span>', html).group(1)
    return saved, today, queue


def test_a_submission_is_saved_and_the_next_pair_comes_back_in_the_same_answer(
    client, make_review_job, annotators
):
    review = make_review_job(escalated=3)
    (alice,) = annotators(1)
    client.force_login(alice)
    page = client.get("/judge/").content.decode()
    first = _item_id(page)
    assert ReviewItem.objects.get(public_id=first).debate_id == review.escalated[0].pk
    assert _status(page) == ("", "0 judged today", "3 in the queue")

    client_id = str(uuid.uuid4())
    body = {"client_id": client_id, "label": "1", "note": "clear evidence", "seconds": "7.25"}
    answer = client.post(f"/judge/{first}/submit/", body, headers=HX)
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "<html" not in html  # a fragment, not a page
    second = _item_id(html)
    assert ReviewItem.objects.get(public_id=second).debate_id == review.escalated[1].pk
    saved = Judgment.objects.get()
    assert (str(saved.item.public_id), saved.annotator, saved.label) == (first, alice, 1)
    assert (saved.note, saved.seconds_on_task, str(saved.client_id)) == (
        "clear evidence",
        7.25,
        client_id,
    )
    hhmmss = timezone.localtime(saved.created).strftime("%H:%M:%S")
    assert _status(html) == (f"saved {hhmmss}", "1 judged today", "2 in the queue")

    again = client.post(f"/judge/{first}/submit/", body, headers=HX)
    assert again.status_code == 200
    assert _item_id(again.content.decode()) == second
    assert Judgment.objects.count() == 1


def test_a_bad_submission_answers_400_and_saves_nothing(client, make_review_job, annotators):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    client.force_login(alice)
    item = _item_id(client.get("/judge/").content.decode())
    for body in (
        {"client_id": str(uuid.uuid4()), "label": "2"},
        {"client_id": "not-a-uuid", "label": "1"},
        {"label": "1"},
    ):
        answer = client.post(f"/judge/{item}/submit/", body, headers=HX)
        assert answer.status_code == 400
        assert answer.content.decode().startswith("Not saved: ")
    assert Judgment.objects.count() == 0


def test_a_pair_someone_else_holds_answers_409_with_the_reason_and_the_next_pair(
    client, make_review_job, annotators
):
    make_review_job(escalated=2)
    alice, bob = annotators(2)
    held_by_bob = review_item_claim(annotator=bob)
    client.force_login(alice)
    body = {"client_id": str(uuid.uuid4()), "label": "0"}
    answer = client.post(f"/judge/{held_by_bob.public_id}/submit/", body, headers=HX)
    assert answer.status_code == 409
    html = answer.content.decode()
    assert "another annotator is judging it now" in html
    assert _item_id(html) not in ("", str(held_by_bob.public_id))
    assert Judgment.objects.count() == 0


def test_skip_shows_the_next_pair_and_undo_brings_the_last_judged_pair_back(
    client, make_review_job, annotators
):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    client.force_login(alice)
    first = _item_id(client.get("/judge/").content.decode())
    skipped = client.post(f"/judge/{first}/skip/", headers=HX).content.decode()
    second = _item_id(skipped)
    assert second != first
    assert "Skipped." in skipped
    skipped_item = ReviewItem.objects.get(public_id=first)
    assert skipped_item.leased_to is None
    # The session (kept on the server) remembers the skip by the item's pk.
    assert client.session["assess_skipped"] == [skipped_item.pk]

    body = {"client_id": str(uuid.uuid4()), "label": "1", "seconds": "3"}
    saved = client.post(f"/judge/{second}/submit/", body, headers=HX).content.decode()
    third = _item_id(saved)
    assert third not in (first, second)
    # The fragment names the judgment "u" undoes: the one just saved.
    assert _undo_id(saved) == body["client_id"]

    undone = client.post("/judge/undo/", {"undo": _undo_id(saved)}, headers=HX)
    assert undone.status_code == 200
    assert _item_id(undone.content.decode()) == second
    assert "Undone: judge this pair again." in undone.content.decode()
    assert Judgment.objects.get().undone_at is not None
    assert _undo_id(undone.content.decode()) == ""  # no judgment left to undo

    nothing = client.post("/judge/undo/", {"undo": _undo_id(undone.content.decode())}, headers=HX)
    assert nothing.status_code == 409
    assert nothing.content.decode().startswith("Nothing to undo")


def test_without_the_script_the_forms_post_and_redirect_back(client, make_review_job, annotators):
    make_review_job(escalated=2)
    (alice,) = annotators(1)
    client.force_login(alice)
    page = client.get("/judge/").content.decode()
    item = _item_id(page)
    client_id = re.search(r'name="client_id" value="([^"]+)"', page).group(1)
    answer = client.post(f"/judge/{item}/submit/", {"client_id": client_id, "label": "0"})
    assert answer.status_code == 302
    assert answer["Location"] == "/judge/"
    assert Judgment.objects.get().label == 0
    follow = client.get("/judge/").content.decode()
    assert "Saved " in follow
    assert _item_id(follow) != item


def test_an_empty_queue_says_so(client, make_review_job, annotators):
    make_review_job(escalated=0, agreed=1)
    (alice,) = annotators(1)
    client.force_login(alice)
    html = client.get("/judge/").content.decode()
    assert "Queue empty: no pair is waiting for you right now." in html
    assert _status(html) == ("", "0 judged today", "0 in the queue")
