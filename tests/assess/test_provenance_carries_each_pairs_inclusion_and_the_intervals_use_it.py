"""A refinement stores each pair's probability of going to humans in its provenance: 1 for
an escalated pair, for an agreed pair its audit stratum's probability in its job, drawn for
the audit or not. The intervals' labels read it (a set refined before it was stored weighs
each pair by the share of its job's stratum that was drawn, not by the job's share now), name
the strata "label L, round R", and the labels export carries it."""

import uuid

from assess.evaluation.interval_labels import legacy_inclusions
from assess.evaluation.refined_intervals import pooled_labels
from assess.models import LabelProvenance, ReviewItem
from assess.refined.export_rows import labels_records
from assess.refined.refine import qrels_refine
from assess.review.services import judgment_record, review_items_sync
from debates.models import Debate, DebateJob

ONES, ZEROS = "label 1, round 1", "label 0, round 2"


def test_provenance_and_the_intervals_carry_the_strata_probabilities(make_review_job, annotators):
    # The draw hashes job and pair ids, so they are fixed (job 6801, pairs 6801..6841): 9 of
    # the 20 ones at 0.25 and 6 of the 20 zeros at 0.5 are audited. With ids from the
    # sequences (which depend on the tests run before) the ones had no audit in about one
    # test order in 300.
    review = make_review_job(escalated=1, agreed=40, audit_share=0.25, sync=False, pk=6801)
    job = review.job
    zeros = [d.pk for d in review.agreed[20:]]
    Debate.objects.filter(pk__in=zeros).update(final_label=0, consensus_round=2)
    # The 0s' stratum was raised to a half earlier (its committed probability).
    DebateJob.objects.filter(pk=job.pk).update(audit_inclusion={ZEROS: 0.5})
    job.refresh_from_db()
    review_items_sync(job=job)
    (alice,) = annotators(1)
    for item in ReviewItem.objects.all():
        label = 1 if item.debate.final_label is None else item.debate.final_label
        judgment_record(item=item, annotator=alice, label=label, client_id=uuid.uuid4())
    refined = qrels_refine(pool=job.pool, name="weighted", allow_partial=True).qrel_set

    stored = {
        row.debate_id: row.inclusion for row in LabelProvenance.objects.filter(qrel_set=refined)
    }
    escalated = review.escalated[0].pk
    assert stored == {
        escalated: 1.0,
        **{d.pk: 0.25 for d in review.agreed[:20]},
        **dict.fromkeys(zeros, 0.5),
    }
    audited = set(ReviewItem.objects.filter(kind="audit").values_list("debate_id", flat=True))
    assert (len(audited - set(zeros)), len(audited & set(zeros))) == (9, 6)

    labels, counts = pooled_labels(refined=refined)
    by_doc = {(p.query_id, p.doc_id): p for p in labels}
    assert (counts["agreed"], counts["escalated"], counts["audited"]) == (40, 1, len(audited))
    assert by_doc["q001", "d001"].stratum == "escalated"
    assert (by_doc["q002", "d002"].stratum, by_doc["q002", "d002"].inclusion) == (ONES, 0.25)
    assert (by_doc["q041", "d041"].stratum, by_doc["q041", "d041"].inclusion) == (ZEROS, 0.5)
    records = {r["doc_id"]: r["inclusion"] for r in labels_records(qrel_set=refined)}
    assert (records["d001"], records["d002"], records["d041"]) == (1.0, 0.25, 0.5)

    # A set refined before inclusions were stored: its job's audit share then was not
    # recorded and the share now may differ (raised here to 0.9 after the draw). Each pair
    # weighs by the share of its job's stratum drawn, the inclusion probability given the
    # sample's size: 9 of the 20 ones, 6 of the 20 zeros, whatever the share is now.
    LabelProvenance.objects.filter(qrel_set=refined).update(inclusion=None)
    DebateJob.objects.filter(pk=job.pk).update(audit_share=0.9)
    labels, _ = pooled_labels(refined=refined)
    by_stratum = {
        name: {p.inclusion for p in labels if p.stratum == name} for name in (ONES, ZEROS)
    }
    assert by_stratum == {ONES: {9 / 20}, ZEROS: {6 / 20}}


def test_a_legacy_draw_weighs_by_the_share_drawn_in_its_job_and_stratum():
    draws = [((7, ONES), True)] * 2 + [((7, ONES), False)] * 6 + [((7, ZEROS), False)] * 3
    draws += [((8, ONES), True)]
    # No pair drawn in job 7's zeros: no weight is needed there, none is given.
    assert legacy_inclusions(draws) == {(7, ONES): 0.25, (8, ONES): 1.0}
