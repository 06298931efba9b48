"""An annotator with a token judges over the API as on the judging page: the next pair is
leased with its query, chunk and (escalated pairs only) the debate; the guidelines in force
are confirmed before an answer counts; an answer is idempotent on its client id; a skip
gives the pair back; audits come blind and say nothing of being audits."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Judgment, ReviewItem
from assess.review.guidelines import guidelines_create

NEXT = "/api/v1/review/next"


def _post(client, url, body=None):
    return client.post(url, body or {}, content_type="application/json")


def _confirmed_item(client):
    """The next item leased to ``client``'s annotator, its guidelines confirmed."""
    item = _post(client, NEXT).json()["item"]
    if item["guidelines"] is not None and not item["guidelines"]["confirmed"]:
        assert _post(client, item["guidelines"]["confirm"]).status_code == 200
    return item


def test_the_next_escalated_pair_comes_with_its_debate_and_its_labels(api_as, make_review_job):
    review = make_review_job(escalated=2)
    client = api_as("annotator")
    answer = _post(client, NEXT)
    assert answer.status_code == 200
    body = answer.json()
    item = body["item"]
    stored = ReviewItem.objects.get(public_id=item["id"])
    assert stored.debate_id == review.escalated[0].pk
    assert stored.leased_to == client.user
    assert item["query"] == "Does vitamin D reduce fractures?"
    assert item["chunk"].startswith("We pooled eleven trials.")
    assert [c["label"] for c in item["labels"]] == [1, 0]
    # Two rounds of disagreement, each with both agents' turns, and the reason in words.
    assert [len(r["turns"]) for r in item["debate"]["rounds"]] == [2, 2]
    assert not any(r["agreed"] for r in item["debate"]["rounds"])
    assert "disagreed" in item["debate"]["why"]
    assert "kind" not in item and "audit" not in str(sorted(item))
    assert item["debate"]["chunk_truncated"] is False and "chunk_truncated" not in item
    assert body["queue"] == 2 and body["today"] == 0
    # Asking again gives the held pair back, as a reload of the page does.
    assert _post(client, NEXT).json()["item"]["id"] == item["id"]


def test_an_audit_comes_blind(api_as, make_review_job):
    make_review_job(escalated=0, agreed=1, audit_share=1.0)
    item = _post(api_as("annotator"), NEXT).json()["item"]
    assert ReviewItem.objects.get(public_id=item["id"]).kind == ReviewItem.Kind.AUDIT
    assert item["debate"] is None


def test_an_answer_counts_once_and_the_next_pair_follows(api_as, make_review_job):
    make_review_job(escalated=2)
    client = api_as("annotator")
    item = _confirmed_item(client)
    sent = {"label": 1, "client_id": str(uuid.uuid4()), "note": "says so directly"}
    first = _post(client, item["judgment"], sent)
    assert first.status_code == 201, first.json()
    assert first.json()["label"] == 1 and first.json()["original_label"] is None
    again = _post(client, item["judgment"], sent)
    assert again.status_code == 200 and again.json()["created"] == first.json()["created"]
    judgment = Judgment.objects.get(annotator=client.user)
    assert (judgment.label, judgment.note) == (1, "says so directly")
    following = _post(client, NEXT).json()
    assert following["item"]["id"] != item["id"]
    assert (following["queue"], following["today"]) == (1, 1)


def test_an_answer_before_the_guidelines_are_confirmed_is_refused(api_as, make_review_job):
    review = make_review_job(escalated=1)
    guidelines_create(text="Judge the chunk alone.", dataset=review.job.pool.dataset, user=None)
    client = api_as("annotator")
    item = _post(client, NEXT).json()["item"]
    assert item["guidelines"]["text"] == "Judge the chunk alone."
    assert item["guidelines"]["confirmed"] is False
    sent = {"label": 0, "client_id": str(uuid.uuid4())}
    refused = _post(client, item["judgment"], sent)
    assert refused.status_code == 409
    assert item["guidelines"]["confirm"] in refused.json()["detail"]
    assert not Judgment.objects.exists()
    confirmed = _post(client, item["guidelines"]["confirm"])
    assert confirmed.json()["version"] == item["guidelines"]["version"]
    assert _post(client, item["judgment"], sent).status_code == 201


def test_a_label_off_the_scale_and_a_pair_someone_else_holds_are_refused(
    api_as, make_review_job, annotators
):
    from assess.review.services import review_item_claim

    make_review_job(escalated=2)
    client = api_as("annotator")
    item = _confirmed_item(client)
    off = _post(client, item["judgment"], {"label": 2, "client_id": str(uuid.uuid4())})
    assert off.status_code == 400 and "1 (relevant) or 0" in off.json()["detail"]
    (bob,) = annotators(1)
    held_by_bob = review_item_claim(annotator=bob)
    url = f"/api/v1/review/items/{held_by_bob.public_id}/judgment"
    taken = _post(client, url, {"label": 1, "client_id": str(uuid.uuid4())})
    assert taken.status_code == 409 and "You do not hold this pair" in taken.json()["detail"]
    assert not Judgment.objects.exists()


