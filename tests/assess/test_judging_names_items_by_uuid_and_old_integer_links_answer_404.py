"""Review items are named by their public id (a UUID) in every URL, form and fragment: the
judging page, its fragments and the admin's pages carry no integer id of an item, a gold
item's id tells nothing of when it was made, and an old link with an integer id, or a UUID
no item has, answers 404 (not 500)."""

import re
import uuid

from assess.models import ReviewItem
from assess.review.services import judgment_record, review_item_claim

HX = {"HX-Request": "true"}
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"


def _item_id(html: str) -> str:
    return re.search(r'id="judge-item"[^>]*data-item="([^"]*)"', html).group(1)


def _item_refs(html: str) -> list[str]:
    """Every place the page names a review item: data-item and the judging URLs' ids."""
    refs = re.findall(r'data-item="([^"]*)"', html)
    return refs + re.findall(r"/judge/([^/\"]+)/(?:submit|skip|active)/", html)


def test_the_judging_page_and_its_fragments_name_items_by_uuid_only(
    client, make_review_job, annotators
):
    make_review_job(escalated=4)
    (alice,) = annotators(1)
    client.force_login(alice)
    pages = [client.get("/judge/").content.decode()]
    for n in range(3):
        body = {"client_id": str(uuid.uuid4()), "label": str(n % 2), "seconds": "2"}
        answer = client.post(f"/judge/{_item_id(pages[-1])}/submit/", body, headers=HX)
        assert answer.status_code == 200
        pages.append(answer.content.decode())
    skipped = client.post(f"/judge/{_item_id(pages[-1])}/skip/", headers=HX)
    pages.append(skipped.content.decode())
    public = {str(p) for p in ReviewItem.objects.values_list("public_id", flat=True)}
    for html in pages[:-1]:
        refs = _item_refs(html)
        assert len(refs) == 4  # data-item, submit, active, skip
        assert all(re.fullmatch(UUID, ref) and ref in public for ref in refs)
    assert _item_refs(pages[-1]) == [""]  # the last pair skipped: the queue is empty
    # No review item's integer pk appears as an id anywhere: not in a URL, not in an attribute.
    for html in pages:
        for pk in ReviewItem.objects.values_list("pk", flat=True):
            assert not re.search(rf'(/judge/{pk}/|data-item="{pk}"|/review/items/{pk}/)', html)


def test_old_integer_links_and_unknown_uuids_answer_404(client_as, make_review_job):
    review = make_review_job(escalated=1)
    item = review.escalated[0].review
    annotator = client_as("annotator")
    for action in ("submit", "skip", "active"):
        body = {"client_id": str(uuid.uuid4()), "label": "1", "seconds": "1"}
        assert annotator.post(f"/judge/{item.pk}/{action}/", body, headers=HX).status_code == 404
        assert annotator.post(f"/judge/{uuid.uuid4()}/{action}/", body).status_code == 404
    admin = client_as("admin")
    assert admin.get(f"/review/items/{item.pk}/").status_code == 404
    assert admin.get(f"/review/items/{uuid.uuid4()}/").status_code == 404
    assert admin.get(f"/review/items/{item.public_id}/").status_code == 200
    assert not item.judgments.exists()


def test_the_admins_pages_link_items_by_uuid(client_as, make_review_job, annotators):
    make_review_job(escalated=1, judgments_per_pair=2)
    alice, bob = annotators(2)
    for user, label in ((alice, 1), (bob, 0)):
        item = review_item_claim(annotator=user)
        judgment_record(item=item, annotator=user, label=label, client_id=uuid.uuid4())
    admin = client_as("admin")
    listing = admin.get("/review/disagreements/").content.decode()
    assert re.findall(r'href="/review/items/([^/"]+)/"', listing) == [str(item.public_id)]
    page = admin.get(f"/review/items/{item.public_id}/").content.decode()
    assert 'Pair <span class="id">q001 / d001</span>' in page
    answer = admin.post(f"/review/items/{item.public_id}/", {"label": "1", "note": ""})
    assert answer.status_code == 302
    decided = admin.get(answer["Location"]).content.decode()
    assert "Pair q001 / d001 decided." in decided


def test_the_ids_shown_for_gold_and_real_pairs_do_not_follow_the_order_they_were_made_in(
    client, make_review_job, annotators
):
    make_review_job(escalated=12, gold_share=0.25, known_relevant=4, known_irrelevant=4)
    (ann,) = annotators(1)
    client.force_login(ann)
    shown: dict[int, tuple[str, str]] = {}  # pk: (the id the page showed, kind)
    html = client.get("/judge/").content.decode()
    while public := _item_id(html):
        item = ReviewItem.objects.get(public_id=public)
        shown[item.pk] = (public, item.kind)
        body = {"client_id": str(uuid.uuid4()), "label": "1", "seconds": "2"}
        html = client.post(f"/judge/{public}/submit/", body, headers=HX).content.decode()
    gold_pks = [pk for pk, (_, kind) in shown.items() if kind == "gold"]
    real_pks = [pk for pk, (_, kind) in shown.items() if kind != "gold"]
    assert gold_pks and len(real_pks) == 12
    # Why integer ids would not do: a gold item is made when it is served, after every
    # debate's item, so its pk is larger than theirs.
    assert min(gold_pks) > max(real_pks)
    # The ids shown are random (UUID version 4): sorted, they do not give the order the items
    # were made in (the chance that they happen to is 1 / n!, n = 15 or more here).
    assert all(uuid.UUID(public).version == 4 for public, _ in shown.values())
    assert sorted(shown, key=lambda pk: shown[pk][0]) != sorted(shown)
