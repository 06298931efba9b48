"""A judgment's note is never refused or lost over a character a database cannot hold: NUL
and lone surrogates are stored as U+FFFD, by the form and by the service alike."""

import uuid

from assess.models import Judgment
from assess.review.forms import JudgmentForm
from assess.review.services import judgment_record, review_item_claim


def test_the_judging_form_accepts_a_nul_and_cleans_it():
    form = JudgmentForm(data={"client_id": str(uuid.uuid4()), "label": "1", "note": "odd\x00byte"})

    assert form.is_valid(), form.errors
    assert form.cleaned_data["note"] == "odd\ufffdbyte"


def test_a_lone_surrogate_in_a_note_is_stored_as_the_replacement_character(
    make_review_job, annotators
):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    item = review_item_claim(annotator=alice)

    judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4(), note="a\ud83db")

    assert Judgment.objects.get().note == "a\ufffdb"
