"""Confirming guidelines (assess.review.guidelines.guidelines_confirm) is idempotent: the
second confirmation returns the first. A confirmation counts for that version only: a new
version must be confirmed again, by each annotator for themselves."""

from assess.models import GuidelinesConfirmation
from assess.review.guidelines import guidelines_confirm, guidelines_confirmed, guidelines_create


def test_confirming_twice_keeps_one_confirmation(make_review_job, make_user):
    dataset = make_review_job(escalated=1).job.pool.dataset
    ann = make_user("annotator", "ann", confirm_guidelines=False)
    version = guidelines_create(text="v1", dataset=dataset, user=None)
    assert not guidelines_confirmed(annotator=ann, guidelines=version)

    first = guidelines_confirm(annotator=ann, guidelines=version)
    second = guidelines_confirm(annotator=ann, guidelines=version)

    assert first == second
    assert GuidelinesConfirmation.objects.filter(annotator=ann).count() == 1
    assert guidelines_confirmed(annotator=ann, guidelines=version)


def test_a_new_version_is_confirmed_again_and_by_each_annotator(make_review_job, make_user):
    dataset = make_review_job(escalated=1).job.pool.dataset
    ann = make_user("annotator", "ann", confirm_guidelines=False)
    bob = make_user("annotator", "bob", confirm_guidelines=False)
    v1 = guidelines_create(text="v1", dataset=dataset, user=None)
    guidelines_confirm(annotator=ann, guidelines=v1)
    v2 = guidelines_create(text="v2", dataset=dataset, user=None)

    assert guidelines_confirmed(annotator=ann, guidelines=v1)
    assert not guidelines_confirmed(annotator=ann, guidelines=v2)
    assert not guidelines_confirmed(annotator=bob, guidelines=v1)
