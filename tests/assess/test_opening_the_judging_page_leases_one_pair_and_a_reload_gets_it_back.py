"""The one page whose GET writes (CONTRIBUTING names it, with the API token's stamp):
opening the judging page leases the annotator's next pair, as Label Studio's "next task"
request locks its task. Its bounds are what make that safe: a reload gets the held pair
back, so an annotator never holds two pairs, and the GET creates no review item."""

import re

from assess.models import ReviewItem


def _shown(html: str) -> str:
    return re.search(r'id="judge-item"[^>]*data-item="([^"]*)"', html).group(1)


def test_a_reload_leases_nothing_more_and_shows_the_same_pair(client, make_review_job, annotators):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    client.force_login(alice)
    items_before = ReviewItem.objects.count()
    first = _shown(client.get("/judge/").content.decode())
    again = _shown(client.get("/judge/").content.decode())
    held = ReviewItem.objects.filter(leased_to=alice)
    assert first and again == first
    assert [str(i.public_id) for i in held] == [first]
    assert ReviewItem.objects.count() == items_before
