"""A job's calibration compares its agents' P(relevant) with the human labels of its audited
pairs (assess.review.calibration). An audit item that took people's answer on its pair from
another job's item (assess.review.answered) has that label in the job's audit figures, and
must have it in the calibration too: it asks nobody, so it never gets a judgment of its own,
and leaving it out would drop from the calibration exactly the pairs the other job's people
judged (often the ones that job escalated, the hard ones)."""

import uuid

import pytest

from assess.models import ReviewItem
from assess.review.audit import audit_tallies
from assess.review.calibration import human_labels_of
from assess.review.services import judgment_record, review_items_sync

pytestmark = pytest.mark.django_db


def test_an_audit_answered_on_another_jobs_item_has_its_label_in_the_calibration(
    make_two_jobs_on_one_pool, annotators
):
    first, second = make_two_jobs_on_one_pool(slug="calibrated", pk=8301, pairs=4, audit_share=1.0)
    (alice,) = annotators(1)
    labels = {"d0": 0, "d1": 1, "d2": 0, "d3": 1}
    for item in ReviewItem.objects.filter(debate__job=first).select_related("debate__pair"):
        label = labels[item.debate.pair.document.doc_id]
        judgment_record(item=item, annotator=alice, label=label, client_id=uuid.uuid4())

    review_items_sync(job=second)  # every pair audited, each taking alice's answer

    audits = ReviewItem.objects.filter(debate__job=second, kind=ReviewItem.Kind.AUDIT)
    assert audits.count() == 4 and not audits.filter(answered_by__isnull=True).exists()
    assert audit_tallies(job=second) == {"label 1, round 1": (4, 2)}
    debates = second.debates.select_related("pair__document")
    expected = {d.pk: labels[d.pair.document.doc_id] for d in debates}
    assert human_labels_of(job=second) == expected
