"""An undo names the judgment it undoes (the judging page carries its client id): sending it
again, as the script does after a lost answer, finds that judgment undone and answers as the
first undo did; it never undoes the judgment before it. The page without the script posts
the same id."""

import re
import uuid

import pytest

from assess.models import Judgment, ReviewItem
from assess.review.services import JudgingError, judgment_record, judgment_undo, review_item_claim

HX = {"HX-Request": "true"}


def _item_id(html: str) -> str:
    """The public id of the pair the fragment shows ("" for none)."""
    return re.search(r'id="judge-item"[^>]*data-item="([^"]*)"', html).group(1)


def _undo_id(html: str) -> str:
    return re.search(r'name="undo" value="([^"]*)"', html).group(1)


def _judge_two(alice):
    ids = [uuid.uuid4(), uuid.uuid4()]
    items = []
    for label, client_id in zip((1, 0), ids, strict=True):
        item = review_item_claim(annotator=alice)
        judgment_record(item=item, annotator=alice, label=label, client_id=client_id)
        items.append(item)
    return items, ids


def _state():
    judgments = Judgment.objects.order_by("created", "pk")
    return (
        [(j.label, j.undone_at is not None) for j in judgments],
        list(ReviewItem.objects.order_by("pk").values_list("judgments_done", "leased_to")),
    )


def test_the_same_undo_twice_undoes_only_the_judgment_it_names(make_review_job, annotators):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    (first, second), (_, second_id) = _judge_two(alice)
    item = judgment_undo(annotator=alice, client_id=second_id)
    after_one = _state()
    again = judgment_undo(annotator=alice, client_id=str(second_id))
    assert item.pk == again.pk == second.pk
    assert (
        _state()
        == after_one
        == (
            [(1, False), (0, True)],
            [(1, None), (0, alice.pk), (0, None)],
        )
    )
    assert (again.leased_to_id, again.lease_expires_at) == (alice.pk, item.lease_expires_at)


def test_a_resent_undo_over_http_answers_as_the_first_and_the_earlier_judgment_stays(
    client, make_review_job, annotators
):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    client.force_login(alice)
    page = client.get("/judge/").content.decode()
    first = _item_id(page)
    body = {"client_id": str(uuid.uuid4()), "label": "1", "seconds": "2"}
    answer = client.post(f"/judge/{first}/submit/", body, headers=HX).content.decode()
    second = _item_id(answer)
    body = {"client_id": str(uuid.uuid4()), "label": "0", "seconds": "2"}
    answer = client.post(f"/judge/{second}/submit/", body, headers=HX).content.decode()
    assert _undo_id(answer) == body["client_id"]

    undo = {"undo": _undo_id(answer)}
    answers = [client.post("/judge/undo/", undo, headers=HX) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    assert [_item_id(a.content.decode()) for a in answers] == [second, second]
    assert all("Undone: judge this pair again." in a.content.decode() for a in answers)
    done = {str(k): v for k, v in ReviewItem.objects.values_list("public_id", "judgments_done")}
    assert (done[first], done[second]) == (1, 0)
    assert [undone for _, undone in _state()[0]] == [False, True]
    # The page now names the judgment before, which a deliberate second "u" would undo.
    assert _undo_id(answers[1].content.decode()) == str(Judgment.objects.get(label=1).client_id)


def test_without_the_script_a_posted_twice_undo_undoes_one_judgment(
    client, make_review_job, annotators
):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    _judge_two(alice)
    client.force_login(alice)
    page = client.get("/judge/").content.decode()
    form = {
        "undo": _undo_id(page),
        "client_id": re.search(r'name="client_id" value="([^"]+)"', page).group(1),
        "seconds": "0",
        "note": "",
    }
    answers = [client.post("/judge/undo/", form) for _ in range(2)]
    assert [(a.status_code, a["Location"]) for a in answers] == [(302, "/judge/")] * 2
    assert [undone for _, undone in _state()[0]] == [False, True]
    assert "Undone: judge the pair again." in client.get("/judge/").content.decode()


def test_a_late_resend_after_judging_the_pair_again_shows_the_next_pair(
    client, make_review_job, annotators
):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    (_, second), (_, second_id) = _judge_two(alice)
    judgment_undo(annotator=alice, client_id=second_id)
    judgment_record(item=second, annotator=alice, label=1, client_id=uuid.uuid4())
    client.force_login(alice)
    late = client.post("/judge/undo/", {"undo": str(second_id)}, headers=HX)
    assert late.status_code == 200
    html = late.content.decode()
    assert "Already undone." in html
    third = ReviewItem.objects.exclude(judgments__isnull=False).get()
    assert _item_id(html) == str(third.public_id)
    assert [undone for _, undone in _state()[0]] == [False, True, False]
    assert ReviewItem.objects.get(pk=second.pk).judgments_done == 1


def test_an_undo_id_that_is_not_a_uuid_is_refused(client, make_review_job, annotators):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    item = review_item_claim(annotator=alice)
    judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4())
    client.force_login(alice)
    answer = client.post("/judge/undo/", {"undo": "last"}, headers=HX)
    assert answer.status_code == 400
    assert answer.content.decode() == "Not undone: Enter a valid UUID."
    assert Judgment.objects.get().undone_at is None


def test_another_annotators_judgment_cannot_be_undone(make_review_job, annotators):
    make_review_job(escalated=1, judgments_per_pair=2)
    alice, bob = annotators(2)
    bob_id = uuid.uuid4()
    judgment_record(item=ReviewItem.objects.get(), annotator=bob, label=0, client_id=bob_id)
    with pytest.raises(JudgingError, match="Nothing to undo"):
        judgment_undo(annotator=alice, client_id=bob_id)
    assert Judgment.objects.get().undone_at is None