def test_a_skipped_pair_goes_back_and_is_not_offered_again_when_excluded(api_as, make_review_job):
    make_review_job(escalated=2)
    client = api_as("annotator")
    first = _post(client, NEXT).json()["item"]
    assert _post(client, first["skip"]).json() == {"released": True}
    assert ReviewItem.objects.get(public_id=first["id"]).leased_to is None
    second = _post(client, NEXT, {"exclude": [first["id"]]}).json()["item"]
    assert second["id"] != first["id"]
    assert _post(client, first["skip"]).json() == {"released": False}
    # A skipped pair is not this annotator's any more: an answer to it is refused.
    late = _post(client, first["judgment"], {"label": 1, "client_id": str(uuid.uuid4())})
    assert late.status_code == 409 and "You do not hold this pair" in late.json()["detail"]


def test_excluding_a_held_pair_gives_it_back_so_one_annotator_holds_one_pair(
    api_as, make_review_job
):
    make_review_job(escalated=4)
    client = api_as("annotator")
    seen = []
    for _ in range(3):
        item = _post(client, NEXT, {"exclude": seen}).json()["item"]
        seen.append(item["id"])
    assert ReviewItem.objects.filter(leased_to=client.user).count() == 1
    assert str(ReviewItem.objects.get(leased_to=client.user).public_id) == seen[-1]


def test_the_queue_count_does_not_move_with_the_clients_exclusions(api_as, make_review_job):
    make_review_job(escalated=3)
    client = api_as("annotator")
    first = _post(client, NEXT).json()
    again = _post(client, NEXT, {"exclude": [first["item"]["id"]]}).json()
    assert first["queue"] == again["queue"] == 3


def test_the_seconds_stored_are_at_most_the_time_the_lease_was_held(api_as, make_review_job):
    make_review_job(escalated=1)
    client = api_as("annotator")
    item = _confirmed_item(client)
    # The lease began 30 s ago; the client claims 500 s on the pair: the server keeps what
    # it saw (30 s and the few moments of the request), never the client's larger figure.
    ReviewItem.objects.filter(public_id=item["id"]).update(
        claimed_at=timezone.now() - timedelta(seconds=30)
    )
    sent = {"label": 1, "client_id": str(uuid.uuid4()), "seconds": 500.0}
    assert _post(client, item["judgment"], sent).status_code == 201
    stored = Judgment.objects.get().seconds_on_task
    assert 30.0 <= stored < 500.0


@pytest.mark.parametrize("role", ["researcher", "admin"])
def test_only_annotators_judge_over_the_api(api_as, make_review_job, role):
    make_review_job(escalated=1)
    answer = _post(api_as(role), NEXT)
    assert answer.status_code == 403
    assert not ReviewItem.objects.filter(leased_to__isnull=False).exists()


def test_an_undone_answer_gives_the_pair_back_to_answer_again(api_as, make_review_job):
    make_review_job(escalated=2)
    client = api_as("annotator")
    item = _confirmed_item(client)
    client_id = str(uuid.uuid4())
    assert _post(client, item["judgment"], {"label": 1, "client_id": client_id}).status_code == 201
    undo = f"/api/v1/review/judgments/{client_id}/undo"
    undone = _post(client, undo)
    assert undone.status_code == 200 and undone.json()["item"]["id"] == item["id"]
    assert Judgment.objects.get().undone_at is not None
    assert _post(client, undo).json()["item"]["id"] == item["id"]  # a re-send: the same
    assert _post(client, NEXT).json()["item"]["id"] == item["id"]
    again = {"label": 0, "client_id": str(uuid.uuid4())}
    assert _post(client, item["judgment"], again).status_code == 201
    nothing = _post(client, f"/api/v1/review/judgments/{uuid.uuid4()}/undo")
    assert nothing.status_code == 409 and "Nothing to undo" in nothing.json()["detail"]


def test_neither_the_api_nor_the_page_shows_the_pairs_ids_to_the_annotator(
    api_as, client_as, make_review_job
):
    # q001 and d001 would look the pair up in a public benchmark's qrels.
    make_review_job(escalated=2)
    item = _post(api_as("annotator"), NEXT).json()["item"]
    assert "q001" not in str(item) and "d001" not in str(item)
    # The page's annotator is given the other pair, q002 / d002.
    page = client_as("annotator").get("/judge/").content.decode()
    assert 'id="pair-query">Does vitamin D reduce fractures?' in page
    assert "q002" not in page and "d002" not in page
