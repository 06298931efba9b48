"""Over HTTP as static/judge.js sends them: the judging page's heartbeats (and beacons) add
active seconds to the pair's lease only when the poster holds it (another annotator's post
changes nothing), at most 120 s a post and never more than the lease has lasted; the
judgment stores what the heartbeats stored plus the ``active`` field it carries, and None
when neither exists. A new claim starts from 0, a reload of the held pair keeps what was
reported."""

import re
import uuid
from datetime import timedelta

from django.utils import timezone

from assess.models import Judgment, ReviewItem

HX = {"HX-Request": "true"}


def _item_id(html: str) -> str:
    """The public id of the pair the fragment shows ("" for none)."""
    return re.search(r'id="judge-item"[^>]*data-item="([^"]*)"', html).group(1)


def _beat(client, item: str, seconds) -> int:
    return client.post(f"/judge/{item}/active/", {"seconds": seconds}, headers=HX).status_code


def _shown_for(item: str, seconds: float = 600) -> str:
    """Date the pair's claim back: the server never holds more active time for a lease
    than it has lasted, and these tests post minutes of heartbeats at once."""
    ReviewItem.objects.filter(public_id=item).update(
        claimed_at=timezone.now() - timedelta(seconds=seconds)
    )
    return item


def _lease_seconds(item: str) -> float:
    return ReviewItem.objects.get(public_id=item).lease_active_seconds


def test_heartbeats_add_to_the_lease_only_for_the_annotator_holding_it(
    client, make_review_job, annotators
):
    make_review_job(escalated=2)
    alice, bob = annotators(2)
    client.force_login(alice)
    item = _shown_for(_item_id(client.get("/judge/").content.decode()))
    assert _lease_seconds(item) == 0.0

    assert _beat(client, item, "14.5") == 204
    assert _beat(client, item, "3") == 204
    assert _beat(client, item, "500") == 204  # counts 120 at most
    assert _lease_seconds(item) == 137.5

    client.force_login(bob)
    assert _beat(client, item, "30") == 409  # bob does not hold alice's pair
    assert _lease_seconds(item) == 137.5
    assert _beat(client, item, "not a number") == 400
    assert client.get(f"/judge/{item}/active/", headers=HX).status_code == 405
    assert _lease_seconds(item) == 137.5


def test_a_judgment_stores_the_heartbeats_plus_the_active_seconds_it_carries(
    client, make_review_job, annotators
):
    make_review_job(escalated=2)
    (alice,) = annotators(1)
    client.force_login(alice)
    item = _shown_for(_item_id(client.get("/judge/").content.decode()))
    assert _beat(client, item, "15") == 204
    assert _beat(client, item, "12.25") == 204
    body = {"client_id": str(uuid.uuid4()), "label": "1", "seconds": "95", "active": "4.5"}
    answer = client.post(f"/judge/{item}/submit/", body, headers=HX)
    assert answer.status_code == 200
    judgment = Judgment.objects.get()
    assert (judgment.seconds_on_task, judgment.active_seconds) == (95.0, 31.75)
    assert judgment.click_through is False
    # The lease ended with its active time; a late beacon for the judged pair adds nothing.
    assert _lease_seconds(item) == 0.0
    assert _beat(client, item, "2") == 409
    assert _lease_seconds(item) == 0.0


def test_a_judgment_without_an_active_field_or_a_heartbeat_is_not_measured(
    client, make_review_job, annotators
):
    make_review_job(escalated=2)
    (alice,) = annotators(1)
    client.force_login(alice)
    first = _item_id(client.get("/judge/").content.decode())
    body = {"client_id": str(uuid.uuid4()), "label": "0", "seconds": "7"}
    second = _item_id(client.post(f"/judge/{first}/submit/", body, headers=HX).content.decode())
    assert Judgment.objects.get(item__public_id=first).active_seconds is None
    _shown_for(second)
    # Heartbeats and no active field (the page sent its answer without the script): they count.
    assert _beat(client, second, "6") == 204
    body = {"client_id": str(uuid.uuid4()), "label": "1", "seconds": "9", "active": ""}
    client.post(f"/judge/{second}/submit/", body, headers=HX)
    assert Judgment.objects.get(item__public_id=second).active_seconds == 6.0


def test_a_new_claim_starts_from_zero_and_a_reload_keeps_the_reported_seconds(
    client, make_review_job, annotators
):
    make_review_job(escalated=1)
    alice, bob = annotators(2)
    client.force_login(alice)
    item = _shown_for(_item_id(client.get("/judge/").content.decode()))
    assert _beat(client, item, "20") == 204
    assert _item_id(client.get("/judge/").content.decode()) == item  # a reload: the held pair
    assert _lease_seconds(item) == 20.0

    # Alice's lease runs out and bob claims the pair: his time starts from 0.
    ReviewItem.objects.filter(public_id=item).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    client.force_login(bob)
    assert _item_id(client.get("/judge/").content.decode()) == item
    assert ReviewItem.objects.get(public_id=item).leased_to == bob
    assert _lease_seconds(item) == 0.0
    client.force_login(alice)
    assert _beat(client, item, "5") == 409
    assert _lease_seconds(item) == 0.0


def test_heartbeats_never_add_more_active_time_than_the_lease_lasted(make_review_job, annotators):
    from assess.review.active_time import review_item_active_add
    from assess.review.services import review_item_claim

    make_review_job(escalated=1)
    (ann,) = annotators(1)
    item = review_item_claim(annotator=ann)
    ReviewItem.objects.filter(pk=item.pk).update(claimed_at=timezone.now() - timedelta(seconds=30))
    for _ in range(10):  # 10 posts of 120 s within a lease 30 s old
        assert review_item_active_add(item=item, annotator=ann, seconds=120)
    item.refresh_from_db()
    assert 30 <= item.lease_active_seconds < 35
