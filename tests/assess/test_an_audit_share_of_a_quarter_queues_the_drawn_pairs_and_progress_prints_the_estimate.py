"""A job auditing a quarter of its agreed labels (the demo's share) queues
exactly the pairs the SHA-256 rule of README "Audits" draws, and once annotators judged them
`debate_job ID progress` prints the audit's estimate of wrong consensus labels with its 95%
Wilson interval (hand-worked below)."""

import hashlib
import re
import uuid
from io import StringIO

from django.core.management import call_command

from assess.models import ReviewItem
from assess.review.services import judgment_record, review_item_claim


def _drawn(job_id: int, pair_id: int, share: float) -> bool:
    # README "Audits": the first 64 bits of SHA-256 of "<job id>:<pair id>" over 2^64.
    digest = hashlib.sha256(f"{job_id}:{pair_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def _progress(job_id: int) -> str:
    out = StringIO()
    call_command("debate_job", str(job_id), "progress", stdout=out)
    return out.getvalue()


def test_a_quarter_share_queues_the_drawn_pairs_and_progress_prints_the_wilson_estimate(
    make_review_job, annotators, fresh_cache
):
    # 60 agreed pairs. The draw hashes job and pair ids, so they are fixed (job 6301, pairs
    # 6301..6361): a quarter draws 12. With ids from the sequences (which depend on the tests
    # run before) fewer than the 4 judged below were drawn in about one order in 50,000.
    review = make_review_job(escalated=1, agreed=60, audit_share=0.25, agreed_label=1, pk=6301)
    job = review.job
    expected = sorted(d.pk for d in review.agreed if _drawn(job.pk, d.pair_id, 0.25))
    audits = sorted(ReviewItem.objects.filter(kind="audit").values_list("debate_id", flat=True))
    assert audits == expected
    assert len(audits) == 12
    assert f"{len(audits)} audited agreed labels (0 judged), audit share 25%" in _progress(job.pk)
    assert f"audit: {len(audits)} agreed pairs sampled, none judged yet" in _progress(job.pk)

    # Four audited pairs judged: the human rejects the agents' "relevant" on the first only.
    (alice,) = annotators(1)
    judged = 0
    while judged < 4:
        item = review_item_claim(annotator=alice)
        if item.kind != "audit":
            judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4())
            continue
        label = 0 if judged == 0 else 1
        judgment_record(item=item, annotator=alice, label=label, client_id=uuid.uuid4())
        judged += 1

    printed = _progress(job.pk)
    # Wilson, 1 of 4, z = 1.96: centre (0.25 + 0.4802) / 1.9604 = 0.37247, half width
    # 1.96 / 1.9604 * sqrt(0.046875 + 0.060025) = 0.32689: 0.04558 .. 0.69936.
    line = re.search(r"^audit: .*$", printed, re.M).group(0)
    assert line == (
        "audit: estimated error rate of consensus labels 0.250 (1 of 4 audited pairs), "
        "95% Wilson interval 0.046-0.699"
    )
    assert f"{len(audits)} audited agreed labels (4 judged)" in printed
