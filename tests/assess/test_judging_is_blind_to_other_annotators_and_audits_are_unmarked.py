"""A later annotator never sees an earlier human's label, note or name; an audited pair is
not marked as an audit and shows no debate, so the human judges it without the agents'
consensus in view."""

import uuid

from assess.models import ReviewItem
from assess.review.services import judgment_record, review_item_claim


def _pair_section(html: str) -> str:
    return html[html.index('<article class="pair">') : html.index("</article>")]


def test_the_second_annotator_sees_the_same_pair_as_the_first_without_her_answer(
    client, make_review_job, annotators
):
    make_review_job(escalated=1, judgments_per_pair=2)
    alice, bob = annotators(2)
    client.force_login(alice)
    before = client.get("/judge/").content.decode()
    item = review_item_claim(annotator=alice)
    judgment_record(
        item=item,
        annotator=alice,
        label=1,
        client_id=uuid.uuid4(),
        note="ALICE-SAYS-RELEVANT",
    )
    client.force_login(bob)
    after = client.get("/judge/").content.decode()
    assert f'data-item="{item.public_id}"' in after
    assert _pair_section(after) == _pair_section(before)
    assert "ALICE-SAYS-RELEVANT" not in after
    assert "ann1" not in after


def test_an_audited_pair_shows_no_debate_no_consensus_and_no_audit_mark(
    client, make_review_job, annotators
):
    make_review_job(escalated=0, agreed=1, audit_share=1.0)
    (alice,) = annotators(1)
    assert ReviewItem.objects.get().kind == "audit"
    client.force_login(alice)
    html = client.get("/judge/").content.decode()
    pair = _pair_section(html)
    assert "Does vitamin D reduce fractures?" in pair
    assert 'class="round"' not in pair
    assert "Label:" not in pair
    assert "hl-a" not in pair and "hl-b" not in pair
    assert "audit" not in html.lower()
    assert "consensus" not in html.lower()
